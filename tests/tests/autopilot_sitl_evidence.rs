//! The simulator check (`alpha3_hil::simulator`) against the real autopilots: PX4 SITL (SIH
//! quadrotor) and ArduPilot SITL (ArduCopter) each prove themselves simulators by the SITL-only
//! parameter the check reads. Each test starts its own autopilot on an instance whose ports
//! are free (never instance 0, which a developer's own SITL may hold), and stops exactly the
//! process it started. Without a build it skips with the reason, except in CI, where it fails.
#![allow(clippy::unwrap_used)]

use alpha3_hil::session::SessionConfig;
use alpha3_hil::simulator::{SimulatorCheck, SimulatorPolicy};
use alpha3_hil::testing::addr;
use alpha3_hil::{ConnectOptions, HilLink};
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn skip(why: &str) {
    alpha3_test_support::require_or_skip("autopilot SITL", why);
}

/// A build under `$VAR`, else `~/.cache/<dir>`, at `rel`.
fn build(var: &str, dir: &str, rel: &str) -> Option<PathBuf> {
    let home = std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join(dir)))?;
    let bin = home.join(rel);
    bin.is_file().then_some(bin)
}

fn udp_free(port: u16) -> bool {
    UdpSocket::bind(("127.0.0.1", port)).is_ok()
}

fn tcp_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// An autopilot process we started: killed (by its own pid) when dropped.
struct Autopilot {
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
    fn spawn(mut cmd: Command, dir: tempfile::TempDir) -> Option<Self> {
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

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// PX4 SITL (SIH quadrotor, airframe 10040) as instance N ≥ 20. Instance N's companion link
/// sends from 14580 + N (to 14549 for every N > 9, `px4-rc.mavlink`), and PX4 takes the first
/// loopback sender as its partner, so the companion talks `udpout` to 14580 + N.
fn start_px4(bin: &Path) -> Option<(Autopilot, u16)> {
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
fn start_ardupilot(bin: &Path, port: u16) -> Option<Autopilot> {
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

fn options() -> ConnectOptions {
    ConnectOptions {
        // Lockstep SITL under a loaded machine runs slower than wall time.
        ready_timeout_ms: 120_000,
        preflight: false,
        simulator: SimulatorPolicy::Require,
        ..ConnectOptions::default()
    }
}

async fn check(link: HilLink, evidence: &str, autopilot: &Autopilot) {
    let status = link.status();
    let values = link
        .read_params(vec![
            evidence.to_string(),
            "SYS_HITL".into(),
            "SYS_AUTOSTART".into(),
            "SIH_VEHICLE_TYPE".into(),
            "FORMAT_VERSION".into(),
        ])
        .await
        .unwrap();
    eprintln!("verdict: {:?}\nparameters: {values:?}", status.simulator);
    link.close().await;
    assert!(
        matches!(&status.simulator, SimulatorCheck::Simulated(r) if r.contains(evidence)),
        "{:?}\n{}",
        status.simulator,
        autopilot.log_text()
    );
    assert!(values.contains_key(evidence), "{values:?}");
    assert_eq!(status.foreign.count, 0, "{:?}", status.foreign);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn px4_sitl_proves_itself_a_simulator() {
    let Some(bin) = build(
        "PX4_SITL_HOME",
        "px4-sitl",
        "src/build/px4_sitl_default/bin/px4",
    ) else {
        return skip("no PX4 SITL build (bash ../shared/px4/build.sh)");
    };
    let Some((px4, port)) = start_px4(&bin) else {
        return skip("no free PX4 instance between 20 and 39");
    };
    let link = HilLink::connect_with(
        addr(&format!("udpout:127.0.0.1:{port}")),
        SessionConfig::default(),
        options(),
    )
    .await;
    let link = match link {
        Ok(l) => l,
        Err(e) => panic!("{e}\n{}", px4.log_text()),
    };
    check(link, "SIM_BAT_DRAIN", &px4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ardupilot_sitl_proves_itself_a_simulator() {
    let Some(bin) = build(
        "ARDUPILOT_SITL_HOME",
        "ardupilot-sitl",
        "src/build/sitl/bin/arducopter",
    ) else {
        return skip("no ArduPilot SITL build (bash ../shared/ardupilot/build.sh)");
    };
    let port = alpha3_hil::testing::free_udp_port();
    let Some(copter) = start_ardupilot(&bin, port) else {
        return skip("no free ArduPilot instance between -I5 and -I9");
    };
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        SessionConfig::default(),
        options(),
    )
    .await;
    let link = match link {
        Ok(l) => l,
        Err(e) => panic!("{e}\n{}", copter.log_text()),
    };
    check(link, "SIM_SPEEDUP", &copter).await;
}
