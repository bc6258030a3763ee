//! The handed-over mission on the real ArduCopter SITL, as an ArduPilot user works: pymavlink's
//! `mavwp` uploads the fence (`cmac-fence.waypoints`); the official MCP client has
//! `alpha3 mcp --plan cmac-detour.waypoints --connect` upload the checked route and start it.
//! 1. ArduCopter flies it in AUTO — take-off, the waypoints and the way around the exclusion
//!    the check found, its RTL — and lands at home; the gate never pauses it, no violation.
//! 2. A second mission on the same SITL: while ArduCopter flies it, `mavwp` uploads a smaller
//!    fence (`cmac-small-fence.waypoints`) that leaves the next waypoints outside. ArduPilot
//!    sends no plan ids, so alpha3 reads its fence again every two seconds; the gate adopts the
//!    new fence and pauses the mission, and `mission_status` says why — no truth violation.
//!
//! Without the SITL build, pymavlink or the MCP SDK the test skips with the reason; under
//! `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ardupilot_support;
mod mcp_support;
mod plan_support;
mod sitl_support;

use alpha3_core::record::Event;
use ardupilot_support::{Sitl, SitlOptions, mavwp, sitl_build};
use mcp_support::{client, config, mcp_python, wait_complete};
use plan_support::{flown, plan, python_with};
use sitl_support::events;
use std::path::Path;
use std::time::{Duration, Instant};

/// SITL instance 7 (TCP 5830) and the companion port it sends to; the other ArduPilot tests
/// use instances 2, 3, 4 and 6.
const INSTANCE: u8 = 7;
const PORT: u16 = 14687;

/// `alpha3 mcp --plan cmac-detour.waypoints --fence cmac-fence.waypoints --connect` writing
/// episode `ep` to `out`.
fn mcp_args(cfg: &Path, out: &Path) -> Vec<String> {
    [
        "mcp",
        "--config",
        cfg.to_str().unwrap(),
        "--plan",
        plan("cmac-detour.waypoints").to_str().unwrap(),
        "--fence",
        plan("cmac-fence.waypoints").to_str().unwrap(),
        "--connect",
        &format!("udpin:127.0.0.1:{PORT}"),
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
    .collect()
}

fn violations(e: &[Event]) -> Vec<&Event> {
    e.iter()
        .filter(|e| matches!(e, Event::Violation { .. }))
        .collect()
}

#[test]
fn arducopter_flies_the_handed_over_mission_in_auto_and_a_fence_uploaded_in_flight_pauses_it() {
    let Some(py) = mcp_python() else { return };
    if python_with("pymavlink").is_none() {
        return;
    }
    let Some((bin, parm)) = sitl_build() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = SitlOptions::new(INSTANCE, PORT);
    options.home = "-35.363262,149.165237,584,353".into();
    options.params.push(("BATT_CAPACITY", 10_000.0));
    let mut sitl = Sitl::start(&bin, &parm, &options);
    let up = mavwp(&py, &sitl, &[("fence", &plan("cmac-fence.waypoints"))]);
    assert!(up.contains("\"fence\""), "{up}");
    let cfg = config(dir.path(), Some(PORT));

    // 1. The whole mission, flown by ArduCopter in AUTO.
    let out = dir.path().join("flown");
    let summary = client(&py, "mission", None, &mcp_args(&cfg, &out));
    let record = out.join("records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(300));
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());
    let calls = summary["calls"].as_array().unwrap();
    for c in calls.iter().take(4) {
        eprintln!("{c}");
    }
    assert_eq!(calls[1]["structured"]["status"], "completed", "{summary}");
    assert_eq!(calls[2]["structured"]["status"], "accepted", "{summary}");
    // start_mission answers as the mission ends: ArduCopter's MISSION_CURRENT is past the last
    // point (its RTL item), so the gate has followed it along the route.
    let progress: Vec<&serde_json::Value> = calls
        .iter()
        .filter(|c| c["structured"]["uploaded"] == true)
        .map(|c| &c["structured"]["next_point"])
        .collect();
    assert!(
        progress.iter().any(|p| **p == 5),
        "mission_status never past the last point: {progress:?}"
    );
    let e = events(&record);
    for ev in &e {
        if matches!(
            ev,
            Event::Violation { .. } | Event::MissionPaused { .. } | Event::Termination { .. }
        ) {
            eprintln!("{ev:?}");
        }
    }
    let f = flown(
        &record,
        [-40.0, 40.0, 80.0, 130.0],
        [-250.0, 350.0, -250.0, 350.0],
    );
    eprintln!(
        "flown: {}, {} truth samples, {:.1} m closest to the exclusion, {:.1} m outside the \
         fence, ended {:.1} m from home, on ground {}",
        f.termination,
        f.truth_samples,
        f.closest_to_exclusion_m,
        f.outside_fence_m,
        f.end_from_home_m,
        f.ended_on_ground
    );
    assert!(
        !e.iter().any(|e| matches!(e, Event::MissionPaused { .. })),
        "the gate paused the mission"
    );
    assert!(violations(&e).is_empty(), "{:?}", violations(&e));
    let all_reached = e.iter().any(|e| match e {
        Event::OperatorTurn { text, .. } => text.contains("0 waypoint(s) left"),
        _ => false,
    });
    assert!(all_reached, "every waypoint reached");
    assert!(f.closest_to_exclusion_m > 0.0, "flew into the exclusion");
    assert_eq!(f.outside_fence_m, 0.0, "left the fence");
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

    // 2. Again; the pilot uploads a smaller fence while ArduCopter climbs or flies the first leg.
    let out = dir.path().join("paused");
    let args = mcp_args(&cfg, &out);
    let flying = {
        let py = py.clone();
        std::thread::spawn(move || client(&py, "mission", None, &args))
    };
    let record = out.join("records/ep.jsonl");
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        if text.contains("\"start_mission\"") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "never started"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(3));
    let small = mavwp(
        &py,
        &sitl,
        &[("fence", &plan("cmac-small-fence.waypoints"))],
    );
    assert!(small.contains("\"fence\": 4"), "{small}");
    let summary = flying.join().unwrap();
    let calls = summary["calls"].as_array().unwrap();
    let paused = calls
        .iter()
        .filter_map(|c| c["structured"]["paused_for"].as_str())
        .next()
        .unwrap_or_else(|| panic!("mission_status never said paused: {summary}"));
    assert!(paused.contains("gate.geofence"), "{paused}");
    wait_complete(&record, Duration::from_secs(120));
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());
    let e = events(&record);
    let pause = e
        .iter()
        .find_map(|e| match e {
            Event::MissionPaused {
                next_point,
                findings,
                ..
            } => Some((*next_point, findings.clone())),
            _ => None,
        })
        .expect("a mission_paused line");
    assert!(
        pause.1.iter().any(|f| f.id.starts_with("gate.geofence")),
        "{pause:?}"
    );
    eprintln!("paused before point {}: {:?}", pause.0, pause.1[0]);
    let adopted = e.iter().any(|e| match e {
        Event::Airspace {
            adopted: true,
            changed,
            ..
        } => changed.iter().any(|c| c == "fence"),
        _ => false,
    });
    assert!(adopted, "the new fence adopted");
    assert!(violations(&e).is_empty(), "{:?}", violations(&e));
}
