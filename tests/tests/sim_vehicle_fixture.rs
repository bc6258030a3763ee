//! Records the codec fixture `hil/tests/fixtures/px4_stream.bin` from the PX4-like endpoint:
//! what the vehicle sends a companion, captured on the wire by a UDP relay between the two,
//! while `hil` arms, takes off and flies. Ignored by default (it rewrites the fixture):
//!
//! `cargo test -p alpha3-tests --test sim_vehicle_fixture -- --ignored`
#![allow(clippy::unwrap_used)]

mod loopback_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_hil::wire::Decoder;
use alpha3_hil::{ConnectOptions, HilLink};
use alpha3_sim::endpoint::{Endpoint, EndpointOptions, LinkOptions};
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use loopback_common::{addr, free_udp_port, session_config, udp_to};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::UdpSocket;

/// Seconds of stream in the fixture.
const RECORD_S: u64 = 12;

/// Relays datagrams between the vehicle and the companion; records the vehicle's while on.
async fn relay(
    socket: UdpSocket,
    companion: SocketAddr,
    recording: Arc<AtomicBool>,
    recorded: Arc<Mutex<Vec<u8>>>,
) {
    let mut buf = vec![0u8; 65_536];
    let mut vehicle: Option<SocketAddr> = None;
    loop {
        let Ok((n, from)) = socket.recv_from(&mut buf).await else {
            continue;
        };
        if from == companion {
            if let Some(v) = vehicle {
                let _ = socket.send_to(&buf[..n], v).await;
            }
            continue;
        }
        vehicle = Some(from);
        if recording.load(Ordering::Relaxed) {
            recorded.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        let _ = socket.send_to(&buf[..n], companion).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "rewrites hil/tests/fixtures/px4_stream.bin"]
async fn record_the_px4_stream_fixture_from_the_endpoint() {
    let port = free_udp_port();
    let companion: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let tap = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let tap_addr = tap.local_addr().unwrap();
    let recording = Arc::new(AtomicBool::new(false));
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let relay_task = tokio::spawn(relay(tap, companion, recording.clone(), recorded.clone()));

    // Suite scenario 0 on the ground, with its wind and sensor noise, seed 7.
    let mut scenario = suite_scenario(0);
    scenario.spawn.xyz[2] = 0.0;
    let world = World::new(scenario, WorldOptions::seeded(7));
    let vehicle = Endpoint::spawn(
        world,
        EndpointOptions::single(0, LinkOptions::onboard(udp_to(tap_addr.port()))),
    )
    .await
    .unwrap();
    let mut link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        session_config(),
        ConnectOptions {
            ready_timeout_ms: 15_000,
            preflight: false,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    recording.store(true, Ordering::SeqCst);
    let flight = async {
        link.execute_unchecked(&Command::Arm).await.unwrap();
        link.execute_unchecked(&Command::Takeoff { altitude_m: 10.0 })
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(4)).await;
        link.execute_unchecked(&Command::GoTo {
            target: Enu::new(20.0, 20.0, 10.0),
            speed_mps: None,
        })
        .await
        .unwrap();
    };
    let _ = tokio::join!(flight, tokio::time::sleep(Duration::from_secs(RECORD_S)));
    recording.store(false, Ordering::SeqCst);
    let bytes = recorded.lock().unwrap().clone();
    let mut dec = Decoder::new();
    dec.push(&bytes);
    let frames = std::iter::from_fn(|| dec.next(0)).count();
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hil/tests/fixtures/px4_stream.bin");
    std::fs::write(&path, &bytes).unwrap();
    eprintln!(
        "recorded {} bytes, {frames} frames to {}",
        bytes.len(),
        path.display()
    );
    link.close().await;
    vehicle.shutdown().await.unwrap();
    relay_task.abort();
}
