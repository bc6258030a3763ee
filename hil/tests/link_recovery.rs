//! What the link does when the autopilot goes away, stays silent, or frames are lost.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::vehicle::{LinkError, VehicleLink};
use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::session::Event;
use alpha3_hil::{ConnectOptions, HilLink};
use std::sync::atomic::Ordering;
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::flight::wait_for;
use support::runner::Fake;
use support::tap::Tap;
use support::{addr, free_udp_port, test_config};

const SECS: fn(u64) -> Duration = Duration::from_secs;

fn options() -> ConnectOptions {
    ConnectOptions {
        ready_timeout_ms: 10_000,
        preflight: false,
        ..ConnectOptions::default()
    }
}

async fn start(cfg: FakeConfig) -> (Fake, HilLink) {
    let port = free_udp_port();
    let fake = Fake::start(addr(&format!("udpout:127.0.0.1:{port}")), cfg, None).await;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        options(),
    )
    .await
    .unwrap();
    (fake, link)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_autopilot_reboot_is_noticed_and_the_link_carries_on() {
    let (fake, mut link) = start(FakeConfig::default()).await;
    let mut events = link.subscribe();
    assert!(
        link.execute_unchecked(&Command::Arm)
            .await
            .unwrap()
            .accepted
    );
    fake.reboot(SECS(2));
    wait_until(&link, "lost", |s| s.autopilot_lost).await;
    assert!(
        link.snapshot().armed,
        "the last known state stays until news arrive"
    );
    wait_until(&link, "back", |s| !s.autopilot_lost).await;
    wait_for(&link, "a fresh, disarmed autopilot", SECS(5), |s| !s.armed).await;
    let mut seen = vec![];
    while let Ok(e) = events.try_recv() {
        seen.push(e);
    }
    assert!(seen.contains(&Event::AutopilotLost), "{seen:?}");
    assert!(seen.contains(&Event::AutopilotBack), "{seen:?}");
    // Its sequence numbers restarted: that is not loss.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(link.measurement().loss_pct, 0.0);
    // Telemetry requests went out again to the rebooted autopilot.
    let requested = fake.with(|m| {
        m.received.iter().any(|(_, msg)| {
            matches!(msg, MavMessage::COMMAND_LONG(c) if c.command == mav::MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL)
        })
    });
    assert!(requested);
    assert!(
        link.execute_unchecked(&Command::Arm)
            .await
            .unwrap()
            .accepted
    );
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_times_out_is_never_sent_again() {
    let cfg = FakeConfig {
        silent_commands: true,
        ..FakeConfig::default()
    };
    let (fake, mut link) = start(cfg).await;
    let arms = |fake: &Fake| {
        fake.with(|m| {
            m.received
                .iter()
                .filter_map(|(_, msg)| match msg {
                    MavMessage::COMMAND_LONG(c)
                        if c.command == mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM =>
                    {
                        Some(c.confirmation)
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    };
    let err = link.execute_unchecked(&Command::Arm).await.unwrap_err();
    assert!(matches!(err, LinkError::Timeout { .. }), "{err:?}");
    assert_eq!(
        arms(&fake),
        [0, 1, 2],
        "the first send and two retries, numbered"
    );
    tokio::time::sleep(SECS(3)).await;
    assert_eq!(arms(&fake).len(), 3, "nothing fires late");
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_frames_show_as_loss() {
    let port = free_udp_port();
    let tap = Tap::start(format!("127.0.0.1:{port}").parse().unwrap()).await;
    let fake = Fake::start(
        addr(&format!("udpout:{}", tap.addr)),
        FakeConfig::default(),
        None,
    )
    .await;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        options(),
    )
    .await
    .unwrap();
    tap.drop_every.store(20, Ordering::Relaxed);
    tokio::time::sleep(SECS(6)).await;
    let m = link.measurement();
    assert!(
        (m.loss_pct - 5.0).abs() < 1.0,
        "one datagram in 20 dropped: {m:?}"
    );
    assert!(m.rtt_ms.is_some());
    link.close().await;
    fake.stop();
    tap.stop();
}

async fn wait_until(link: &HilLink, what: &str, ok: impl Fn(&alpha3_hil::LinkStatus) -> bool) {
    tokio::time::timeout(SECS(10), async {
        while !ok(&link.status()) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("timed out waiting for {what}: {:?}", link.status()));
}
