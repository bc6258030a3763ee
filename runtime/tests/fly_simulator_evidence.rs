//! Issue 15, item 2: "only a local SITL" used to be decided once, by address — so a real
//! autopilot behind a forwarder on 127.0.0.1 (mavlink-router, the usual companion set-up)
//! counted as simulated. Now the autopilot has to say so itself (a parameter only a SITL build
//! has: `alpha3_hil::simulator`), at connect and again whenever it comes back.
//!
//! The "flight build" here is the built-in world's PX4-like endpoint without its `SIM_*`
//! parameters, as a PX4 on a flight controller answers.
#![allow(clippy::unwrap_used)]

mod sitl_support;

use alpha3_core::record::Event;
use alpha3_hil::dialect::{MavMessage, Message, mav};
use alpha3_hil::wire::Decoder;
use alpha3_sim::endpoint::Endpoint;
use sitl_support::*;
use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Takes the simulator's evidence away: the endpoint now answers as a PX4 flight build.
fn as_flight_build(vehicle: &Endpoint) {
    assert!(vehicle.with_vehicle(|v| v.params_mut().remove("SIM_BAT_DRAIN")));
}

/// Flight commands the companion sent through a [`forwarder`], by name (telemetry requests
/// and the PARAM and TIMESYNC services are not flight commands).
type Relayed = Arc<Mutex<BTreeMap<String, u64>>>;

fn flight_command(m: &MavMessage) -> Option<String> {
    use mav::MavCmd::{MAV_CMD_REQUEST_MESSAGE, MAV_CMD_SET_MESSAGE_INTERVAL};
    let asks = |c: mav::MavCmd| matches!(c, MAV_CMD_SET_MESSAGE_INTERVAL | MAV_CMD_REQUEST_MESSAGE);
    match m {
        MavMessage::COMMAND_LONG(c) if asks(c.command) => None,
        MavMessage::COMMAND_LONG(c) => Some(format!("{:?}", c.command)),
        MavMessage::COMMAND_INT(c) => Some(format!("{:?}", c.command)),
        MavMessage::SET_POSITION_TARGET_LOCAL_NED(_)
        | MavMessage::SET_POSITION_TARGET_GLOBAL_INT(_) => Some(m.message_name().to_string()),
        _ => None,
    }
}

/// mavlink-router in miniature on 127.0.0.1: relays datagrams between the autopilot (whoever
/// is not the companion) and the companion, counting the flight commands it relays to the
/// autopilot. Returns its address.
fn forwarder(companion: SocketAddr, stop: Arc<AtomicBool>) -> (SocketAddr, Relayed) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let addr = socket.local_addr().unwrap();
    let relayed = Relayed::default();
    let counts = relayed.clone();
    std::thread::spawn(move || {
        let mut autopilot: Option<SocketAddr> = None;
        let mut buf = [0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            let Ok((n, from)) = socket.recv_from(&mut buf) else {
                continue;
            };
            let to = if from == companion {
                let mut decoder = Decoder::new();
                decoder.push(&buf[..n]);
                while let Some(Ok(f)) = decoder.next(0) {
                    if let Some(name) = flight_command(&f.message) {
                        *counts.lock().unwrap().entry(name).or_default() += 1;
                    }
                }
                autopilot
            } else {
                autopilot = Some(from);
                Some(companion)
            };
            if let Some(to) = to {
                let _ = socket.send_to(&buf[..n], to);
            }
        }
    });
    (addr, relayed)
}

fn spawn_fly(config: &Path, scenario: &Path, out: &Path) -> Child {
    alpha3()
        .args(["fly", "--config"])
        .arg(config)
        .arg("--scenario")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args([
            "--no-stdin",
            "--ready-timeout-s",
            "20",
            "--episode-id",
            "ep",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flight_controller_behind_a_loopback_forwarder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let stop = Arc::new(AtomicBool::new(false));
    let (router, relayed) = forwarder(format!("127.0.0.1:{port}").parse().unwrap(), stop.clone());
    let vehicle = vehicle_to(router, 1).await;
    as_flight_build(&vehicle);
    let child = spawn_fly(&config, &scenario, &out);
    let (code, err) = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    vehicle.shutdown().await.unwrap();
    let relayed = relayed.lock().unwrap().clone();
    eprintln!("fly exited {code}; flight commands to the flight build: {relayed:?}\n{err}");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("refusing to fly"), "{err}");
    assert!(err.contains("no SIM_BAT_DRAIN parameter"), "{err}");
    assert!(err.contains("--allow-real-vehicle"), "{err}");
    assert!(relayed.is_empty(), "{relayed:?}");
    let records = out.join("records");
    assert!(
        !records.exists() || std::fs::read_dir(&records).unwrap().next().is_none(),
        "no record was started"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_autopilot_that_comes_back_as_a_flight_build_ends_the_flight() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let record = out.join("records/ep.jsonl");
    let sitl = vehicle(port, 1).await;
    let mut child = spawn_fly(&config, &scenario, &out);
    // Proven a simulator at connect ("… on this machine").
    let (verdict, reader) = read_stderr(&mut child, |l| l.contains("on this machine"));
    tokio::task::spawn_blocking(move || verdict.recv_timeout(Duration::from_secs(120)))
        .await
        .unwrap()
        .expect("fly never judged the autopilot");
    // Then the autopilot reboots — from a new port (behind a forwarder that counts what it
    // is sent), as another firmware.
    sitl.shutdown().await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (router, relayed) = forwarder(format!("127.0.0.1:{port}").parse().unwrap(), stop.clone());
    let board = vehicle_to(router, 1).await;
    as_flight_build(&board);
    let code = tokio::task::spawn_blocking(move || child.wait().unwrap().code().unwrap_or(-1))
        .await
        .unwrap();
    let err = reader.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    board.shutdown().await.unwrap();
    let relayed = relayed.lock().unwrap().clone();
    eprintln!("fly exited {code}; flight commands to the flight build: {relayed:?}\n{err}");
    assert!(relayed.is_empty(), "{relayed:?}");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("refusing to fly: after the autopilot came back"),
        "{err}"
    );
    assert!(err.contains("no SIM_BAT_DRAIN parameter"), "{err}");
    let events = events(&record);
    let Some(Event::Header { config, .. }) = events.first() else {
        panic!("no header")
    };
    assert_eq!(config["vehicle_link"]["simulated"], true, "{config}");
    let end = events.iter().rev().find_map(|e| match e {
        Event::Termination { reason, .. } => Some(reason.clone()),
        _ => None,
    });
    assert_eq!(end.as_deref(), Some("vehicle_refused"));
}
