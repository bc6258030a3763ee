//! `alpha3 sim-vehicle` as PX4 SITL to an outside peer: pymavlink listens on the companion
//! port of instance N (udpin:14540+N), decodes the heartbeat and telemetry, and flies arm →
//! take-off → land exactly as it would fly PX4 SITL (tests/py/px4_client.py). Then SIGTERM
//! stops the vehicle cleanly.
#![allow(clippy::unwrap_used)]

mod sitl_support;

use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, python, root};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// SITL instance for this test: companion port 14587, sends from 14627 and 18617.
const INSTANCE: u16 = 47;

#[test]
fn pymavlink_flies_the_sim_vehicle_as_it_would_px4_sitl() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let mut vehicle = alpha3()
        .args(["sim-vehicle", "--scenario"])
        .arg(&scenario)
        .args(["--instance", &INSTANCE.to_string(), "--seed", "3"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = std::process::Command::new(python())
        .arg(root().join("tests/py/px4_client.py"))
        .args(["--port", &(14540 + INSTANCE).to_string(), "--height", "4"])
        .output()
        .unwrap();
    // SIGTERM, as a service manager would stop it.
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &vehicle.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = vehicle.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = vehicle.kill();
            panic!("sim-vehicle did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = vehicle.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        client.status.success(),
        "px4_client.py failed: {}",
        String::from_utf8_lossy(&client.stderr)
    );
    let summary: Value = serde_json::from_slice(&client.stdout).unwrap();
    eprintln!("{summary:#}");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("frames out"), "{stderr}");

    assert_eq!(summary["ok"], true, "{summary}");
    assert_eq!(summary["bad_data"], 0, "{summary}");
    let hb = &summary["heartbeat"];
    assert_eq!(hb["system"], u64::from(INSTANCE) + 1, "system id N+1");
    assert_eq!(hb["component"], 1);
    assert_eq!(hb["autopilot"], 12, "MAV_AUTOPILOT_PX4");
    assert_eq!(hb["type"], 2, "MAV_TYPE_QUADROTOR");
    assert_eq!(hb["custom_mode"], 0x0304_0000, "AUTO.LOITER at boot");
    for kind in [
        "ATTITUDE",
        "GLOBAL_POSITION_INT",
        "LOCAL_POSITION_NED",
        "SYS_STATUS",
        "BATTERY_STATUS",
        "HOME_POSITION",
        "EXTENDED_SYS_STATE",
    ] {
        assert!(
            summary["counts"][kind].as_u64().unwrap_or(0) > 0,
            "no {kind}: {summary}"
        );
    }
    // Home comes at ~2.5 s, arming only from ~4 s: the client's first tries are refused.
    assert!(summary["arm_denied"].as_u64().unwrap() >= 1, "{summary}");
    // ACCEPTED (0) for arm, take-off and land; the modes PX4 goes through.
    assert_eq!(summary["takeoff_result"], 0);
    assert_eq!(summary["land_result"], 0);
    let modes: Vec<&str> = summary["modes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for m in ["AUTO.TAKEOFF", "AUTO.LOITER", "AUTO.LAND"] {
        assert!(modes.contains(&m), "{modes:?}");
    }
    let hover = summary["hover_relative_alt_m"].as_f64().unwrap();
    assert!(
        (hover - 4.0).abs() < 0.5,
        "take-off altitude was AMSL: {hover}"
    );
    let texts = summary["statustext"].to_string();
    assert!(texts.contains("Landing detected"), "{texts}");
}
