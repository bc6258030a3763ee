//! MAVLink 2 signing on the flight-controller link: with the same key both sides talk; with a
//! wrong key, or unsigned, nothing gets through — against our fake and against pymavlink.
//! Replays and forged frames from a third party: `link_signing_replay.rs`.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_hil::wire::SigningKey;
use alpha3_hil::{ConnectOptions, HilError, HilLink};
use support::fake_px4::FakeConfig;
use support::python::{spawn_peer, summary};
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

const KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f000112233445566778899aabbccddeeff";
const WRONG: &str = "ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00";

async fn connect(port: u16, key: Option<&str>, ready_ms: u64) -> Result<HilLink, HilError> {
    let mut cfg = test_config();
    cfg.signing_key = key.map(|k| SigningKey::from_hex(k).unwrap());
    cfg.require_signing = key.is_some();
    let options = ConnectOptions {
        ready_timeout_ms: ready_ms,
        preflight: false,
        ..ConnectOptions::default()
    };
    HilLink::connect_with(addr(&format!("udpin:127.0.0.1:{port}")), cfg, options).await
}

async fn fake(port: u16, key: Option<&str>) -> Fake {
    let key = key.map(|k| SigningKey::from_hex(k).unwrap());
    Fake::start(
        addr(&format!("udpout:127.0.0.1:{port}")),
        FakeConfig::default(),
        key,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_key_on_both_sides_flies() {
    let port = free_udp_port();
    let fake = fake(port, Some(KEY)).await;
    let mut link = connect(port, Some(KEY), 10_000).await.unwrap();
    assert!(
        link.execute_unchecked(&Command::Arm)
            .await
            .unwrap()
            .accepted
    );
    assert_eq!(fake.lock().rejected, 0);
    assert_eq!(link.measurement().rejected_frames, 0);
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_or_no_signature_gets_nothing_through() {
    let port = free_udp_port();
    let fake_wrong = fake(port, Some(WRONG)).await;
    let err = connect(port, Some(KEY), 2000).await.unwrap_err();
    assert!(matches!(err, HilError::NoAutopilot { .. }), "{err:?}");
    // A udpin link answers only senders whose frames it accepted: the peer with the wrong
    // key never even hears from us.
    assert_eq!(fake_wrong.lock().rejected, 0, "we sent nothing to it");
    assert!(fake_wrong.with(|m| m.received.is_empty()));
    fake_wrong.stop();

    // An autopilot that does not sign is refused when signing is required.
    let port = free_udp_port();
    let unsigned = fake(port, None).await;
    let err = connect(port, Some(KEY), 2000).await.unwrap_err();
    assert!(matches!(err, HilError::NoAutopilot { .. }), "{err:?}");
    unsigned.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pymavlink_with_the_same_key_accepts_our_signed_frames() {
    let port = free_udp_port();
    let peer = spawn_peer(port, 3.0, Some(KEY));
    // We require signatures, so connecting also proves we accept pymavlink's.
    let link = connect(port, Some(KEY), 10_000).await.unwrap();
    let out = summary(peer).await;
    link.close().await;
    let signing = &out["signing"];
    assert!(signing["good"].as_u64().unwrap() >= 5, "{out}");
    assert_eq!(signing["bad"], 0, "{out}");
    assert_eq!(signing["unsigned"], 0, "{out}");
    assert!(!out["heartbeats"].as_array().unwrap().is_empty(), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pymavlink_with_a_wrong_key_is_refused_and_never_answered() {
    let port = free_udp_port();
    let peer = spawn_peer(port, 3.0, Some(WRONG));
    let err = connect(port, Some(KEY), 2500).await.unwrap_err();
    assert!(matches!(err, HilError::NoAutopilot { .. }), "{err:?}");
    let out = summary(peer).await;
    let signing = &out["signing"];
    // We refused every frame of it, so we never answered it (udpin follows accepted senders
    // only): pymavlink heard nothing from us, signed or not.
    assert_eq!(signing["bad"], 0, "{out}");
    assert_eq!(signing["good"], 0, "{out}");
    assert_eq!(signing["unsigned"], 0, "{out}");
    assert!(out["heartbeats"].as_array().unwrap().is_empty(), "{out}");
}
