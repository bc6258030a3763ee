//! The same flight over a serial line: a fresh socat pty pair per test, tokio-serial on our
//! end, and a cable pull in the middle of a flight.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::LandedState;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::testing::{go_to, land_and_disarm};
use alpha3_hil::{ConnectOptions, HilLink};
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::flight::{take_off, wait_for};
use support::pty::PtyPair;
use support::runner::Fake;
use support::{addr, test_config};

const SECS: fn(u64) -> Duration = Duration::from_secs;

async fn connect(pty: &PtyPair) -> (Fake, HilLink) {
    let fake = Fake::start(addr(&pty.serial_b()), FakeConfig::default(), None).await;
    let link = HilLink::connect_with(
        addr(&pty.serial_a()),
        test_config(),
        ConnectOptions {
            ready_timeout_ms: 10_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    (fake, link)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arm_takeoff_reposition_land_over_a_serial_pty() {
    let pty = PtyPair::new();
    let (fake, mut link) = connect(&pty).await;
    take_off(&mut link, 10.0).await;
    let target = Enu::new(-25.0, 15.0, 10.0);
    go_to(&mut link, target, SECS(15)).await;
    let s = land_and_disarm(&mut link, SECS(15)).await;
    assert_eq!(s.landed, LandedState::OnGround);
    let m = link.measurement();
    assert_eq!(m.loss_pct, 0.0, "{m:?}");
    assert!(m.rtt_ms.is_some(), "{m:?}");
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cable_pull_mid_flight_reconnects_without_losing_state() {
    let mut pty = PtyPair::new();
    let (fake, mut link) = connect(&pty).await;
    take_off(&mut link, 5.0).await;

    pty.unplug();
    tokio::time::sleep(SECS(2)).await;
    let status = link.status();
    assert!(status.autopilot_lost, "{status:?}");
    let kept = link.snapshot();
    assert!(
        kept.armed && (kept.position.z - 5.0).abs() < 0.3,
        "state kept: {kept:?}"
    );

    pty.plug();
    // Generous: socat re-creating the pty and the reopen backoff are slow on a loaded machine.
    let back = tokio::time::timeout(SECS(30), async {
        loop {
            let s = link.status();
            if s.transport_open && !s.autopilot_lost {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap();
    assert!(back.reopened >= 1, "{back:?}");
    wait_for(&link, "fresh telemetry", SECS(5), |s| {
        s.time_ms > kept.time_ms + 1000
    })
    .await;

    assert!(
        link.execute_unchecked(&Command::Land { site: None })
            .await
            .unwrap()
            .accepted
    );
    wait_for(&link, "landed", SECS(15), |s| {
        s.landed == LandedState::OnGround
    })
    .await;
    link.close().await;
    fake.stop();
}
