//! `alpha3 mcp --connect` flying the real PX4 SITL (upstream PX4, SIH quadrotor;
//! `scripts/px4-sitl.sh` builds it): the official Python MCP SDK's client lists the tools, takes
//! off, flies two waypoints, gets the gate's denial for a waypoint in a no-fly zone, and lands,
//! every call through the gate and on to PX4 over MAVLink. The connect path is `fly`'s: the
//! record names PX4 as a proven simulator, the config's parameter writes as PX4 confirmed them,
//! the mission anchored at PX4's own home (Zurich), and a `.tlog` that pymavlink reads.
//!
//! Without the PX4 build or the MCP SDK the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod sitl_support;

use alpha3::sitl::px4::{Px4Install, Px4Options, Px4Process, companion_port};
use mcp_support::*;
use sitl_support::{px4_build, pymavlink_read_tlog};
use std::time::Duration;

/// Clear of a developer's instance 0 and of the other PX4 tests' instances.
const INSTANCE: u8 = 9;

#[test]
fn the_official_client_flies_real_px4_through_alpha3_mcp() {
    let Some(py) = mcp_python() else { return };
    let Some(px4) = px4_build("alpha3 mcp on real PX4") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let install = Px4Install::at(&px4).unwrap();
    let process = Px4Process::start(
        &install,
        &Px4Options {
            instance: INSTANCE,
            speed_factor: 1.0,
            run_dir: dir.path().join("px4"),
            params: Vec::new(),
        },
    )
    .unwrap();
    let port = companion_port(INSTANCE);
    let cfg = config(dir.path(), Some(port));
    // A parameter written through the connect path (PX4's cruise speed), confirmed in the record.
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "required_failsafes = []",
        "required_failsafes = []\nparam_writes = { MPC_XY_CRUISE = 8.0 }",
    );
    std::fs::write(&cfg, text).unwrap();
    let scen = scenario(dir.path());
    let args = connect_args(dir.path(), &cfg, &scen, port, 30000, 120);
    let summary = client(&py, "fly", None, &args);
    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(180));
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(process.stop());

    let link = check_vehicle_link(&record, "px4", ("MPC_XY_CRUISE", 8.0), 47.3977);
    check_flight(&summary, &record);
    let tlog = std::path::PathBuf::from(link["tlog"].as_str().unwrap());
    let counts = pymavlink_read_tlog(&tlog);
    eprintln!("pymavlink reads the .tlog: {counts}");
    assert!(
        counts["counts"]["HEARTBEAT"].as_u64().unwrap_or(0) > 0,
        "the .tlog has PX4's heartbeats: {counts}"
    );
}
