//! Real autopilots for the end-to-end tests: PX4 SITL and ArduPilot SITL started on free
//! instances (never instance 0, which a developer's own SITL may hold), each stopped exactly as
//! the process this test started. Without a build a test skips with the reason, except in CI.
#![allow(dead_code)]

use alpha3_hil::ConnectOptions;
use alpha3_hil::simulator::SimulatorPolicy;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub fn skip(why: &str) {
    alpha3_test_support::require_or_skip("autopilot SITL", why);
}

/// A build under `$VAR`, else `~/.cache/<dir>`, at `rel`.
pub fn build(var: &str, dir: &str, rel: &str) -> Option<PathBuf> {
    let home = std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join(dir)))?;
    let bin = home.join(rel);
    bin.is_file().then_some(bin)
}

pub fn udp_free(port: u16) -> bool {
    UdpSocket::bind(("127.0.0.1", port)).is_ok()
}

pub fn tcp_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// An autopilot process we started: killed (by its own pid) when dropped.
pub struct Autopilot {
    child: Child,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Autopilot {
    /// SIGTERM first (PX4 then removes its instance lock), SIGKILL if it lingers.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Autopilot {
    pub fn spawn(mut cmd: Command, dir: tempfile::TempDir) -> Option<Self> {
        let log = dir.path().join("autopilot.log");
        let file = std::fs::File::create(&log).unwrap();
        let child = cmd
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let mut a = Self {
            child,
            log,
            _dir: dir,
        };
        // One that finds its instance taken exits at once.
        std::thread::sleep(Duration::from_millis(1500));
        match a.child.try_wait() {
            Ok(None) => Some(a),
            _ => {
                eprintln!("autopilot exited at start:\n{}", a.log_text());
                None
            }
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// PX4 SITL (SIH quadrotor, airframe 10040) as instance N ≥ 20. Instance N's companion link
/// sends from 14580 + N (to 14549 for every N > 9, `px4-rc.mavlink`), and PX4 takes the first
/// loopback sender as its partner, so the companion talks `udpout` to 14580 + N.
pub fn start_px4(bin: &Path) -> Option<(Autopilot, u16)> {
    let etc = bin.parent()?.parent()?.join("etc");
    for instance in 20u16..40 {
        let port = 14580 + instance;
        if !udp_free(port) || !udp_free(18570 + instance) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(bin);
        cmd.env("PX4_SIM_MODEL", "sihsim_quadx")
            .arg("-i")
            .arg(instance.to_string())
            .arg("-d")
            .arg("-w")
            .arg(dir.path())
            .arg(&etc);
        if let Some(a) = Autopilot::spawn(cmd, dir) {
            return Some((a, port));
        }
    }
    None
}

/// ArduCopter SITL as instance `-I N` (N ≥ 5: TCP 5760 + 10 N free), its companion link a
/// UDP client toward `port`, where the test listens. The test process stays its parent (SITL
/// exits when its parent does).
pub fn start_ardupilot(bin: &Path, port: u16) -> Option<Autopilot> {
    let src = bin.parent()?.parent()?.parent()?.parent()?;
    let defaults = src.join("Tools/autotest/default_params/copter.parm");
    for instance in 5u16..10 {
        if !tcp_free(5760 + 10 * instance) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(bin);
        cmd.args(["--model", "+", "--speedup", "1"])
            .args(["--home", "47.397742,8.545594,488,0", "--sysid", "1"])
            .arg("--defaults")
            .arg(&defaults)
            .args(["--serial0", "tcp:0", "--serial1"])
            .arg(format!("udpclient:127.0.0.1:{port}"))
            .arg(format!("-I{instance}"))
            .arg("-w");
        if let Some(a) = Autopilot::spawn(cmd, dir) {
            return Some(a);
        }
    }
    None
}

pub fn options() -> ConnectOptions {
    ConnectOptions {
        // Lockstep SITL under a loaded machine runs slower than wall time.
        ready_timeout_ms: 120_000,
        preflight: false,
        simulator: SimulatorPolicy::Require,
        ..ConnectOptions::default()
    }
}
