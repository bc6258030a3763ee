//! A record's flight as a QGroundControl `.plan` (`alpha3 review` writes one beside each page):
//! the truth path and the airspace of the record's header, placed on the earth where the
//! episode was — the anchor of an onboard episode, the built-in world's origin otherwise.

use super::ReviewError;
use alpha3_core::airspace::Area;
use alpha3_core::frames::Geo;
use alpha3_core::mission_file::plan::{FIRMWARE_ARDUPILOT, FIRMWARE_PX4};
use alpha3_core::mission_file::{FlownAirspace, flown_plan, write_plan};
use alpha3_core::record::{Event, ParsedRecord};
use serde_json::Value;
use std::path::Path;

/// The built-in world's origin (`alpha3_sim::WorldOptions`' default): where a record without an
/// anchor was flown.
fn builtin_origin() -> Geo {
    alpha3_sim::WorldOptions::default().origin
}

/// Writes `record`'s flight as a `.plan` to `out`.
pub fn write_flown_plan(record: &ParsedRecord, out: &Path) -> Result<(), ReviewError> {
    let bad = |why: String| ReviewError::Io {
        path: out.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, why),
    };
    let config = record
        .lines
        .iter()
        .find_map(|l| match &l.event {
            Event::Header { config, .. } => Some(config),
            _ => None,
        })
        .ok_or_else(|| bad("the record has no header".into()))?;
    let link = &config["vehicle_link"];
    let origin = serde_json::from_value::<Geo>(link["anchor"]["origin"].clone())
        .unwrap_or_else(|_| builtin_origin());
    let firmware = match link["autopilot"].as_str() {
        Some(a) if a.contains("ARDUPILOT") => FIRMWARE_ARDUPILOT,
        _ => FIRMWARE_PX4,
    };
    let state = &config["initial_state"];
    let areas = |v: &Value| serde_json::from_value::<Vec<Area>>(v.clone()).unwrap_or_default();
    let geofence = areas(&state["airspace"]["geofence"]);
    let no_fly = areas(&state["airspace"]["no_fly_zones"]);
    let sites: Vec<[f64; 3]> =
        serde_json::from_value(state["airspace"]["emergency_sites"].clone()).unwrap_or_default();
    let pose = &state["uav"]["pose"];
    let home = [
        pose["x"].as_f64().unwrap_or(0.0),
        pose["y"].as_f64().unwrap_or(0.0),
    ];
    let path: Vec<[f64; 3]> = record
        .lines
        .iter()
        .filter_map(|l| match &l.event {
            Event::Truth { position, .. } => Some([position.x, position.y, position.z]),
            _ => None,
        })
        .collect();
    let plan = flown_plan(
        origin,
        home,
        FlownAirspace {
            geofence: &geofence,
            no_fly: &no_fly,
            landing_sites: &sites,
        },
        &path,
        firmware,
    )
    .map_err(|e| bad(e.to_string()))?;
    let text = write_plan(&plan).map_err(|e| bad(e.to_string()))?;
    std::fs::write(out, text).map_err(|source| ReviewError::Io {
        path: out.to_path_buf(),
        source,
    })
}
