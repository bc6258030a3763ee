//! `hil` flies the world through the PX4-like endpoint over real UDP sockets, as it would fly
//! PX4 SITL: preflight over the PARAM protocol, arming refused until the vehicle is ready,
//! take-off (AMSL on the wire), a reposition PX4 ACKs yet ignores outside its fence, one it
//! flies, and a landing with PX4's delayed auto-disarm.
#![allow(clippy::unwrap_used)]

mod loopback_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::param::ParamValue;
use alpha3_hil::testing::{go_to, land_and_disarm};
use alpha3_hil::{ConnectOptions, HilLink, Profile};
use alpha3_sim::endpoint::{Impairment, ParamValue as EndpointValue};
use loopback_common::{addr, endpoint, free_udp_port, session_config, udp_to, wait_for};
use std::time::Duration;

const SECS: fn(u64) -> Duration = Duration::from_secs;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hil_flies_arm_takeoff_reposition_land_over_udp() {
    let port = free_udp_port();
    let vehicle = endpoint(udp_to(port), Impairment::None, 1.0).await;
    let mut link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        session_config(),
        ConnectOptions {
            ready_timeout_ms: 15_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    let status = link.status();
    assert_eq!(status.profile, Some(Profile::Px4), "{status:?}");
    let report = link.preflight().unwrap();
    let reading = |name: &str| {
        report
            .readings
            .iter()
            .find(|r| r.name == name)
            .and_then(|r| r.value)
    };
    assert_eq!(
        reading("NAV_DLL_ACT"),
        Some(ParamValue::Int(0)),
        "byte-wise INT32"
    );
    assert_eq!(reading("NAV_RCL_ACT"), Some(ParamValue::Int(2)));
    assert_eq!(reading("RTL_RETURN_ALT"), Some(ParamValue::Real(60.0)));

    // Arming is refused for the vehicle's first ~4 s; the link retries until it is accepted.
    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "{armed:?}");
    assert!(
        vehicle.boot_ms() >= 4000,
        "armed before the vehicle was ready"
    );

    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m: 5.0 })
        .await
        .unwrap();
    assert!(up.accepted, "{up:?}");
    // Settled over the take-off point: the wind (5 m/s from the north-east) pushes the
    // vehicle during the climb and PX4 (and the world) fly it back afterwards.
    let s = wait_for(&link, "5 m, settled", SECS(20), |s| {
        (s.position.z - 5.0).abs() < 0.3
            && s.position.horizontal_distance(Enu::default()) < 0.5
            && s.ground_speed_mps() < 0.2
            && s.mode == FlightMode::Hold
    })
    .await;
    assert_eq!(s.landed, LandedState::InAir);

    // A 25 m fence: PX4 ACKs a reposition beyond it and stays put; hil must not believe it.
    vehicle.with_vehicle(|v| {
        v.params_mut()
            .set("GF_MAX_HOR_DIST", EndpointValue::Real(25.0))
    });
    let out = link
        .execute_unchecked(&Command::GoTo {
            // Across the wind, so gusts cannot pass for progress toward it.
            target: Enu::new(-28.0, 28.0, 5.0),
            speed_mps: None,
        })
        .await
        .unwrap();
    assert!(!out.accepted, "ACKed but not flown: {out:?}");
    let why = out.message.unwrap_or_default();
    assert!(why.contains("outside geofence"), "{why}");
    assert!(link.snapshot().position.horizontal_distance(Enu::default()) < 1.0);

    let target = Enu::new(8.0, -6.0, 6.0);
    let s = go_to(&mut link, target, SECS(30)).await;
    assert_eq!(s.mode, FlightMode::Hold);
    // What hil sees agrees with the world, relative to the home the vehicle set at arming.
    let truth = vehicle.with_vehicle(|v| {
        let p = v.world().snapshot().position;
        let h = v.home().unwrap();
        Enu::new(p.x - h.x, p.y - h.y, p.z - h.z)
    });
    assert!(truth.distance(s.position) < 0.5, "{truth:?} vs {s:?}");

    let s = land_and_disarm(&mut link, SECS(40)).await;
    assert_eq!(s.landed, LandedState::OnGround);
    assert!(s.position.z.abs() < 0.3, "{s:?}");

    let m = link.measurement();
    assert!(m.rtt_ms.is_some(), "{m:?}");
    // PX4's companion link as hil asks for it: attitude and position at 20 Hz, the other
    // high-rate streams off (PX4 sends ~300 messages/s unasked; the endpoint honours
    // SET_MESSAGE_INTERVAL as PX4 does).
    assert!(
        (40.0..100.0).contains(&m.rx_msgs_per_s),
        "the companion link's rate as asked for: {m:?}"
    );
    assert_eq!(m.loss_pct, 0.0, "{m:?}");
    eprintln!("measurement: {m:?}");
    link.close().await;
    vehicle.shutdown().await.unwrap();
}
