//! The real-vehicle gate of `alpha3 fly`: a flight controller that is not provably a simulator
//! on this machine is refused unless `--allow-real-vehicle` is given — a serial port before
//! anything is opened, a UDP autopilot talking from a non-loopback address once it is heard —
//! and a link other machines can reach is refused unsigned unless `--allow-unsigned` is given.
#![allow(clippy::unwrap_used)]

mod sitl_support;

use alpha3_sim::endpoint::{BootTiming, Endpoint, EndpointOptions, EndpointTransport, LinkOptions};
use alpha3_sim::{World, WorldOptions};
use sitl_support::*;
use std::net::IpAddr;

fn fly(dir: &std::path::Path, connect: &str, allow: &[&str]) -> (i32, String) {
    let config = write_config(dir, 9, "");
    let scenario = write_scenario(dir);
    let mut cmd = alpha3();
    cmd.args(["fly", "--config"])
        .arg(&config)
        .arg("--scenario")
        .arg(&scenario)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--connect", connect, "--no-stdin", "--ready-timeout-s", "3"]);
    cmd.args(allow);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_serial_flight_controller_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let port = dir.path().join("ttyNOPE");
    let serial = format!("serial:{}:57600", port.display());
    let (code, err) = fly(dir.path(), &serial, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("refusing to fly") && err.contains("serial port"),
        "{err}"
    );
    assert!(err.contains("--allow-real-vehicle"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing was started");
    // A real vehicle allowed, an unsigned radio link is not.
    let (code, err) = fly(dir.path(), &serial, &["--allow-real-vehicle"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("refusing to fly") && err.contains("not signed"),
        "{err}"
    );
    assert!(err.contains("--allow-unsigned"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing was started");
    // Both allowed, it gets as far as opening the (missing) port.
    let (code, err) = fly(
        dir.path(),
        &serial,
        &["--allow-real-vehicle", "--allow-unsigned"],
    );
    assert_eq!(code, 3, "{err}");
    assert!(!err.contains("refusing to fly"), "{err}");
}

/// A non-loopback address of this machine, if it has one.
fn lan_address() -> Option<IpAddr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("10.255.255.254:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_autopilot_talking_from_another_address_is_refused_once_heard() {
    let Some(lan) = lan_address() else {
        eprintln!("skipped: this machine has no non-loopback address");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let scenario = alpha3_sim::scenario::parse_scenario(&short_scenario().to_string()).unwrap();
    let link = LinkOptions::onboard(EndpointTransport::Udp {
        bind: (lan, 0).into(),
        remote: Some((lan, port).into()),
    });
    let mut options = EndpointOptions::single(0, link);
    options.boot = BootTiming {
        heartbeat_ms: 100,
        home_ms: 200,
        arm_ready_ms: 300,
    };
    let vehicle = Endpoint::spawn(World::new(scenario, WorldOptions::seeded(1)), options)
        .await
        .unwrap();
    let d = dir.path().to_path_buf();
    let (code, err) = tokio::task::spawn_blocking(move || {
        fly(&d, &format!("udpin:0.0.0.0:{port}"), &["--allow-unsigned"])
    })
    .await
    .unwrap();
    vehicle.shutdown().await.unwrap();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("refusing to fly"), "{err}");
    // It says it is a SITL, but not one on this machine.
    assert!(err.contains("SIM_BAT_DRAIN"), "{err}");
    assert!(err.contains("not this machine"), "{err}");
    let records = dir.path().join("out/records");
    assert!(
        !records.exists() || std::fs::read_dir(&records).unwrap().next().is_none(),
        "no record was started"
    );
}

#[test]
fn an_unsigned_link_open_to_the_network_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let (code, err) = fly(dir.path(), &format!("udpin:0.0.0.0:{port}"), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("refusing to fly") && err.contains("not signed"),
        "{err}"
    );
    assert!(err.contains("--allow-unsigned"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing was started");
}
