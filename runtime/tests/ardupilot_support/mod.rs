//! A fresh ArduCopter SITL for a test: the build `scripts/test.sh` makes with the ArduPilot SITL
//! source bundle's build script (`ardupilot/build.sh` in the shared folder) into
//! `${ARDUPILOT_SITL_HOME:-$HOME/.cache/ardupilot-sitl}`, started as this process's own child (SITL
//! exits when its parent dies, so the test keeps it alive by being alive), on its own instance
//! number, so its TCP ports (5760 + 10·I) and its companion UDP port do not collide with other
//! tests or with `start_sitl.sh` (instance 0). Absent build: the test fails under `CI=true` and
//! skips with a printed reason otherwise.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where build.sh installs the SITL.
pub fn sitl_home() -> PathBuf {
    match std::env::var_os("ARDUPILOT_SITL_HOME") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/ardupilot-sitl"),
    }
}

/// The arducopter binary and its defaults file, or why there are none. Under `CI=true` a
/// missing build is a failure: the test command builds it.
pub fn sitl_build() -> Option<(PathBuf, PathBuf)> {
    let home = sitl_home();
    let bin = home.join("src/build/sitl/bin/arducopter");
    let parm = home.join("src/Tools/autotest/default_params/copter.parm");
    if bin.is_file() && parm.is_file() {
        return Some((bin, parm));
    }
    let why = format!(
        "no ArduCopter SITL at {} (scripts/test.sh builds it with ../shared/ardupilot/build.sh)",
        bin.display()
    );
    alpha3_test_support::require_or_skip("ArduCopter SITL", &why);
    None
}

/// A running ArduCopter SITL, killed (by its own pid) when dropped.
pub struct Sitl {
    child: Child,
    pub instance: u8,
    pub udp_port: u16,
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

/// What to start.
#[derive(Debug, Clone)]
pub struct SitlOptions {
    /// SITL instance: TCP 5760 + 10·I (the other instance-bound ports move with it).
    pub instance: u8,
    /// Where SITL sends the companion link (SERIAL1, `udpclient`).
    pub udp_port: u16,
    /// lat,lon,alt AMSL,heading.
    pub home: String,
    pub speedup: u32,
    /// Parameters applied after copter.parm (as start_sitl.sh's AP_EXTRA_PARM).
    pub params: Vec<(&'static str, f64)>,
}

impl SitlOptions {
    pub fn new(instance: u8, udp_port: u16) -> Self {
        Self {
            instance,
            udp_port,
            home: "47.397742,8.545594,488,0".into(),
            speedup: 1,
            params: Vec::new(),
        }
    }
}

impl Sitl {
    /// Starts SITL with wiped parameters (`-w`: copter.parm's defaults), as `start_sitl.sh
    /// --clean` does, and returns once it is "ready": a HEARTBEAT on its TCP port.
    pub fn start(bin: &Path, defaults: &Path, o: &SitlOptions) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("arducopter.log");
        let out = std::fs::File::create(&log).unwrap();
        let mut defaults = defaults.display().to_string();
        if !o.params.is_empty() {
            let extra = dir.path().join("extra.parm");
            let text: String = o.params.iter().map(|(n, v)| format!("{n} {v}\n")).collect();
            std::fs::write(&extra, text).unwrap();
            defaults = format!("{defaults},{}", extra.display());
        }
        let child = Command::new(bin)
            .current_dir(dir.path())
            .args(["--model", "+", "--speedup", &o.speedup.to_string()])
            .args(["--home", &o.home])
            .args(["--defaults", &defaults])
            .args(["--sysid", "1", "--serial0", "tcp:0"])
            .args(["--serial1", &format!("udpclient:127.0.0.1:{}", o.udp_port)])
            .args(["-I", &o.instance.to_string(), "-w"])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut sitl = Self {
            child,
            instance: o.instance,
            udp_port: o.udp_port,
            log,
            _dir: dir,
        };
        sitl.wait_ready(Duration::from_secs(90));
        sitl
    }

    /// The TCP port of SERIAL0.
    pub fn tcp_port(&self) -> u16 {
        5760 + 10 * u16::from(self.instance)
    }

    /// Waits for a HEARTBEAT on TCP (as start_sitl.sh does before it prints "ready").
    fn wait_ready(&mut self, timeout: Duration) {
        let started = Instant::now();
        while started.elapsed() < timeout {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("arducopter exited ({status}): {}", self.log_tail());
            }
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.tcp_port())) {
                s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
                if heartbeat_on(&mut s) {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("SITL not ready in {timeout:?}: {}", self.log_tail());
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Sitl {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a HEARTBEAT frame comes in on `s` (MAVLink 1 or 2, message id 0).
fn heartbeat_on(s: &mut TcpStream) -> bool {
    let mut decoder = alpha3_hil::wire::Decoder::new();
    let mut buf = [0u8; 512];
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        let Ok(n) = s.read(&mut buf) else {
            return false;
        };
        if n == 0 {
            return false;
        }
        decoder.push(&buf[..n]);
        while let Some(frame) = decoder.next(0) {
            if let Ok(f) = frame
                && matches!(f.message, alpha3_hil::dialect::MavMessage::HEARTBEAT(_))
            {
                return true;
            }
        }
    }
    false
}

/// Uploads `(kind, file)` lists with mavwp over SITL's TCP port.
pub fn mavwp(py: &Path, sitl: &Sitl, lists: &[(&str, &Path)]) -> String {
    let mut cmd = Command::new(py);
    cmd.arg(alpha3_test_support::root().join("tests/py/mavwp_plan.py"))
        .arg(format!("tcp:127.0.0.1:{}", sitl.tcp_port()));
    for (kind, file) in lists {
        cmd.arg(kind).arg(file);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "mavwp_plan.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
