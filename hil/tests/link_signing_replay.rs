//! MAVLink 2 signing on a live link, from the outside: with signing required, an intruder's
//! unsigned command, a command signed with the wrong key, a replay of a genuine signed frame,
//! a genuine stream going back in time and a new stream starting in the past are all refused —
//! and no frame from another address can redirect our replies (the link stays bound to the
//! autopilot it heard first).
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_hil::dialect::{COMP_AUTOPILOT, MavMessage, mav};
use alpha3_hil::session::Event;
use alpha3_hil::tlog::unix_now_us;
use alpha3_hil::wire::{
    Encoder, RejectReason, SignatureFault, Signer, SigningKey, signing_timestamp,
};
use alpha3_hil::{ConnectOptions, HilLink};
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

const KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f000112233445566778899aabbccddeeff";
const WRONG: &str = "ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00";

/// A COMMAND_LONG telling the companion to disarm its autopilot, as an intruder would send it.
fn disarm() -> MavMessage {
    MavMessage::COMMAND_LONG(mav::COMMAND_LONG_DATA {
        param1: 0.0,
        param2: 21196.0,
        param3: 0.0,
        param4: 0.0,
        param5: 0.0,
        param6: 0.0,
        param7: 0.0,
        command: mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        target_system: 1,
        target_component: 191,
        confirmation: 0,
    })
}

fn frame(key: Option<&str>, link_id: u8, ts: u64) -> Vec<u8> {
    let signer = key.map(|k| Signer::new(SigningKey::from_hex(k).unwrap(), link_id));
    let mut enc = Encoder::new(1, signer);
    let mut out = Vec::new();
    enc.encode(COMP_AUTOPILOT, &disarm(), ts, &mut out);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsigned_wrongly_signed_and_replayed_commands_are_refused() {
    let port = free_udp_port();
    let key = SigningKey::from_hex(KEY).unwrap();
    let fake = Fake::start(
        addr(&format!("udpout:127.0.0.1:{port}")),
        FakeConfig::default(),
        Some(key.clone()),
    )
    .await;
    let mut cfg = test_config();
    cfg.signing_key = Some(key);
    cfg.require_signing = true;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        cfg,
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    let mut events = link.subscribe();

    let intruder = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let send = |bytes: Vec<u8>| {
        let intruder = &intruder;
        async move {
            intruder.send_to(&bytes, ("127.0.0.1", port)).await.unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };

    // While the autopilot is quiet, forged frames arrive; none may steer our replies.
    fake.reboot(Duration::from_millis(1200));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let now = signing_timestamp(unix_now_us());
    send(frame(None, 0, now)).await;
    send(frame(Some(WRONG), 7, now)).await;
    send(frame(Some(KEY), 9, now - 120 * 100_000)).await;
    let mut buf = [0u8; 512];
    let stray =
        tokio::time::timeout(Duration::from_millis(900), intruder.recv_from(&mut buf)).await;
    assert!(
        stray.is_err(),
        "a refused frame redirected our traffic to its sender"
    );

    // Replays of a genuine signed frame, and a genuine stream going back in time.
    let now = signing_timestamp(unix_now_us());
    let genuine = frame(Some(KEY), 7, now);
    send(genuine.clone()).await;
    send(genuine).await;
    send(frame(Some(KEY), 7, now - 100_000)).await;

    let mut refused = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while refused.len() < 5 {
        let Ok(Ok(event)) = tokio::time::timeout_at(deadline, events.recv()).await else {
            break;
        };
        if let Event::Rejected(r) = event
            && r.message_id == 76
        {
            refused.push(r.reason);
        }
    }
    assert_eq!(
        refused,
        vec![
            RejectReason::Unsigned,
            RejectReason::Signature(SignatureFault::BadSignature),
            RejectReason::Signature(SignatureFault::Stale),
            RejectReason::Signature(SignatureFault::Replay),
            RejectReason::Signature(SignatureFault::Replay),
        ],
        "only the genuine frame passed"
    );
    assert!(link.measurement().rejected_frames >= 5);

    // The autopilot is back and hears us again.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        fake.with(|m| m.received.len()) > 0,
        "the autopilot hears us after its reboot"
    );
    link.close().await;
    fake.stop();
}
