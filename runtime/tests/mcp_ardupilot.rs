//! `alpha3 mcp --connect` flying the real ArduCopter SITL (built by the ArduPilot SITL source
//! bundle's `ardupilot/build.sh` in the shared folder, which `scripts/test.sh` runs): a fresh SITL
//! with wiped parameters is started, and the official Python MCP SDK's client flies the same
//! session as on PX4 — tools listed, take-off, two waypoints, a schema failure, the gate's denial
//! for a waypoint in a no-fly zone, the landing — every call through the gate and on to ArduPilot
//! over MAVLink. The server must wait out ArduCopter's ~40 s before it can arm by reading what the
//! autopilot says. The record names ArduPilot's SITL as a proven simulator, the config's parameter
//! write as ArduPilot confirmed it, and the mission anchored where the vehicle stands, at the
//! SITL's home.
//!
//! Without the SITL build or the MCP SDK the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ardupilot_support;
mod mcp_support;
mod sitl_support;

use ardupilot_support::{Sitl, SitlOptions, sitl_build};
use mcp_support::*;
use std::time::Duration;

/// SITL instance 6 (TCP 5820) and the companion port it sends to; the other ArduPilot tests
/// use instances 2 and 3.
const INSTANCE: u8 = 6;
const PORT: u16 = 14686;

#[test]
fn the_official_client_flies_real_ardupilot_through_alpha3_mcp() {
    let Some(py) = mcp_python() else { return };
    let Some((bin, parm)) = sitl_build() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = SitlOptions::new(INSTANCE, PORT);
    // A pack sized to the configured vehicle's endurance, as in sitl_ardupilot.rs.
    options.params.push(("BATT_CAPACITY", 10_000.0));
    let mut sitl = Sitl::start(&bin, &parm, &options);
    let cfg = config(dir.path(), Some(PORT));
    // A parameter written through the connect path (ArduCopter's waypoint speed, cm/s),
    // confirmed in the record.
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "required_failsafes = []",
        "required_failsafes = []\nparam_writes = { WPNAV_SPEED = 800.0 }",
    );
    std::fs::write(&cfg, text).unwrap();
    let scen = scenario(dir.path());
    // At once after SITL's "ready": the server waits until ArduCopter can arm.
    let args = connect_args(dir.path(), &cfg, &scen, PORT, 30000, 120);
    let summary = client(&py, "fly", None, &args);
    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(180));
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());

    check_vehicle_link(&record, "ardupilot", ("WPNAV_SPEED", 800.0), 47.397742);
    check_flight(&summary, &record);
}
