//! `hil`'s ArduPilot profile flies the world through the endpoint as ArduCopter 4.7 SITL over
//! real UDP: nothing arrives until hil asks; every gate input stays "not yet reported" until
//! its stream comes; the wait for readiness times out quoting ArduPilot's own reasons while it
//! boots, then passes; arm (in GUIDED), take-off above home, DO_REPOSITION (COMMAND_INT), the
//! gate's cruise speed, hold in BRAKE, LAND and the auto-disarm.
#![allow(clippy::unwrap_used)]

mod loopback_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::FlightMode;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::param::ParamValue;
use alpha3_hil::testing::{go_to, land_and_disarm};
use alpha3_hil::{ConnectOptions, HilError, HilLink, Profile, wait_ready_to_fly};
use alpha3_sim::endpoint::{BootTiming, Endpoint, EndpointOptions, copter_mode};
use loopback_common::{addr, free_udp_port, ground_world, session_config, udp_to, wait_for};
use std::time::Duration;

const SECS: fn(u64) -> Duration = Duration::from_secs;

/// ArduCopter SITL's behaviour with a shorter boot: home at 2 s, ready at 6 s.
async fn copter(port: u16) -> Endpoint {
    let mut options = EndpointOptions::ardupilot_sitl(0);
    options.links[0].transport = udp_to(port);
    options.boot = BootTiming {
        heartbeat_ms: 300,
        home_ms: 2000,
        arm_ready_ms: 6000,
    };
    Endpoint::spawn(ground_world(1), options).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hil_waits_for_ardupilot_then_flies_it_in_guided() {
    let port = free_udp_port();
    let vehicle = copter(port).await;
    let mut cfg = session_config();
    cfg.cruise_speed_mps = Some(6.0);
    let mut link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        cfg,
        ConnectOptions {
            ready_timeout_ms: 15_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(link.status().profile, Some(Profile::ArduPilot));
    let report = link.preflight().unwrap();
    let reading = |name: &str| {
        report
            .readings
            .iter()
            .find(|r| r.name == name)
            .and_then(|r| r.value)
    };
    assert_eq!(reading("RTL_ALT"), Some(ParamValue::Int(1500)), "C cast");
    assert_eq!(report.return_altitude_m(), Some(15.0), "RTL_ALT is cm");
    assert_eq!(
        reading("MAV_GCS_SYSID"),
        Some(ParamValue::Int(255)),
        "4.7's name"
    );
    assert_eq!(reading("FS_GCS_ENABLE"), Some(ParamValue::Int(0)));

    // Home is there (connect waited for it), the EKF is not: a short wait fails and says why,
    // in ArduPilot's words.
    if vehicle.boot_ms() < 5000 {
        let early = wait_ready_to_fly(&link, Duration::from_millis(500)).await;
        let Err(HilError::NotReady { missing, .. }) = early else {
            panic!("ready before ArduPilot was: {early:?}")
        };
        assert!(missing.contains("ArduPilot not ready"), "{missing}");
        assert!(missing.contains("PreArm: "), "its own words: {missing}");
        assert!(
            missing.contains("EKF: no absolute horizontal position"),
            "{missing}"
        );
    }
    wait_ready_to_fly(&link, SECS(15)).await.unwrap();
    assert!(vehicle.boot_ms() >= 6000, "ready before ArduPilot was");
    let s = link.snapshot();
    assert!(s.unreported.is_empty(), "{:?}", s.unreported);
    assert!(s.gnss.fix.is_3d());

    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "{armed:?}");
    assert_eq!(
        link.snapshot().mode,
        FlightMode::Offboard,
        "armed in GUIDED"
    );
    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m: 8.0 })
        .await
        .unwrap();
    assert!(up.accepted, "{up:?}");
    wait_for(&link, "8 m", SECS(20), |s| (s.position.z - 8.0).abs() < 0.3).await;

    let here = link.snapshot().position;
    let target = Enu::new(here.x + 30.0, here.y, 10.0);
    go_to(&mut link, target, SECS(30)).await;
    vehicle.with_vehicle(|v| {
        assert_eq!(
            v.world().flight_controller().cruise_mps,
            6.0,
            "DO_CHANGE_SPEED"
        )
    });

    let hold = link.execute_unchecked(&Command::Hold).await.unwrap();
    assert!(hold.accepted, "{hold:?}");
    assert_eq!(link.snapshot().mode, FlightMode::Hold);
    assert_eq!(vehicle.status().links.len(), 1);
    let hb_mode = vehicle.with_vehicle(|v| {
        let alpha3_sim::endpoint::MavMessage::HEARTBEAT(hb) = v.heartbeat() else {
            unreachable!()
        };
        hb.custom_mode
    });
    assert_eq!(hb_mode, copter_mode::BRAKE, "hold is BRAKE, not LOITER");

    let s = land_and_disarm(&mut link, SECS(40)).await;
    assert!(!s.armed);
    link.close().await;
    vehicle.shutdown().await.unwrap();
}
