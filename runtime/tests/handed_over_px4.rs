//! The handed-over mission on the real PX4 SITL (upstream PX4, SIH quadrotor): the official
//! MCP client has `alpha3 mcp --plan zurich-detour.plan --connect` upload the checked route
//! to PX4 and start it; PX4 flies it in its Mission mode — the four waypoints and the way
//! around the exclusion the check found — then its RTL item in its Return mode, and lands at
//! home; the gate never pauses it and there is no truth violation.
//!
//! Without the PX4 build or the MCP SDK the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod plan_support;
mod sitl_support;

use alpha3::sitl::px4::{Px4Install, Px4Options, Px4Process, companion_port};
use alpha3_core::record::Event;
use mcp_support::*;
use sitl_support::{events, px4_build};
use std::time::Duration;

/// Clear of the other PX4 tests' instances (5–9).
const INSTANCE: u8 = 3;

#[test]
fn px4_flies_the_handed_over_mission_in_its_mission_mode() {
    let Some(py) = mcp_python() else { return };
    let Some(px4) = px4_build("handed over on PX4") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let install = Px4Install::at(&px4).unwrap();
    let process = Px4Process::start(
        &install,
        &Px4Options {
            instance: INSTANCE,
            speed_factor: 2.0, // PX4_SIM_SPEED_FACTOR
            run_dir: dir.path().join("px4"),
            params: Vec::new(),
        },
    )
    .unwrap();
    let port = companion_port(INSTANCE);
    let cfg = config(dir.path(), Some(port));
    let out = dir.path().join("out");
    let args: Vec<String> = [
        "mcp",
        "--config",
        cfg.to_str().unwrap(),
        "--plan",
        plan_support::plan("zurich-detour.plan").to_str().unwrap(),
        "--connect",
        &format!("udpin:127.0.0.1:{port}"),
        "--out",
        out.to_str().unwrap(),
        "--episode-id",
        "ep",
        "--deadline-ms",
        "30000",
        "--ready-timeout-s",
        "120",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let summary = client(&py, "mission", None, &args);
    let record = out.join("records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(300));
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(process.stop());
    for c in summary["calls"].as_array().unwrap().iter().take(4) {
        eprintln!("{}", c);
    }
    let e = events(&record);
    for ev in &e {
        match ev {
            Event::Violation { .. }
            | Event::MissionPaused { .. }
            | Event::Watchdog { .. }
            | Event::Termination { .. } => eprintln!("{ev:?}"),
            _ => {}
        }
    }
    let f = plan_support::flown(
        &record,
        [-40.0, 40.0, 80.0, 130.0],
        [-250.0, 350.0, -250.0, 350.0],
    );
    eprintln!(
        "flown: {}, {} truth samples, {:.1} m closest to the exclusion, {:.1} m outside the fence, ended {:.1} m from home, on ground {}",
        f.termination,
        f.truth_samples,
        f.closest_to_exclusion_m,
        f.outside_fence_m,
        f.end_from_home_m,
        f.ended_on_ground
    );
    let calls = summary["calls"].as_array().unwrap();
    assert_eq!(calls[1]["structured"]["status"], "completed", "{summary}");
    assert_eq!(calls[2]["structured"]["status"], "accepted", "{summary}");
    assert!(
        !e.iter().any(|e| matches!(e, Event::MissionPaused { .. })),
        "the gate paused the mission"
    );
    let violations: Vec<&Event> = e
        .iter()
        .filter(|e| matches!(e, Event::Violation { .. }))
        .collect();
    assert!(violations.is_empty(), "truth violations: {violations:?}");
    let all_reached = e.iter().any(|e| match e {
        Event::OperatorTurn { text, .. } => text.contains("0 waypoint(s) left"),
        _ => false,
    });
    assert!(all_reached, "every waypoint reached");
    assert!(f.closest_to_exclusion_m > 0.0, "flew into the exclusion");
    assert_eq!(f.outside_fence_m, 0.0, "left the fence");
    // The episode ends as the twin sees the mission done (PX4 still descending on its own
    // RTL, or down), or when the client leaves after the landing.
    assert!(
        ["mission_complete", "client_left"].contains(&f.termination.as_str()),
        "{}",
        f.termination
    );
    assert!(
        f.end_from_home_m < 10.0,
        "landed {:.1} m from home",
        f.end_from_home_m
    );
}
