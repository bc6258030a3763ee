//! Missions anchored at the autopilot's real home, against `alpha3 sim-vehicle` booting as PX4
//! does: on the ground at its own home (Zurich), disarmed, arming refused at first — not at
//! the scenario's spawn point.
//!
//! - `sitl` flies two episodes back to back on one vehicle (attach mode): the first anchors at
//!   PX4's home; the first leaves the vehicle flying at its last waypoint, so the second lands
//!   it there and anchors where it stands (PX4 moves home to wherever it is armed).
//! - `fly` starts from the ground: the mission is anchored at home and the agent takes off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sitl_support;

use alpha3_core::frames::{Geo, LocalFrame};
use alpha3_core::record::Event;
use serde_json::Value;
use sitl_support::*;
use std::path::Path;
use std::process::Child;

const ZURICH: Geo = Geo {
    lat_deg: 47.397742,
    lon_deg: 8.545594,
    alt_amsl_m: 488.0,
};

/// `alpha3 sim-vehicle` on instance `n` (its companion link sends to 127.0.0.1:14540 + n),
/// sped up so the tests stay short.
fn sim_vehicle(scenario: &Path, n: u16) -> Child {
    sim_vehicle_as(scenario, n, &["--speed-factor", "4"])
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn sitl_anchors_each_mission_where_the_vehicle_stands() {
    anchors_each_mission_where_the_vehicle_stands(33, 14540 + 33, &["--speed-factor", "4"]);
}

/// The same against the ArduCopter imitation: the second mission lands the vehicle, waits for
/// its own disarm, arms in GUIDED and takes off. (The real ArduCopter SITL once refused that
/// take-off when the start caught it landed but still armed in LAND; the imitation's landing
/// does not open that window, so this checks the sequence, not the race.)
#[test]
fn sitl_anchors_each_mission_where_the_vehicle_stands_on_ardupilot() {
    anchors_each_mission_where_the_vehicle_stands(
        35,
        14660 + 35,
        &[
            "--autopilot",
            "ardupilot",
            "--ready-s",
            "12",
            "--speed-factor",
            "4",
        ],
    );
}

fn anchors_each_mission_where_the_vehicle_stands(n: u16, port: u16, autopilot: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write_scenario(dir.path());
    let config = write_config(dir.path(), port, "");
    let vehicle = sim_vehicle_as(&scenario, n, autopilot);
    let out = dir.path().join("out");
    let second = dir.path().join("again");
    std::fs::create_dir_all(&second).unwrap();
    let scenario2 = second.join("sitl-short-again.json");
    std::fs::copy(write_scenario(&second), &scenario2).unwrap();
    let run = alpha3()
        .arg("sitl")
        .arg("--scenario")
        .arg(&scenario)
        .arg("--scenario")
        .arg(&scenario2)
        .arg("--seed")
        .arg("1")
        .arg("--config")
        .arg(&config)
        .args(["--connect", &format!("udpin:127.0.0.1:{port}")])
        .arg("--no-builtin")
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    stop(vehicle);
    let stderr = String::from_utf8_lossy(&run.stderr);
    eprintln!("{stderr}");
    assert!(run.status.success(), "{stderr}");
    // The suite keys episodes by file name: the second copy has its own.
    let mut records: Vec<_> = std::fs::read_dir(out.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    records.sort();
    assert_eq!(records.len(), 2, "{records:?}");
    let runs: Vec<Vec<Event>> = records.iter().map(|r| events(r)).collect();
    // Which ran first: the one anchored at PX4's home.
    let (first, then): (Vec<_>, Vec<_>) =
        runs.iter().partition(|e| anchor_of(e)["point"] == "home");
    assert_eq!(
        (first.len(), then.len()),
        (1, 1),
        "one at home, one where it landed"
    );
    let (first, then) = (first[0], then[0]);
    for e in [first, then] {
        assert_eq!(ended(e), ("mission_complete".into(), true));
        assert!(!e.iter().any(|e| matches!(e, Event::Violation { .. })));
        assert_eq!(anchor_of(e)["on_ground"], Value::Bool(true));
    }
    let home = geo(&anchor_of(first)["home"]);
    assert!(
        LocalFrame::new(ZURICH)
            .to_enu(home)
            .horizontal_distance(Default::default())
            < 1.0,
        "the first mission starts at the autopilot's home: {home:?}"
    );
    // The second starts where the first left the vehicle: its last waypoint (140, 95), 45 m
    // from home (102, 70) in the scenario's frame.
    let there = geo(&anchor_of(then)["home"]);
    let d = LocalFrame::new(home)
        .to_enu(there)
        .horizontal_distance(Default::default());
    assert!((35.0..55.0).contains(&d), "{d} m from the first home");
    assert!(
        stderr.contains("landed the vehicle an earlier run left in the air"),
        "{stderr}"
    );
}

#[test]
fn fly_starts_from_the_ground_at_home_and_the_agent_takes_off() {
    let dir = tempfile::tempdir().unwrap();
    let n = 34;
    let port = 14540 + n;
    let scenario = write_scenario(dir.path());
    let config = write_config(dir.path(), port, "");
    let vehicle = sim_vehicle(&scenario, n);
    let out = dir.path().join("out");
    let run = alpha3()
        .args(["fly", "--config"])
        .arg(&config)
        .arg("--scenario")
        .arg(&scenario)
        .args(["--no-stdin", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    stop(vehicle);
    let stderr = String::from_utf8_lossy(&run.stderr);
    eprintln!("{stderr}");
    assert!(run.status.success(), "{stderr}");
    let record = std::fs::read_dir(out.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let e = events(&record);
    let anchor = anchor_of(&e);
    assert_eq!(anchor["on_ground"], Value::Bool(true));
    assert_eq!(anchor["point"], Value::from("home"));
    let took_off = e.iter().any(|e| match e {
        Event::AgentTurn { agent_turn, .. } => {
            agent_turn.actions.iter().any(|a| a.name() == "takeoff")
        }
        _ => false,
    });
    assert!(took_off, "the agent took off from the ground");
    assert_eq!(ended(&e), ("mission_complete".into(), true));
    assert!(!e.iter().any(|e| matches!(e, Event::Violation { .. })));
}
