//! Test plumbing shared by hil's own link tests and the workspace's loopback tests (feature
//! `test-support`, never enabled by the runtime): socat pty pairs, loopback addresses, and
//! waits on telemetry. Panics are how a test fails, so this module may panic.
#![allow(clippy::unwrap_used)]

use crate::HilLink;
use alpha3_core::command::Command;
use alpha3_core::config::Address;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::VehicleLink;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A free UDP port on loopback (bound and released: fine for tests).
pub fn free_udp_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    s.local_addr().unwrap().port()
}

pub fn addr(s: &str) -> Address {
    Address::parse(s).unwrap()
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

/// Arms, takes off to `altitude_m` and waits (`timeout`) until the vehicle is within 0.3 m of
/// it: the opening of every flight test.
pub async fn take_off(link: &mut HilLink, altitude_m: f64, timeout: Duration) -> VehicleSnapshot {
    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "arm: {armed:?}");
    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m })
        .await
        .unwrap();
    assert!(up.accepted, "take-off: {up:?}");
    wait_for(link, &format!("{altitude_m} m"), timeout, |s| {
        (s.position.z - altitude_m).abs() < 0.3
    })
    .await
}

static PTY_COUNTER: AtomicU32 = AtomicU32::new(0);

/// Two linked ptys at `a` and `b`, made by `socat` (installed by scripts/setup.sh): a fresh
/// pair per test, since unread bytes must not carry over. The paths are symlinks that survive
/// a new cable ([`PtyPair::plug`]).
#[derive(Debug)]
pub struct PtyPair {
    child: Option<Child>,
    dir: PathBuf,
    pub a: PathBuf,
    pub b: PathBuf,
}

impl Default for PtyPair {
    fn default() -> Self {
        Self::new()
    }
}

impl PtyPair {
    pub fn new() -> Self {
        let n = PTY_COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("alpha3-pty-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut pair = Self {
            child: None,
            a: dir.join("a"),
            b: dir.join("b"),
            dir,
        };
        pair.spawn();
        pair
    }

    fn spawn(&mut self) {
        let _ = std::fs::remove_file(&self.a);
        let _ = std::fs::remove_file(&self.b);
        let end = |p: &PathBuf| format!("pty,raw,echo=0,link={}", p.display());
        let child = std::process::Command::new("socat")
            .arg(end(&self.a))
            .arg(end(&self.b))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat is installed by scripts/setup.sh");
        self.child = Some(child);
        let start = Instant::now();
        while !(self.a.exists() && self.b.exists()) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "socat made no ptys"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The cable is pulled (both ends vanish).
    pub fn unplug(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A new cable: new ptys behind the same paths.
    pub fn plug(&mut self) {
        self.unplug();
        self.spawn();
    }

    pub fn serial_a(&self) -> String {
        format!("serial:{}:921600", self.a.display())
    }

    pub fn serial_b(&self) -> String {
        format!("serial:{}:921600", self.b.display())
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        self.unplug();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Flies to `target` (no gate: these tests fly the link itself) and waits (`timeout`) until
/// the vehicle is within 0.5 m of it and slower than 0.3 m/s.
pub async fn go_to(
    link: &mut HilLink,
    target: alpha3_core::frames::Enu,
    timeout: Duration,
) -> VehicleSnapshot {
    let go = link
        .execute_unchecked(&Command::GoTo {
            target,
            speed_mps: None,
        })
        .await
        .unwrap();
    assert!(go.accepted, "go to: {go:?}");
    wait_for(link, "arrival", timeout, |s| {
        s.position.distance(target) < 0.5 && s.ground_speed_mps() < 0.3
    })
    .await
}

/// Lands where the vehicle is and waits (`timeout`) for the autopilot's auto-disarm.
pub async fn land_and_disarm(link: &mut HilLink, timeout: Duration) -> VehicleSnapshot {
    let land = link
        .execute_unchecked(&Command::Land { site: None })
        .await
        .unwrap();
    assert!(land.accepted, "land: {land:?}");
    wait_for(link, "auto-disarm", timeout, |s| !s.armed).await
}
