//! The same flight over a serial line: a socat pty pair, the endpoint on one end
//! (tokio-serial), `hil` on the other — as a companion wired to a flight controller's TELEM port.
#![allow(clippy::unwrap_used)]

mod loopback_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_hil::testing::{go_to, land_and_disarm};
use alpha3_hil::{ConnectOptions, HilLink, Profile};
use alpha3_sim::endpoint::{EndpointTransport, Impairment};
use loopback_common::{PtyPair, addr, endpoint, session_config, wait_for};
use std::time::Duration;

const SECS: fn(u64) -> Duration = Duration::from_secs;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hil_flies_arm_takeoff_reposition_land_over_a_serial_pty() {
    let pty = PtyPair::new();
    let vehicle = endpoint(
        EndpointTransport::Serial {
            path: pty.b.display().to_string(),
            baud: 921_600,
        },
        Impairment::None,
        1.0,
    )
    .await;
    let mut link = HilLink::connect_with(
        addr(&format!("serial:{}:921600", pty.a.display())),
        session_config(),
        ConnectOptions {
            ready_timeout_ms: 15_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(link.status().profile, Some(Profile::Px4));
    assert!(
        link.preflight()
            .is_some_and(|r| r.readings.iter().all(|r| r.value.is_some()))
    );

    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "{armed:?}");
    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m: 4.0 })
        .await
        .unwrap();
    assert!(up.accepted, "{up:?}");
    wait_for(&link, "4 m", SECS(20), |s| {
        (s.position.z - 4.0).abs() < 0.3 && s.mode == FlightMode::Hold
    })
    .await;

    let target = Enu::new(-6.0, 5.0, 4.0);
    go_to(&mut link, target, SECS(30)).await;

    let s = land_and_disarm(&mut link, SECS(40)).await;
    assert_eq!(s.landed, LandedState::OnGround);

    let m = link.measurement();
    assert_eq!(m.loss_pct, 0.0, "a pty loses nothing: {m:?}");
    assert!(m.rtt_ms.is_some(), "{m:?}");
    assert!(m.rx_msgs_per_s > 40.0, "the streams as asked for: {m:?}");
    eprintln!("measurement: {m:?}");
    let counters = vehicle.status().links[0];
    assert!(
        counters.rx_frames > 0 && counters.tx_frames > 1000,
        "{counters:?}"
    );
    link.close().await;
    vehicle.shutdown().await.unwrap();
}
