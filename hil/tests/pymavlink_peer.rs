//! pymavlink as an outside peer: it decodes our heartbeats and telemetry requests, answers our
//! TIMESYNC, and agrees with our decoder on a recorded PX4-rate stream.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_hil::wire::Decoder;
use alpha3_hil::{ConnectOptions, HilLink};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;
use support::python::{spawn_peer, summary};
use support::{addr, fixture, free_udp_port, python, script, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pymavlink_decodes_our_heartbeats_and_telemetry_requests() {
    let port = free_udp_port();
    let peer = spawn_peer(port, 4.0, None);
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let m = link.measurement();
    let out = summary(peer).await;
    eprintln!("{out}");
    assert!(m.rtt_ms.is_some(), "pymavlink answered our TIMESYNC: {m:?}");
    link.close().await;

    assert_eq!(out["bad_data"], 0, "{out}");
    let hb = out["heartbeats"].as_array().unwrap();
    let onboard = hb
        .iter()
        .find(|h| h["component"] == 191)
        .expect("onboard heartbeat");
    assert_eq!(
        (
            &onboard["system"],
            &onboard["type"],
            &onboard["autopilot"],
            &onboard["base_mode"]
        ),
        (
            &Value::from(1),
            &Value::from(18),
            &Value::from(8),
            &Value::from(0)
        ),
        "MAV_TYPE_ONBOARD_CONTROLLER, MAV_AUTOPILOT_INVALID, never armed"
    );
    let gcs = hb
        .iter()
        .find(|h| h["component"] == 190)
        .expect("GCS heartbeat");
    assert_eq!(gcs["type"], 6, "MAV_TYPE_GCS, so PX4 sends us STATUSTEXT");

    let cmds = out["commands"].as_array().unwrap();
    let asked = |command: i64, param1: f64| {
        cmds.iter().any(|c| {
            c["command"] == command
                && c["param1"].as_f64() == Some(param1)
                && c["target_system"] == 1
                && c["target_component"] == 1
        })
    };
    for (id, what) in [
        (242.0, "HOME_POSITION"),
        (245.0, "EXTENDED_SYS_STATE"),
        (24.0, "GPS_RAW_INT"),
        (147.0, "BATTERY_STATUS"),
    ] {
        assert!(asked(511, id), "SET_MESSAGE_INTERVAL for {what}: {out}");
    }
    assert!(asked(512, 242.0), "REQUEST_MESSAGE HOME_POSITION: {out}");
    assert!(out["timesync_requests"].as_u64().unwrap() >= 4, "{out}");
}

#[tokio::test]
async fn our_decoder_and_pymavlink_agree_on_the_recorded_px4_stream() {
    let path = fixture("px4_stream.bin");
    let bytes = std::fs::read(&path).unwrap();
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    let mut dec = Decoder::new();
    dec.push(&bytes);
    while let Some(frame) = dec.next(0) {
        let name = alpha3_hil::dialect::Message::message_name(&frame.unwrap().message);
        *ours.entry(name.to_string()).or_default() += 1;
    }
    let out = tokio::process::Command::new(python())
        .arg(script("count_frames.py"))
        .arg(&path)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: BTreeMap<String, u64> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ours, theirs);
    assert!(ours.values().sum::<u64>() > 2000, "{ours:?}");
}
