//! What the autopilot itself holds and enforces, read over the link at connect: its FENCE and
//! RALLY plans (mission protocol) and its fence parameters. The gate's airspace is never wider
//! than this, whatever the plan file says.

use alpha3_core::mission_file::{Fence, ReadOptions, rally_from_items};
use alpha3_core::plan_mission::{AutopilotAirspace, Firmware, fence_params};
use alpha3_hil::mission::{MissionKind, to_file};
use alpha3_hil::{HilError, HilLink, Profile};
use std::collections::BTreeMap;

/// Why the autopilot's airspace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AutopilotAirspaceError {
    #[error("downloading the autopilot's {kind} plan: {source}")]
    Download {
        kind: MissionKind,
        #[source]
        source: HilError,
    },
    #[error("the autopilot's {kind} plan: {problem}")]
    Plan { kind: MissionKind, problem: String },
    #[error("reading the autopilot's fence parameters: {0}")]
    Params(#[source] HilError),
    #[error("no autopilot profile yet")]
    NoProfile,
}

/// The firmware whose parameters are read.
pub fn firmware_of(profile: Profile) -> Firmware {
    match profile {
        Profile::Px4 => Firmware::Px4,
        Profile::ArduPilot => Firmware::ArduPilot,
    }
}

/// Downloads the autopilot's fence and rally plans and reads its fence parameters.
pub async fn read_autopilot_airspace(
    link: &HilLink,
) -> Result<AutopilotAirspace, AutopilotAirspaceError> {
    let profile = link
        .status()
        .profile
        .ok_or(AutopilotAirspaceError::NoProfile)?;
    let download = async |kind| {
        link.download_plan(kind)
            .await
            .map(|p| to_file(&p.items))
            .map_err(|source| AutopilotAirspaceError::Download { kind, source })
    };
    let fence_items = download(MissionKind::Fence).await?;
    let rally_items = download(MissionKind::Rally).await?;
    let problem = |kind| {
        move |e: alpha3_core::mission_file::MissionFileError| AutopilotAirspaceError::Plan {
            kind,
            problem: e.to_string(),
        }
    };
    let options = ReadOptions::default();
    let fence = Fence::from_items(&fence_items, &options).map_err(problem(MissionKind::Fence))?;
    let rally = rally_from_items(&rally_items, &options).map_err(problem(MissionKind::Rally))?;
    let firmware = firmware_of(profile);
    let names = fence_params(firmware)
        .iter()
        .map(|n| n.to_string())
        .collect();
    let values: BTreeMap<String, f64> = link
        .read_params(names)
        .await
        .map_err(AutopilotAirspaceError::Params)?
        .into_iter()
        .map(|(name, value)| (name, value.as_f64()))
        .collect();
    let mut airspace = AutopilotAirspace {
        fence,
        rally,
        ..AutopilotAirspace::default()
    };
    airspace.limits_from_params(firmware, &values);
    Ok(airspace)
}
