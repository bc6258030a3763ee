//! The companion flies the PX4-like fake over real UDP sockets, as it would PX4 SITL on 14540.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::dialect::MavMessage;
use alpha3_hil::param::ParamValue;
use alpha3_hil::session::Event;
use alpha3_hil::testing::{go_to, land_and_disarm};
use alpha3_hil::translate::GotoMethod;
use alpha3_hil::{ConnectOptions, HilLink, Profile};
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::flight::{take_off, wait_for};
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

const SECS: fn(u64) -> Duration = Duration::from_secs;

async fn fly_with(cfg: FakeConfig, goto: GotoMethod) -> (Fake, HilLink, u16) {
    let port = free_udp_port();
    let fake = Fake::start(addr(&format!("udpout:127.0.0.1:{port}")), cfg, None).await;
    let mut session = test_config();
    session.goto = goto;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        session,
        ConnectOptions {
            ready_timeout_ms: 10_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    (fake, link, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arm_takeoff_reposition_land_over_udp() {
    let (fake, mut link, _) = fly_with(FakeConfig::default(), GotoMethod::Reposition).await;
    let status = link.status();
    assert_eq!(status.profile, Some(Profile::Px4));
    let report = link.preflight().unwrap();
    let dll = report
        .readings
        .iter()
        .find(|r| r.name == "NAV_DLL_ACT")
        .unwrap();
    assert_eq!(
        dll.value,
        Some(ParamValue::Int(0)),
        "INT32 decoded byte-wise"
    );
    assert!(dll.off);
    let rtl = report
        .readings
        .iter()
        .find(|r| r.name == "RTL_RETURN_ALT")
        .unwrap();
    assert_eq!(rtl.value, Some(ParamValue::Real(60.0)));

    // Arming is denied for the first 1.5 s of the fake's life; the link retries until ready.
    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "{armed:?}");
    assert!(link.snapshot().armed);

    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m: 10.0 })
        .await
        .unwrap();
    assert!(up.accepted, "{up:?}");
    wait_for(&link, "10 m", SECS(10), |s| {
        (s.position.z - 10.0).abs() < 0.3
    })
    .await;

    let target = Enu::new(30.0, 40.0, 15.0);
    let s = go_to(&mut link, target, SECS(15)).await;
    assert_eq!(s.mode, FlightMode::Hold);
    // What we see agrees with the autopilot's own truth, relative to home.
    let truth = fake.with(|m| m.position_from_home());
    assert!(
        truth.distance(s.position) < 0.5,
        "{truth:?} vs {:?}",
        s.position
    );

    let s = land_and_disarm(&mut link, SECS(15)).await;
    assert_eq!(s.landed, LandedState::OnGround);

    let m = link.measurement();
    assert!(m.rtt_ms.is_some_and(|r| r < 50.0), "{m:?}");
    // PX4's ~300 messages/s, slowed and thinned by hil to what the snapshot reads.
    assert!(
        m.rx_msgs_per_s > 30.0 && m.rx_msgs_per_s < 120.0,
        "PX4 rates after taming: {m:?}"
    );
    assert_eq!(m.loss_pct, 0.0, "{m:?}");
    assert!(m.heartbeat_age_ms.is_some_and(|a| a < 1500));
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_acknowledged_reposition_outside_the_fence_is_not_taken_for_done() {
    let cfg = FakeConfig {
        fence_radius_m: Some(25.0),
        ..FakeConfig::default()
    };
    let (fake, mut link, _) = fly_with(cfg, GotoMethod::Reposition).await;
    let mut events = link.subscribe();
    take_off(&mut link, 8.0).await;

    let out = link
        .execute_unchecked(&Command::GoTo {
            target: Enu::new(100.0, 0.0, 8.0),
            speed_mps: None,
        })
        .await
        .unwrap();
    assert!(!out.accepted, "PX4 ACKs it but does not fly it: {out:?}");
    let message = out.message.unwrap();
    assert!(message.contains("outside geofence"), "{message}");
    assert!(link.snapshot().position.x.abs() < 1.0, "did not move");
    // The lost move was cancelled with a hold.
    let held = tokio::time::timeout(SECS(5), async {
        loop {
            if let Ok(Event::LostCommandHeld(r)) = events.recv().await {
                return r;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(held.command, "hold");
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offboard_setpoints_stream_at_ten_hertz_or_more_until_hold() {
    let (fake, mut link, _) = fly_with(FakeConfig::default(), GotoMethod::Offboard).await;
    take_off(&mut link, 6.0).await;

    let target = Enu::new(-20.0, 10.0, 12.0);
    let go = link
        .execute_unchecked(&Command::GoTo {
            target,
            speed_mps: Some(8.0),
        })
        .await
        .unwrap();
    assert!(go.accepted, "{go:?}");
    let s = wait_for(&link, "arrival", SECS(15), |s| {
        s.position.distance(target) < 0.5
    })
    .await;
    assert_eq!(s.mode, FlightMode::Offboard);
    // Hold still in OFFBOARD: the stream must go on (PX4 would fail-safe otherwise).
    tokio::time::sleep(SECS(2)).await;
    assert_eq!(link.snapshot().mode, FlightMode::Offboard);
    let count = |fake: &Fake| {
        fake.with(|m| {
            m.received
                .iter()
                .filter(|(_, msg)| matches!(msg, MavMessage::SET_POSITION_TARGET_LOCAL_NED(_)))
                .count()
        })
    };
    let before = count(&fake);
    tokio::time::sleep(SECS(1)).await;
    let per_second = count(&fake) - before;
    assert!(per_second >= 10, "{per_second} setpoints/s");

    let hold = link.execute_unchecked(&Command::Hold).await.unwrap();
    assert!(hold.accepted, "{hold:?}");
    let before = count(&fake);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        count(&fake),
        before,
        "the stream stops once out of OFFBOARD"
    );
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vehicle_link_trait_flies_gate_approved_commands() {
    use alpha3_core::gate::evaluate_failsafe;
    let (fake, mut link, _) = fly_with(FakeConfig::default(), GotoMethod::Reposition).await;
    take_off(&mut link, 6.0).await;

    // Time on the link's clock: advance waits for it while telemetry keeps coming.
    let t0 = link.now_ms();
    let before = link.snapshot().time_ms;
    link.advance_to(t0 + 500).await.unwrap();
    assert!(link.now_ms() >= t0 + 500);
    assert!(link.snapshot().time_ms > before);

    // Only the gate makes an ApprovedCommand; the failsafe path approves a landing in flight.
    let snap = link.snapshot();
    let verdict = evaluate_failsafe(&snap, &Command::Land { site: None }, link.now_ms());
    let approved = verdict.approved().cloned().unwrap();
    let receipt = link.send(approved).await.unwrap();
    assert!(receipt.accepted, "{receipt:?}");
    wait_for(&link, "landed", SECS(10), |s| {
        s.landed == LandedState::OnGround
    })
    .await;
    link.close().await;
    fake.stop();
}
