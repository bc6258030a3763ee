//! Issue 15, item 1: a stranger on the network could take over `fly`'s vehicle link. The link
//! used to send to whoever last sent it one valid frame (on udpin), and fed anyone's telemetry
//! to the agent. Here `fly` listens on loopback for the built-in world as a PX4-like vehicle;
//! once connected, a second sender on 127.0.0.2 sends valid PX4 heartbeats and a made-up
//! position as the same system and component. The link stays bound to the autopilot it heard
//! first: the stranger receives nothing, its position never reaches the record, and `fly`
//! counts its frames.
#![allow(clippy::unwrap_used)]

mod sitl_support;

use alpha3_core::record::Event;
use alpha3_hil::dialect::{MavMessage, Message, mav};
use alpha3_hil::wire::{Decoder, Encoder};
use sitl_support::*;
use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What the stranger sent and heard.
#[derive(Debug, Default)]
struct Heard {
    sent: u64,
    frames: BTreeMap<String, u64>,
}

/// A second MAVLink sender on 127.0.0.2 posing as system 1, component 1 (PX4's): a heartbeat
/// and a position 5 km up at (0°, 0°) every 20 ms, until `stop`. Counts what it receives.
fn stranger(target: SocketAddr, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Heard> {
    let socket = UdpSocket::bind("127.0.0.2:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    std::thread::spawn(move || {
        let mut encoder = Encoder::new(1, None);
        let mut decoder = Decoder::new();
        let mut heard = Heard::default();
        let heartbeat = MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
            custom_mode: 0,
            mavtype: mav::MavType::MAV_TYPE_QUADROTOR,
            autopilot: mav::MavAutopilot::MAV_AUTOPILOT_PX4,
            base_mode: mav::MavModeFlag::empty(),
            system_status: mav::MavState::MAV_STATE_STANDBY,
            mavlink_version: 3,
        });
        let position = MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
            alt: 5_000_000,
            relative_alt: 4_500_000,
            hdg: u16::MAX,
            ..Default::default()
        });
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            for m in [&heartbeat, &position] {
                let mut frame = Vec::new();
                encoder.encode(1, m, 0, &mut frame);
                if socket.send_to(&frame, target).is_ok() {
                    heard.sent += 1;
                }
            }
            while let Ok((n, _)) = socket.recv_from(&mut buf) {
                decoder.push(&buf[..n]);
                while let Some(Ok(f)) = decoder.next(0) {
                    *heard
                        .frames
                        .entry(f.message.message_name().to_string())
                        .or_default() += 1;
                }
            }
        }
        heard
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sender_on_loopback_neither_gets_commands_nor_feeds_telemetry() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let vehicle = vehicle(port, 1).await;
    let mut child = alpha3()
        .args(["fly", "--config"])
        .arg(&config)
        .arg("--scenario")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
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
        .unwrap();
    // Once the link is bound to the autopilot (its verdict: "… on this machine"), the stranger
    // starts. Before any autopilot was heard, whoever sends the first heartbeat is taken for it;
    // only signing tells them apart, which is why `fly` requires it off loopback.
    let (bound, reader) = read_stderr(&mut child, |l| l.contains("on this machine"));
    tokio::task::spawn_blocking(move || bound.recv_timeout(Duration::from_secs(120)))
        .await
        .unwrap()
        .expect("fly never connected");
    let stop = Arc::new(AtomicBool::new(false));
    let intruder = stranger(format!("127.0.0.1:{port}").parse().unwrap(), stop.clone());
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    let heard = intruder.join().unwrap();
    vehicle.shutdown().await.unwrap();
    let err = reader.join().unwrap();

    let events = events(&out.join("records/ep.jsonl"));
    let truths: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Truth { position, .. } => Some(*position),
            _ => None,
        })
        .collect();
    let faked = truths
        .iter()
        .filter(|p| p.z > 1_000.0 || p.x.hypot(p.y) > 10_000.0)
        .count();
    eprintln!(
        "stranger sent {} frames, received {:?}; {faked} of {} truth samples show its position; {}",
        heard.sent,
        heard.frames,
        truths.len(),
        err.lines().rfind(|l| l.contains("dropped")).unwrap_or("")
    );
    assert!(heard.sent > 100, "the stranger sent {}", heard.sent);
    assert!(
        heard.frames.is_empty(),
        "frames meant for the vehicle went to the stranger: {:?}\n{err}",
        heard.frames
    );
    assert!(!truths.is_empty(), "{err}");
    assert_eq!(faked, 0, "the stranger's position reached the agent\n{err}");
    assert!(status.success(), "{err}");
    assert!(
        err.contains("frames from others than the autopilot dropped"),
        "{err}"
    );
    assert!(err.contains("127.0.0.2"), "{err}");
}
