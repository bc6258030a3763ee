//! `alpha3 sim-vehicle` serves the mission protocol as PX4 does, to real peers:
//! 1. a ground station as a drone engineer runs it — MAVSDK-Python (PyPI `mavsdk`, MAVSDK
//!    itself inside the wheel) on the ground-station port — imports PX4's own test plan
//!    (`configs/plans/zurich-detour.plan`: mission 6 items, fence 8, rally 1), uploads its
//!    fence, rally points and mission, and reads the same counts back;
//! 2. `alpha3 check --connect auto` on the companion port downloads that fence and checks the
//!    plan against it, naming the autopilot's FENCE plan among its sources.
//!
//! Without MAVSDK-Python the test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;
mod sitl_support;

use plan_support::{GroundStation, plan, python_with};
use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, write_config};
use std::process::{Child, Stdio};
use std::time::Instant;

/// SITL instance for this test: companion link 14617 → 14577, ground-station link bound to
/// 18607; clear of the other tests' instances (2-9, 31, 33-35, 47, 53).
const INSTANCE: u16 = 37;

/// The vehicle, stopped however the test ends.
struct Vehicle(Child);

impl Drop for Vehicle {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn mavsdk_uploads_a_qgc_plan_to_the_sim_vehicle_and_check_reads_its_fence_back() {
    let Some(py) = python_with("mavsdk") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let vehicle = Vehicle(
        alpha3()
            .args(["sim-vehicle", "--scenario"])
            .arg(&scenario)
            .args(["--instance", &INSTANCE.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let detour = plan("zurich-detour.plan");

    // 1. The ground station: MAVSDK sends to the port the vehicle's GCS link is bound to.
    let mut gcs = GroundStation::start(
        &py,
        &format!("udpout://127.0.0.1:{}", 18570 + INSTANCE),
        dir.path().join("mavsdk.log"),
    );
    let started = Instant::now();
    let up = gcs.upload(&detour, false);
    let took = started.elapsed();
    let imported = &up["imported"];
    let counts: Vec<usize> = ["mission", "fence", "rally"]
        .iter()
        .map(|k| imported[k].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(counts, [6, 8, 1], "MAVSDK's import of the plan: {up}");
    assert_eq!(up["fence_on_autopilot"].as_u64(), Some(8), "{up}");
    assert_eq!(up["mission_on_autopilot"].as_u64(), Some(6), "{up}");
    eprintln!(
        "MAVSDK: fence, rally and mission up and fence and mission down in {:.2} s",
        took.as_secs_f64()
    );

    // 2. `alpha3 check` on the companion link downloads the fence the ground station put
    // there and checks the plan against it.
    let cfg = write_config(dir.path(), 14540 + INSTANCE, "");
    let started = Instant::now();
    let out = alpha3()
        .args(["check", "--config"])
        .arg(&cfg)
        .arg("--plan")
        .arg(&detour)
        .args(["--connect", "auto", "--json"])
        .output()
        .unwrap();
    eprintln!("alpha3 check took {:.2} s", started.elapsed().as_secs_f64());
    drop(gcs);
    drop(vehicle);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "check printed no JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out.status.code(), Some(0), "{answer}");
    let fence = answer["sources"]["fence"].to_string();
    assert!(
        fence.contains("autopilot FENCE plan inclusion polygon 0"),
        "the fence downloaded from sim-vehicle: {fence}"
    );
    let no_fly = answer["sources"]["no_fly"].to_string();
    assert!(
        no_fly.contains("autopilot FENCE plan exclusion polygon 1"),
        "{no_fly}"
    );
}
