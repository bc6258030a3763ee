//! One pymavlink script (`tests/py/ardupilot_conformance.py`) says what alpha3 relies on in
//! ArduCopter 4.7 — boot in STABILIZE, nothing streamed until asked, slow readiness with its
//! reasons, GUIDED, take-off above home, DO_REPOSITION only as COMMAND_INT, its mode numbers
//! and ACK results — and both the real ArduCopter SITL and `alpha3 sim-vehicle --autopilot
//! ardupilot` must pass it. The sim-vehicle always; the real SITL when its build is there
//! (under `CI=true` it must be: the test command builds it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ardupilot_support;
mod sitl_support;

use ardupilot_support::{Sitl, SitlOptions, sitl_build};
use serde_json::Value;
use sitl_support::{alpha3, ground_scenario, python, root};
use std::process::Stdio;

/// sim-vehicle instance: sends to 127.0.0.1:14660 + 31.
const SIM_INSTANCE: u16 = 31;
/// Real SITL instance (TCP 5780) and its companion port; instance 0 is start_sitl.sh's.
const SITL_INSTANCE: u8 = 2;
const SITL_PORT: u16 = 14672;

/// Runs the script against the vehicle sending to `port`; its JSON summary.
fn conformance(port: u16) -> (bool, Value) {
    let out = std::process::Command::new(python())
        .arg(root().join("tests/py/ardupilot_conformance.py"))
        .args(["--port", &port.to_string(), "--timeout", "400"])
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no summary: {}", String::from_utf8_lossy(&out.stdout)));
    eprintln!("{summary:#}");
    (out.status.success(), summary)
}

fn failed_checks(summary: &Value) -> Vec<String> {
    summary["checks"]
        .as_object()
        .map(|c| {
            c.iter()
                .filter(|(_, v)| v["ok"] != true)
                .map(|(k, v)| format!("{k}: {v}"))
                .collect()
        })
        .unwrap_or_default()
}

/// Every check the script knows ran and passed.
fn assert_conforms(ok: bool, summary: &Value) {
    let failed = failed_checks(summary);
    assert!(
        ok && failed.is_empty(),
        "failed: {failed:#?}\nerror: {}",
        summary["error"]
    );
    for name in [
        "boot",
        "quiet",
        "params",
        "streams",
        "reposition_long",
        "guided_early",
        "arm_early",
        "takeoff_disarmed",
        "ready",
        "arm",
        "takeoff_frame",
        "takeoff",
        "reposition",
        "brake",
        "speed_outside_guided",
        "reposition_no_flag",
        "reposition_flag",
        "speed_guided",
        "position_target",
        "land",
        "prearm_probe",
    ] {
        assert_eq!(summary["checks"][name]["ok"], true, "{name} did not run");
    }
}

#[test]
fn sim_vehicle_behaves_like_ardupilot_sitl_to_the_conformance_script() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = ground_scenario(dir.path());
    let mut vehicle = alpha3()
        .args(["sim-vehicle", "--autopilot", "ardupilot", "--scenario"])
        .arg(&scenario)
        .args(["--instance", &SIM_INSTANCE.to_string(), "--seed", "3"])
        // Ready after 12 s instead of ~38 s: long enough for the early checks.
        .args(["--ready-s", "12"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (ok, summary) = conformance(14660 + SIM_INSTANCE);
    let _ = vehicle.kill();
    let out = vehicle.wait_with_output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert_conforms(ok, &summary);
}

#[test]
fn the_real_ardupilot_sitl_passes_the_same_conformance_script() {
    let Some((bin, parm)) = sitl_build() else {
        return;
    };
    let mut sitl = Sitl::start(&bin, &parm, &SitlOptions::new(SITL_INSTANCE, SITL_PORT));
    let (ok, summary) = conformance(SITL_PORT);
    assert!(sitl.is_running(), "SITL died: {}", sitl.log_tail());
    assert_conforms(ok, &summary);
}
