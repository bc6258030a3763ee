//! A plan from the files an engineer has: a QGroundControl `.plan` (mission, fence and rally
//! points in one), or a `QGC WPL 110` mission with the fence and rally lists ArduPilot's tools
//! write beside it.

use alpha3_core::frames::Geo;
use alpha3_core::mission_file::{
    Fence, GeoPoint, MissionFileError, MissionItem, ReadOptions, WplFile, read_plan, read_wpl,
};
use alpha3_core::plan_mission::PlanParts;
use std::path::{Path, PathBuf};

/// Why a plan could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PlanReadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    File {
        path: PathBuf,
        #[source]
        source: MissionFileError,
    },
    #[error("{path}: expected {expected}, found a {found} list")]
    WrongList {
        path: PathBuf,
        expected: &'static str,
        found: &'static str,
    },
    #[error(
        "{path}: a .plan holds its own fence and rally points; --fence and --rally go with a .waypoints mission"
    )]
    ExtraLists { path: PathBuf },
}

/// A plan's parts as read, owned.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanInput {
    /// The mission file's stem.
    pub name: String,
    pub items: Vec<MissionItem>,
    pub fence: Fence,
    pub rally: Vec<GeoPoint>,
    /// Where the plan was drawn from: `plannedHomePosition`, or a WPL mission's home line.
    pub planned_home: Option<Geo>,
}

impl PlanInput {
    pub fn parts(&self) -> PlanParts<'_> {
        PlanParts {
            name: &self.name,
            items: &self.items,
            fence: &self.fence,
            rally: &self.rally,
        }
    }
}

fn read_bytes(path: &Path, max: usize) -> Result<Vec<u8>, PlanReadError> {
    let io = |source| PlanReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Bounded before reading: the readers cap the size, and a larger file is not read at all.
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > max as u64 {
        return Err(PlanReadError::File {
            path: path.to_path_buf(),
            source: MissionFileError::TooLarge {
                bytes: usize::try_from(len).unwrap_or(usize::MAX),
                max,
            },
        });
    }
    std::fs::read(path).map_err(io)
}

fn wpl(path: &Path) -> Result<WplFile, PlanReadError> {
    let bytes = read_bytes(path, alpha3_core::mission_file::limits::MAX_WPL_BYTES)?;
    read_wpl(&bytes, &ReadOptions::default()).map_err(|source| PlanReadError::File {
        path: path.to_path_buf(),
        source,
    })
}

fn name_of(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("plan") => "plan",
        _ => "waypoints",
    }
}

/// Reads `mission` (`.plan` JSON, or WPL text by any other name) and, for a WPL mission, the
/// optional `fence` and `rally` WPL lists.
pub fn read_plan_files(
    mission: &Path,
    fence: Option<&Path>,
    rally: Option<&Path>,
) -> Result<PlanInput, PlanReadError> {
    let name = mission
        .file_stem()
        .map_or_else(|| "plan".into(), |s| s.to_string_lossy().into_owned());
    if name_of(mission) == "plan" {
        if fence.is_some() || rally.is_some() {
            return Err(PlanReadError::ExtraLists {
                path: mission.to_path_buf(),
            });
        }
        let bytes = read_bytes(mission, alpha3_core::mission_file::limits::MAX_PLAN_BYTES)?;
        let plan =
            read_plan(&bytes, &ReadOptions::default()).map_err(|source| PlanReadError::File {
                path: mission.to_path_buf(),
                source,
            })?;
        return Ok(PlanInput {
            name,
            items: plan.mission_items(),
            fence: plan.fence,
            rally: plan.rally,
            planned_home: Some(plan.mission.planned_home),
        });
    }
    let wrong = |path: &Path, expected, found| PlanReadError::WrongList {
        path: path.to_path_buf(),
        expected,
        found,
    };
    let m = match wpl(mission)? {
        WplFile::Mission(m) => m,
        WplFile::Fence(_) => return Err(wrong(mission, "a mission", "fence")),
        WplFile::Rally(_) => return Err(wrong(mission, "a mission", "rally")),
    };
    let fence = match fence.map(|p| (p, wpl(p))) {
        None => Fence::default(),
        Some((_, Ok(WplFile::Fence(f)))) => f,
        Some((p, Ok(WplFile::Mission(_)))) => return Err(wrong(p, "a fence", "mission")),
        Some((p, Ok(WplFile::Rally(_)))) => return Err(wrong(p, "a fence", "rally")),
        Some((_, Err(e))) => return Err(e),
    };
    let rally = match rally.map(|p| (p, wpl(p))) {
        None => Vec::new(),
        Some((_, Ok(WplFile::Rally(r)))) => r,
        Some((p, Ok(WplFile::Mission(_)))) => return Err(wrong(p, "rally points", "mission")),
        Some((p, Ok(WplFile::Fence(_)))) => return Err(wrong(p, "rally points", "fence")),
        Some((_, Err(e))) => return Err(e),
    };
    let planned_home = m.home.and_then(|h| {
        let (lat_deg, lon_deg) = h.lat_lon_deg()?;
        Some(Geo {
            lat_deg,
            lon_deg,
            alt_amsl_m: f64::from(h.z),
        })
    });
    Ok(PlanInput {
        name,
        items: m.items,
        fence,
        rally,
        planned_home,
    })
}
