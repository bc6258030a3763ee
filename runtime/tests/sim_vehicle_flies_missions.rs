//! `alpha3 sim-vehicle` flies the mission a ground station uploaded, as PX4 and ArduCopter do
//! (`../shared/MISSION-FACTS.md` §5), to real peers (`tests/py/mission_flight.py`):
//! 1. PX4: MAVSDK-Python uploads take-off, two waypoints and a landing, arms, starts the
//!    mission, pauses it on the way to the second waypoint (Hold) and starts it again, and sees
//!    every item reached, the landing and the disarm;
//! 2. ArduCopter (`--autopilot ardupilot`): pymavlink uploads home and the same items, arms in
//!    GUIDED, switches to AUTO, sends MISSION_START, and sees items 1-4 reached (seq 0 is home),
//!    the landing and the disarm, AUTO kept.
//!
//! Without the venv's Python (MAVSDK-Python, pymavlink) the tests skip with the reason; under
//! `CI=true` they fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;
mod sitl_support;

use plan_support::python_with;
use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, root};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// SITL instance for these tests (PX4: ground-station link bound to 18614; ArduCopter: to
/// 127.0.0.1:14704), clear of the other tests' instances.
const INSTANCE: u16 = 44;
/// Texts ArduCopter's AUTO says on the way.
const COPTER_TEXTS: [&str; 4] = [
    "Mission: 1 Takeoff",
    "Reached command #1",
    "Mission: 4 Land",
    "Reached command #4",
];

/// The vehicle, stopped however the test ends.
struct Vehicle(Child);

impl Drop for Vehicle {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sim_vehicle(scenario: &Path, extra: &[&str], log: &Path) -> Vehicle {
    Vehicle(
        alpha3()
            .args(["sim-vehicle", "--scenario"])
            .arg(scenario)
            .args(["--instance", &INSTANCE.to_string(), "--speed-factor", "4"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// Runs the peer script; its one JSON line.
fn peer(py: &Path, args: &[&str], dir: &Path) -> Value {
    let out = Command::new(py)
        .arg(root().join("tests/py/mission_flight.py"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or("");
    serde_json::from_str(line).unwrap_or_else(|_| {
        panic!(
            "the peer said no JSON ({}):\n{stdout}\n{}\nvehicle: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(dir.join("vehicle.log")).unwrap_or_default()
        )
    })
}

#[test]
fn mavsdk_flies_an_uploaded_mission_on_the_px4_sim_vehicle_with_a_pause() {
    let Some(py) = python_with("mavsdk") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let _vehicle = sim_vehicle(&scenario, &[], &dir.path().join("vehicle.log"));
    let url = format!("udpout://127.0.0.1:{}", 18570 + INSTANCE);
    let seen = peer(&py, &["px4", &url], dir.path());
    eprintln!("MAVSDK saw: {seen}");
    let progress: Vec<(u64, u64)> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    assert!(progress.iter().all(|(_, total)| *total == 4), "{seen}");
    let currents: Vec<u64> = progress.iter().map(|(c, _)| *c).collect();
    assert!(
        currents.windows(2).all(|w| w[0] <= w[1]),
        "progress only goes forward, a pause resumes where it was: {seen}"
    );
    for c in [1, 2, 3, 4] {
        assert!(currents.contains(&c), "item {c} of 4: {seen}");
    }
    assert_eq!(seen["paused_current"].as_u64(), Some(2), "{seen}");
    assert_eq!(seen["armed_at_end"], Value::Bool(false), "{seen}");
    assert_eq!(seen["in_air_at_end"], Value::Bool(false), "{seen}");
}

#[test]
fn pymavlink_flies_an_uploaded_mission_in_auto_on_the_ardupilot_sim_vehicle() {
    let Some(py) = python_with("pymavlink") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let _vehicle = sim_vehicle(
        &scenario,
        &["--autopilot", "ardupilot", "--ready-s", "12"],
        &dir.path().join("vehicle.log"),
    );
    let url = format!("udpin:127.0.0.1:{}", 14660 + INSTANCE);
    let seen = peer(&py, &["ardupilot", &url], dir.path());
    eprintln!("pymavlink saw: {seen}");
    assert_eq!(
        seen["upload"].as_u64(),
        Some(0),
        "MISSION_ACK ACCEPTED: {seen}"
    );
    for step in ["guided", "arm", "auto", "mission_start"] {
        assert_eq!(seen["acks"][step].as_u64(), Some(0), "{step}: {seen}");
    }
    let reached: Vec<u64> = seen["reached"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert_eq!(reached, [1, 2, 3, 4], "seq 0 is home: {seen}");
    let texts: Vec<&str> = seen["texts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for t in COPTER_TEXTS {
        assert!(texts.contains(&t), "{t}: {seen}");
    }
    assert_eq!(seen["armed_at_end"], Value::Bool(false), "{seen}");
    assert_eq!(seen["custom_mode"].as_u64(), Some(3), "AUTO stays: {seen}");
}
