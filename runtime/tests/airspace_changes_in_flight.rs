//! The pilot changes the fence while alpha3 flies: a ground station (MAVSDK-Python, as a drone
//! engineer runs it) uploads a smaller fence to the autopilot in the middle of `alpha3 fly
//! --plan`. The autopilot says its fence changed (PX4's MISSION_CURRENT plan ids); alpha3
//! downloads it again, makes the plan again in it, and from the next decision on the gate
//! refuses what the new fence forbids — an item the old fence allowed — with no truth
//! violation. The record says what changed and what the gate now decides on; the ground
//! station is told.
//!
//! Against `alpha3 sim-vehicle` (PX4's mission protocol, its plan ids): the same test on a
//! real PX4 is `plan_px4`'s territory and costs a PX4 start; this one runs in ~40 s.
//! Without MAVSDK-Python the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;
mod sitl_support;

use alpha3_core::gate::Severity;
use alpha3_core::record::Event;
use plan_support::{GroundStation, plan, python_with};
use sitl_support::{alpha3, events, ground_scenario, write_config};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// SITL instance: companion link → 14578, ground-station link bound to 18608; clear of the
/// other tests' instances.
const INSTANCE: u16 = 38;

/// A process stopped however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The record's events once it holds a waypoint the agent asked for (the mission is under way),
/// waited for up to `within`.
fn once_flying(records: &Path, within: Duration) -> Option<Vec<Event>> {
    let started = Instant::now();
    while started.elapsed() < within {
        let record = std::fs::read_dir(records).ok().and_then(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        });
        if let Some(r) = record
            && let Ok(parsed) = alpha3::recorder::read_record(&r)
        {
            let e: Vec<Event> = parsed.lines.into_iter().map(|l| l.event).collect();
            let going = e.iter().any(|e| match e {
                Event::AgentTurn { agent_turn, .. } => agent_turn
                    .actions
                    .iter()
                    .any(|a| a.name() == "set_waypoint"),
                _ => false,
            });
            if going {
                return Some(e);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[test]
fn a_fence_uploaded_in_flight_is_the_gates_from_the_next_decision() {
    let Some(py) = python_with("mavsdk") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let _vehicle = Running(
        alpha3()
            .args(["sim-vehicle", "--scenario"])
            .arg(&scenario)
            .args(["--instance", &INSTANCE.to_string(), "--speed-factor", "4"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let detour = plan("zurich-detour.plan");
    let small = plan("zurich-small-fence.plan");
    let mut gcs = GroundStation::start(
        &py,
        &format!("udpout://127.0.0.1:{}", 18570 + INSTANCE),
        dir.path().join("mavsdk.log"),
    );
    // The plan's own fence is on the autopilot as the flight starts.
    let up = gcs.upload(&detour, false);
    assert_eq!(up["fence_on_autopilot"].as_u64(), Some(8), "{up}");

    let cfg = write_config(dir.path(), 14540 + INSTANCE, "");
    let out = dir.path().join("out");
    let fly = Running(
        alpha3()
            .args(["fly", "--config"])
            .arg(&cfg)
            .arg("--plan")
            .arg(&detour)
            .arg("--out")
            .arg(&out)
            .args([
                "--episode-id",
                "plan",
                "--no-stdin",
                "--ready-timeout-s",
                "60",
            ])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("fly.log")).unwrap())
            .spawn()
            .unwrap(),
    );
    let fly_log = || std::fs::read_to_string(dir.path().join("fly.log")).unwrap_or_default();
    let Some(before) = once_flying(&out.join("records"), Duration::from_secs(120)) else {
        panic!("fly never flew the plan: {}", fly_log());
    };
    assert!(
        !before.iter().any(|e| matches!(e, Event::Airspace { .. })),
        "no change before the upload"
    );
    // Mid-flight, the pilot's smaller fence: the plan's items 3 and 4 (160 m and 220 m north)
    // are outside it, item 1 (120 m east, being flown now) inside.
    let small_up = gcs.upload(&small, true);
    assert_eq!(
        small_up["fence_on_autopilot"].as_u64(),
        Some(4),
        "{small_up}"
    );

    let mut fly = fly;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(240) {
        if fly.0.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let ended = fly.0.try_wait().unwrap();
    let log = fly_log();
    eprintln!("{log}");
    assert!(ended.is_some(), "fly still running after 240 s");
    drop(gcs);

    let e = events(&out.join("records/plan.jsonl"));
    let at = e
        .iter()
        .position(|e| matches!(e, Event::Airspace { .. }))
        .unwrap_or_else(|| panic!("no airspace change recorded: {log}"));
    let Event::Airspace {
        changed,
        adopted,
        detail,
        sources,
    } = &e[at]
    else {
        unreachable!()
    };
    assert_eq!(changed, &["fence".to_string()]);
    assert!(adopted, "{detail}");
    assert!(detail.contains("fails the check"), "{detail}");
    assert!(
        sources["fence"]
            .to_string()
            .contains("autopilot FENCE plan"),
        "{sources}"
    );
    // After it, the gate refuses a go-to the old fence allowed, for the fence.
    let refused_for_fence = e[at..].iter().any(|e| match e {
        Event::Verdict { findings, .. } => findings
            .iter()
            .any(|f| f.id.starts_with("gate.geofence.") && f.severity == Severity::Deny),
        _ => false,
    });
    assert!(
        refused_for_fence,
        "no fence refusal after the change: {log}"
    );
    assert!(
        !e.iter().any(|e| matches!(e, Event::Violation { .. })),
        "a truth violation"
    );
}
