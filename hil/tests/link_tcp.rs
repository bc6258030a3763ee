//! The link over TCP (`tcpout:`), as to a SITL or a telemetry bridge that listens.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::snapshot::LandedState;
use alpha3_hil::{ConnectOptions, HilLink};
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::flight::{take_off, wait_for};
use support::runner::Fake;
use support::{addr, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arm_takeoff_land_over_tcp() {
    // A free TCP port, found the same way as a UDP one.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let fake = Fake::start(
        addr(&format!("tcpin:127.0.0.1:{port}")),
        FakeConfig::default(),
        None,
    )
    .await;
    let options = ConnectOptions {
        ready_timeout_ms: 10_000,
        ..ConnectOptions::default()
    };
    let mut link = None;
    for _ in 0..50 {
        // The fake may not listen yet.
        match HilLink::connect_with(
            addr(&format!("tcpout:127.0.0.1:{port}")),
            test_config(),
            options.clone(),
        )
        .await
        {
            Ok(l) => {
                link = Some(l);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let mut link = link.unwrap();
    take_off(&mut link, 5.0).await;
    assert!(
        link.execute_unchecked(&Command::Land { site: None })
            .await
            .unwrap()
            .accepted
    );
    wait_for(&link, "landed", Duration::from_secs(10), |s| {
        s.landed == LandedState::OnGround
    })
    .await;
    assert_eq!(link.measurement().loss_pct, 0.0);
    link.close().await;
    fake.stop();
}
