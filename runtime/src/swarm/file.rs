//! A swarm file: the vehicles of one swarm flight, each with its own scenario, placed in one
//! common frame whose origin is on the earth.
//!
//! ```toml
//! name = "cross-3"
//! origin_lat_deg = 47.397742
//! origin_lon_deg = 8.545594
//! origin_alt_amsl_m = 488.0
//!
//! [[vehicle]]
//! name = "uav-1"
//! scenario = "cross-3/uav-1.json"   # relative to this file
//! start_delay_s = 0.0               # swarm time before its runtime starts
//! ```
//!
//! Every scenario is in the common frame: its spawn point is where that vehicle stands at the
//! start (the autopilot's home is put there), its waypoints are where it flies.

use alpha3_core::frames::{Enu, Geo, LocalFrame};
use alpha3_core::scenario::Scenario;
use alpha3_core::swarm::SwarmFileToml;
use std::path::{Path, PathBuf};

pub use alpha3_core::swarm::file::MAX_VEHICLES;

/// One vehicle of the swarm.
#[derive(Debug, Clone)]
pub struct SwarmVehicle {
    pub name: String,
    pub scenario_path: PathBuf,
    pub scenario: Scenario,
    pub start_delay_s: f64,
    /// Where it stands at the start: its autopilot's home.
    pub home: Geo,
}

/// A swarm file, read and checked.
#[derive(Debug, Clone)]
pub struct SwarmFile {
    pub name: String,
    pub origin: Geo,
    /// Each vehicle's turn budget, when the file sets one.
    pub max_turns: Option<u32>,
    /// Each vehicle's tool-action budget, when the file sets one.
    pub max_tool_actions: Option<u32>,
    pub vehicles: Vec<SwarmVehicle>,
}

/// Why a swarm file cannot be flown.
#[derive(Debug, thiserror::Error)]
pub enum SwarmFileError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl SwarmFile {
    pub fn read(path: &Path) -> Result<Self, SwarmFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| SwarmFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let invalid = |message: String| SwarmFileError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let raw: SwarmFileToml = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if let Some((pointer, message)) = raw.problems().into_iter().next() {
            return Err(invalid(format!("{pointer}: {message}")));
        }
        let origin = Geo {
            lat_deg: raw.origin_lat_deg,
            lon_deg: raw.origin_lon_deg,
            alt_amsl_m: raw.origin_alt_amsl_m,
        };
        let frame = LocalFrame::new(origin);
        let base = path.parent().unwrap_or(Path::new("."));
        let mut vehicles = Vec::new();
        for v in raw.vehicle {
            let scenario_path = base.join(&v.scenario);
            let scenario = alpha3_sim::scenario::read_scenario(&scenario_path).map_err(|e| {
                invalid(format!(
                    "vehicle {}: {}: {e}",
                    v.name,
                    scenario_path.display()
                ))
            })?;
            let [x, y, _] = scenario.spawn.xyz;
            vehicles.push(SwarmVehicle {
                name: v.name,
                scenario_path,
                home: frame.to_geo(Enu::new(x, y, 0.0)),
                scenario,
                start_delay_s: v.start_delay_s,
            });
        }
        Ok(Self {
            name: raw.name,
            origin,
            max_turns: raw.max_turns,
            max_tool_actions: raw.max_tool_actions,
            vehicles,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// `text` as a swarm file beside the shipped scenarios.
    fn read(text: &str) -> Result<SwarmFile, SwarmFileError> {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = root().join("configs/swarm/cross-3");
        let text = text.replace("DIR", scenarios.to_str().unwrap());
        let path = dir.path().join("swarm.toml");
        std::fs::write(&path, text).unwrap();
        SwarmFile::read(&path)
    }

    const HEAD: &str = "name = \"t\"\norigin_lat_deg = 47.397742\norigin_lon_deg = 8.545594\norigin_alt_amsl_m = 488.0\n";

    fn vehicle(name: &str, file: &str, extra: &str) -> String {
        format!("[[vehicle]]\nname = \"{name}\"\nscenario = \"DIR/{file}\"\n{extra}")
    }

    #[test]
    fn the_shipped_swarm_reads_and_stands_each_vehicle_at_its_spawn() {
        let s = SwarmFile::read(&root().join("configs/swarm/cross-3.toml")).unwrap();
        assert_eq!(s.vehicles.len(), 3);
        let frame = LocalFrame::new(s.origin);
        let home = frame.to_enu(s.vehicles[1].home);
        assert!(
            (home.x - 200.0).abs() < 0.01 && home.y.abs() < 0.01,
            "{home:?}"
        );
        assert_eq!(s.vehicles[2].start_delay_s, 10.0);
        assert_eq!(s.max_turns, Some(40));
        assert_eq!(s.max_tool_actions, Some(120));
    }

    #[test]
    fn a_broken_swarm_file_says_what_is_wrong() {
        let two = vehicle("a", "uav-1.json", "") + &vehicle("b", "uav-2.json", "");
        assert!(read(&format!("{HEAD}{two}")).is_ok());
        let err = |text: String| read(&text).unwrap_err().to_string();
        assert!(err(format!("{HEAD}speed = 1\n{two}")).contains("unknown field"));
        assert!(err(format!("{HEAD}{}", vehicle("a", "uav-1.json", ""))).contains("2 to 10"));
        let dup = vehicle("a", "uav-1.json", "") + &vehicle("a", "uav-2.json", "");
        assert!(err(format!("{HEAD}{dup}")).contains("named twice"));
        let bad =
            vehicle("a", "uav-1.json", "start_delay_s = -1.0\n") + &vehicle("b", "uav-2.json", "");
        assert!(err(format!("{HEAD}{bad}")).contains("start_delay_s"));
        let missing = vehicle("a", "uav-1.json", "") + &vehicle("b", "nope.json", "");
        assert!(err(format!("{HEAD}{missing}")).contains("nope.json"));
        let space = vehicle("a b", "uav-1.json", "") + &vehicle("b", "uav-2.json", "");
        assert!(err(format!("{HEAD}{space}")).contains("letters, digits"));
        assert!(err(format!("{HEAD}max_turns = 2\n{two}")).contains("max_turns"));
        assert_eq!(read(&format!("{HEAD}{two}")).unwrap().max_turns, None);
        let far = HEAD.replace("47.397742", "97.0");
        assert!(err(format!("{far}{two}")).contains("origin"));
    }
}
