//! A plan that ends with a landing lands there: `configs/plans/zurich-land.plan` (take-off, a
//! waypoint 120 m east, NAV_LAND 60 m north of it) flown by `alpha3 fly --plan` on
//! `alpha3 sim-vehicle` (PX4's imitation) ends `mission_complete` with the vehicle on the ground
//! at the landing's position — the last waypoint is the landing's place, the landing is the
//! failsafe's land step through the gate, and the place is an authorised landing site, so the
//! descent below the band is no violation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;
mod sitl_support;

use alpha3_core::frames::{Geo, LocalFrame};
use plan_support::{plan, record_lines};
use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, write_config};
use std::process::Stdio;

/// SITL instance: companion link → 14579; clear of the other tests' instances.
const INSTANCE: u16 = 39;

const HOME: Geo = Geo {
    lat_deg: 47.397742,
    lon_deg: 8.545594,
    alt_amsl_m: 488.0,
};

#[test]
fn a_plan_ending_with_a_landing_lands_at_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let mut vehicle = alpha3()
        .args(["sim-vehicle", "--scenario"])
        .arg(&scenario)
        .args(["--instance", &INSTANCE.to_string(), "--speed-factor", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let cfg = write_config(dir.path(), 14540 + INSTANCE, "");
    let out = dir.path().join("out");
    let run = alpha3()
        .args(["fly", "--config"])
        .arg(&cfg)
        .arg("--plan")
        .arg(plan("zurich-land.plan"))
        .arg("--out")
        .arg(&out)
        .args([
            "--episode-id",
            "land",
            "--no-stdin",
            "--ready-timeout-s",
            "60",
        ])
        .output()
        .unwrap();
    let _ = vehicle.kill();
    let _ = vehicle.wait();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");

    let lines = record_lines(&out.join("records/land.jsonl"));
    let plan_note = &lines[0]["config"]["vehicle_link"]["plan"];
    assert_eq!(
        plan_note["ends_with_landing"],
        Value::Bool(true),
        "{plan_note}"
    );
    assert!(
        plan_note["sources"]["landing_sites"]
            .to_string()
            .contains("NAV_LAND"),
        "{plan_note}"
    );
    let end = lines
        .iter()
        .rev()
        .find(|l| l["event"] == "termination")
        .unwrap();
    assert_eq!(end["reason"], "mission_complete", "{stderr}");
    assert!(
        !lines.iter().any(|l| l["event"] == "violation"),
        "a truth violation: {stderr}"
    );
    let landed = lines
        .iter()
        .any(|l| l["event"] == "watchdog" && l["action"] == "land");
    assert!(landed, "no landing after the last waypoint");
    let last = lines.iter().rev().find(|l| l["event"] == "truth").unwrap();
    assert_eq!(
        last["airborne"],
        Value::Bool(false),
        "still in the air: {last}"
    );
    let target = LocalFrame::new(HOME).to_enu(Geo {
        lat_deg: 47.3982815,
        lon_deg: 8.5471883,
        alt_amsl_m: 488.0,
    });
    let (x, y) = (
        last["position"]["x"].as_f64().unwrap(),
        last["position"]["y"].as_f64().unwrap(),
    );
    let off = ((x - target.x).powi(2) + (y - target.y).powi(2)).sqrt();
    assert!(off < 5.0, "landed {off:.1} m from the NAV_LAND position");
}
