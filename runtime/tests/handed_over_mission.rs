//! The handed-over mission: the official MCP client has `alpha3 mcp --plan --connect` upload
//! a QGroundControl plan's checked route to the autopilot and start it; the autopilot flies it
//! in its own mission mode (PX4 Mission, on `alpha3 sim-vehicle`), around the plan's exclusion
//! polygon by the way the check found, then returns and lands — with the gate's `fly_mission`
//! verdict on the whole route before it starts, and no truth violation.
//!
//! Without the MCP SDK the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod plan_support;
mod sitl_support;

use alpha3_core::record::Event;
use mcp_support::{client, config, mcp_python};
use plan_support::{flown, plan};
use sitl_support::{alpha3, events, ground_scenario};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// sim-vehicle instance: companion link → 14572, its own port 14612, ground station 18602;
/// clear of the other tests' instances.
const INSTANCE: u16 = 32;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// sim-vehicle `instance` started (4× speed), and `alpha3 mcp --plan zurich-detour.plan
/// --connect` arguments for it, writing to `dir/out`.
fn vehicle_and_args(dir: &Path, instance: u16) -> (Running, Vec<String>) {
    let scenario = ground_scenario(dir);
    let vehicle = Running(
        alpha3()
            .args(["sim-vehicle", "--scenario"])
            .arg(&scenario)
            .args(["--instance", &instance.to_string(), "--speed-factor", "4"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let port = 14540 + instance;
    let cfg = config(dir, Some(port));
    let out = dir.join("out");
    let args: Vec<String> = [
        "mcp",
        "--config",
        cfg.to_str().unwrap(),
        "--plan",
        plan("zurich-detour.plan").to_str().unwrap(),
        "--connect",
        &format!("udpin:127.0.0.1:{port}"),
        "--out",
        out.to_str().unwrap(),
        "--episode-id",
        "ep",
        "--deadline-ms",
        "30000",
        "--ready-timeout-s",
        "60",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    (vehicle, args)
}

#[test]
fn the_official_client_hands_a_plan_to_the_autopilot_and_it_flies_around_the_exclusion() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_vehicle, args) = vehicle_and_args(dir.path(), INSTANCE);
    let out = dir.path().join("out");
    let summary = client(&py, "mission", None, &args);
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    for t in [
        "upload_mission",
        "start_mission",
        "pause_mission",
        "resume_mission",
        "mission_status",
    ] {
        assert!(tools.contains(&t), "{t} offered: {tools:?}");
    }
    let calls = summary["calls"].as_array().unwrap();
    let upload = &calls[1]["structured"];
    assert_eq!(upload["status"], "completed", "{summary}");
    // Take-off, the plan's four waypoints with the way around the exclusion, the return.
    assert!(upload["items"].as_u64().unwrap() >= 6, "{upload}");
    let start = &calls[2];
    assert_eq!(start["is_error"], false, "{summary}");
    let status = &calls[3]["structured"];
    assert_eq!(status["uploaded"], true, "{status}");
    for c in &calls[3..] {
        assert!(c["structured"].get("paused_for").is_none(), "{c}");
    }

    mcp_support::wait_complete(&out.join("records/ep.jsonl"), Duration::from_secs(120));
    let e = events(&out.join("records/ep.jsonl"));
    // The gate judged the whole route once, before the autopilot flew it.
    let approved = e.iter().any(|e| match e {
        Event::Observation { tool, result, .. } => {
            tool == "start_mission" && result["status"] == "accepted"
        }
        _ => false,
    });
    assert!(approved, "start_mission accepted");
    assert!(
        !e.iter().any(|e| matches!(e, Event::MissionPaused { .. })),
        "not paused"
    );
    let violations: Vec<&Event> = e
        .iter()
        .filter(|e| matches!(e, Event::Violation { .. }))
        .collect();
    assert!(violations.is_empty(), "truth violations: {violations:?}");
    let f = flown(
        &out.join("records/ep.jsonl"),
        [-40.0, 40.0, 80.0, 130.0],
        [-250.0, 350.0, -250.0, 350.0],
    );
    eprintln!(
        "flown: {}, {} truth samples, {:.1} m closest to the exclusion, {:.1} m outside the fence, ended {:.1} m from home",
        f.termination,
        f.truth_samples,
        f.closest_to_exclusion_m,
        f.outside_fence_m,
        f.end_from_home_m
    );
    // The client leaves once the mission is down. The built-in operator's hold order (a
    // 20 s hold the plan does not have) is not obeyed by a handed-over mission, so the episode
    // is the client's to end; every waypoint was reached, as the twin tells the operator.
    assert!(
        ["mission_complete", "client_left"].contains(&f.termination.as_str()),
        "{}",
        f.termination
    );
    let all_reached = e.iter().any(|e| match e {
        Event::OperatorTurn { text, .. } => text.contains("0 waypoint(s) left"),
        _ => false,
    });
    assert!(all_reached, "every waypoint reached");
    assert!(f.closest_to_exclusion_m > 0.0, "flew into the exclusion");
    assert_eq!(f.outside_fence_m, 0.0, "left the fence");
    assert!(f.ended_on_ground, "still airborne at the end");
    assert!(
        f.end_from_home_m < 10.0,
        "landed {:.1} m from home",
        f.end_from_home_m
    );
}

/// The second test's sim-vehicle: companion link → 14576, ground station 18606.
const PAUSED_INSTANCE: u16 = 36;

/// The gate watches the handed-over mission: the pilot uploads a smaller fence from a ground
/// station (MAVSDK-Python) while the autopilot flies the first leg; the plan's next waypoints
/// are outside it, so within a second the gate pauses the mission (a hold), records why, and
/// `mission_status` says so — no truth violation.
#[test]
fn a_fence_uploaded_during_the_handed_over_mission_pauses_it() {
    let Some(py) = mcp_python() else { return };
    if plan_support::python_with("mavsdk").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_vehicle, args) = vehicle_and_args(dir.path(), PAUSED_INSTANCE);
    let out = dir.path().join("out");
    let mut gcs = plan_support::GroundStation::start(
        &py,
        &format!("udpout://127.0.0.1:{}", 18570 + PAUSED_INSTANCE),
        dir.path().join("mavsdk.log"),
    );
    let flying = {
        let py = py.clone();
        std::thread::spawn(move || client(&py, "mission", None, &args))
    };
    // The upload's turn is in the record once it is done; start_mission follows at once, and
    // 4 s later (16 s of 4× time) the vehicle is on its first leg, inside the small fence.
    let record = out.join("records/ep.jsonl");
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        if text.contains("\"upload_mission\"") && text.contains("\"completed\"") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "never uploaded"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(4));
    let small = gcs.upload(&plan("zurich-small-fence.plan"), true);
    assert_eq!(small["fence_on_autopilot"].as_u64(), Some(4), "{small}");
    let summary = flying.join().unwrap();
    drop(gcs);
    let calls = summary["calls"].as_array().unwrap();
    let paused = calls
        .iter()
        .filter_map(|c| c["structured"]["paused_for"].as_str())
        .next()
        .unwrap_or_else(|| panic!("mission_status never said paused: {summary}"));
    assert!(paused.contains("gate.geofence"), "{paused}");

    mcp_support::wait_complete(&record, Duration::from_secs(120));
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
    let adopted = e
        .iter()
        .any(|e| matches!(e, Event::Airspace { adopted: true, .. }));
    assert!(adopted, "the new fence adopted");
    let violations: Vec<&Event> = e
        .iter()
        .filter(|e| matches!(e, Event::Violation { .. }))
        .collect();
    assert!(violations.is_empty(), "truth violations: {violations:?}");
}
