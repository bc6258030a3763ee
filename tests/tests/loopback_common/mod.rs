//! Shared by the loopback, impairment and sim-vehicle tests: a ground-start world, an endpoint
//! on a given transport, hil session settings, socat pty pairs, the project's Python, waits.
#![allow(dead_code)]

use alpha3_core::config::Address;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::HilLink;
use alpha3_hil::session::SessionConfig;
use alpha3_sim::endpoint::{Endpoint, EndpointOptions, EndpointTransport, Impairment, LinkOptions};
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Suite scenario 0 with the vehicle on the ground below its spawn point, perfect sensors.
pub fn ground_world(seed: u64) -> World {
    let mut s = suite_scenario(0);
    s.spawn.xyz[2] = 0.0;
    World::new(
        s,
        WorldOptions {
            sensor_noise: false,
            ..WorldOptions::seeded(seed)
        },
    )
}

/// A free UDP port on loopback (bound and released: fine for tests).
pub fn free_udp_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    s.local_addr().unwrap().port()
}

pub fn addr(s: &str) -> Address {
    Address::parse(s).unwrap()
}

/// The vehicle on `transport` with PX4's boot timing.
pub async fn endpoint(
    transport: EndpointTransport,
    impairment: Impairment,
    rate_scale: f64,
) -> Endpoint {
    let mut link = LinkOptions::onboard(transport);
    link.impairment = impairment;
    link.rate_scale = rate_scale;
    Endpoint::spawn(ground_world(1), EndpointOptions::single(0, link))
        .await
        .unwrap()
}

/// The vehicle sending from an ephemeral port to a companion on `udpin:127.0.0.1:port`.
pub fn udp_to(port: u16) -> EndpointTransport {
    EndpointTransport::Udp {
        bind: "127.0.0.1:0".parse().unwrap(),
        remote: Some(format!("127.0.0.1:{port}").parse().unwrap()),
    }
}

/// hil settings for a PX4 SITL-like autopilot (arming refused for ~4 s after boot).
pub fn session_config() -> SessionConfig {
    SessionConfig {
        arm_ready_ms: 12_000,
        arm_interval_ms: 500,
        ..SessionConfig::default()
    }
}

/// Waits until the snapshot satisfies `done`, or panics with the last snapshot.
pub async fn wait_for(
    link: &HilLink,
    what: &str,
    timeout: Duration,
    done: impl Fn(&VehicleSnapshot) -> bool,
) -> VehicleSnapshot {
    let start = tokio::time::Instant::now();
    loop {
        let s = link.snapshot();
        if done(&s) {
            return s;
        }
        assert!(
            start.elapsed() < timeout,
            "timed out waiting for {what}: {s:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The project's Python with pymavlink (scripts/setup.sh makes it), if there is one.
pub fn python() -> Option<PathBuf> {
    let p = std::env::var_os("ALPHA3_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python"));
    p.exists().then_some(p)
}

pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("py")
        .join(name)
}

static PTY_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Two linked ptys at `a` and `b`, made by `socat` (installed by scripts/setup.sh).
#[derive(Debug)]
pub struct PtyPair {
    child: Child,
    dir: PathBuf,
    pub a: PathBuf,
    pub b: PathBuf,
}

impl PtyPair {
    pub fn new() -> Self {
        let n = PTY_COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("alpha3-loopback-pty-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("b"));
        let end = |p: &PathBuf| format!("pty,raw,echo=0,link={}", p.display());
        let child = Command::new("socat")
            .arg(end(&a))
            .arg(end(&b))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat is installed by scripts/setup.sh");
        let start = Instant::now();
        while !(a.exists() && b.exists()) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "socat made no ptys"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Self { child, dir, a, b }
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
