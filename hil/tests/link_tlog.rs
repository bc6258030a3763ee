//! The telemetry log of a live link: every frame both ways, as `.tlog`, read back by
//! pymavlink's own log reader and by our decoder — and both agree on every frame.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_hil::dialect::{MavMessage, Message, mav};
use alpha3_hil::tlog::{read_tlog, unix_now_us};
use alpha3_hil::wire::Decoder;
use alpha3_hil::{ConnectOptions, HilLink};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::{addr, free_udp_port, python, script, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_link_is_logged_as_a_tlog_that_pymavlink_and_we_read_alike() {
    let dir = std::env::temp_dir().join(format!("alpha3-link-tlog-{}", std::process::id()));
    let path = dir.join("link.tlog");
    let port = free_udp_port();
    let fake = Fake::start(
        addr(&format!("udpout:127.0.0.1:{port}")),
        FakeConfig::default(),
        None,
    )
    .await;
    let started_us = unix_now_us();
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: true,
            tlog: Some(path.clone()),
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    link.close().await;
    fake.stop();
    let ended_us = unix_now_us();

    // Our reader and decoder.
    let entries = read_tlog(std::fs::File::open(&path).unwrap()).unwrap();
    assert!(entries.len() > 200, "{} frames", entries.len());
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    let mut from_us = 0;
    let mut decoder = Decoder::new();
    for e in &entries {
        assert!(
            (started_us..=ended_us).contains(&e.unix_us),
            "timestamps are wall-clock microseconds"
        );
        decoder.push(&e.frame);
        let m = decoder.next(0).unwrap().unwrap();
        assert!(decoder.next(0).is_none(), "one frame per entry");
        if m.header.component_id == 191 {
            from_us += 1;
        }
        *ours
            .entry(m.message.message_name().to_string())
            .or_default() += 1;
        if let MavMessage::HEARTBEAT(h) = &m.message
            && m.header.component_id == 1
        {
            assert_eq!(h.autopilot, mav::MavAutopilot::MAV_AUTOPILOT_PX4);
        }
    }
    assert!(from_us > 0, "our own frames are in the log too");
    assert!(
        ours["PARAM_VALUE"] > 0 && ours["PARAM_REQUEST_READ"] > 0,
        "{ours:?}"
    );
    assert!(ours["ATTITUDE"] > 50, "{ours:?}");

    // pymavlink's log reader.
    let out = tokio::process::Command::new(python())
        .arg(script("read_tlog.py"))
        .arg(&path)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(py["bad"], 0, "{py}");
    assert_eq!(py["monotonic"], true, "{py}");
    // pymavlink keeps the stamp as float seconds: equal to the microsecond, give or take one.
    let first = py["first_us"].as_u64().unwrap();
    assert!(first.abs_diff(entries[0].unix_us) <= 2, "{py}");
    let theirs: BTreeMap<String, u64> = serde_json::from_value(py["counts"].clone()).unwrap();
    assert_eq!(
        theirs, ours,
        "pymavlink and our decoder agree frame for frame"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
