//! Starting and stopping a real PX4 SITL (SIH quadrotor, headless) for `alpha3 sitl --px4`.
//!
//! The install is what the PX4 source bundle's build script leaves (`px4/build.sh DEST` in the
//! shared folder next to the project; `scripts/px4-sitl.sh` calls it): the `px4` binary and
//! its `etc/` under `DEST/src/build/px4_sitl_default`. Each instance `k`
//! runs in its own working directory with its parameters and mission store wiped first, so
//! every episode starts from a fresh boot: on the ground at PX4's home, disarmed, battery full.
//! `PX4_SIM_SPEED_FACTOR` runs it in lockstep faster than real time; the episode follows its
//! clock ([`alpha3_hil::vehicle_clock`]).

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// PX4's SIH quadrotor airframe (`sihsim_quadx`, SYS_AUTOSTART 10040).
const SIH_MODEL: &str = "sihsim_quadx";
/// PX4 instances above 9 share the companion port 14549; we keep to ten distinct ports.
pub const MAX_INSTANCES: u8 = 10;
/// How long PX4 gets to exit on SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum Px4Error {
    #[error(
        "no PX4 SITL build at {0} (expected src/build/px4_sitl_default/bin/px4; build it with scripts/px4-sitl.sh)"
    )]
    NotBuilt(PathBuf),
    #[error("PX4 instance {instance}: {what}: {source}")]
    Io {
        instance: u8,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("PX4 instance {0} is out of range (0..{MAX_INSTANCES})")]
    Instance(u8),
    #[error("PX4 instance {instance} exited at start (status {status}); its log: {log}")]
    Exited {
        instance: u8,
        status: String,
        log: PathBuf,
    },
}

/// A built PX4 SITL.
#[derive(Debug, Clone)]
pub struct Px4Install {
    bin: PathBuf,
    etc: PathBuf,
}

impl Px4Install {
    /// The install at `dir` (build.sh's DEST).
    pub fn at(dir: &Path) -> Result<Self, Px4Error> {
        let build = dir.join("src/build/px4_sitl_default");
        let bin = build.join("bin/px4");
        let etc = build.join("etc");
        if !bin.is_file() || !etc.is_dir() {
            return Err(Px4Error::NotBuilt(dir.to_path_buf()));
        }
        Ok(Self { bin, etc })
    }
}

/// How to start one instance.
#[derive(Debug, Clone)]
pub struct Px4Options {
    pub instance: u8,
    /// Simulated seconds per real second (lockstep); 1 is real time.
    pub speed_factor: f64,
    /// Working directory (parameters, mission store, logs, `px4.log`).
    pub run_dir: PathBuf,
    /// `PX4_PARAM_<NAME>` values applied at start, as PX4's rcS does.
    pub params: Vec<(String, String)>,
}

/// PX4 parameters that make the SIH quadrotor fly like the scenario's vehicle, as the gate
/// and the built-in world assume it flies: cruise and top speed, climb, descent and landing
/// speeds, and the return altitude. Without them PX4 repositions at its own 5 m/s cruise and
/// climbs at 1.5 m/s, and a mission timed for the scenario's airframe runs out of time.
pub fn airframe_params(
    vehicle: &alpha3_core::config::VehicleProfile,
    limits: &alpha3_core::config::Limits,
) -> Vec<(String, String)> {
    let descent = vehicle.max_descent_mps;
    let land = alpha3_core::gate::autopilot::land_speed_mps(descent);
    // Each clamped into the range PX4 accepts for it.
    let p = |name: &str, value: f64, lo: f64, hi: f64| {
        (name.to_string(), format!("{:.2}", value.clamp(lo, hi)))
    };
    vec![
        p("MPC_XY_CRUISE", vehicle.cruise_speed_mps, 3.0, 20.0),
        p("MPC_XY_VEL_MAX", vehicle.max_speed_mps, 0.0, 20.0),
        p("MPC_ACC_HOR", vehicle.max_accel_mps2, 2.0, 15.0),
        // The built-in world and the gate's path model have no jerk limit; PX4's default
        // (4 m/s³) stretches every short leg by seconds.
        p("MPC_JERK_AUTO", 10.0, 1.0, 80.0),
        p("MPC_Z_VEL_MAX_UP", vehicle.max_climb_mps, 0.5, 8.0),
        p("MPC_Z_V_AUTO_UP", vehicle.max_climb_mps, 0.5, 8.0),
        p("MPC_TKO_SPEED", vehicle.max_climb_mps, 1.0, 5.0),
        p("MPC_Z_VEL_MAX_DN", descent, 0.5, 4.0),
        p("MPC_Z_V_AUTO_DN", descent, 0.5, 4.0),
        p("MPC_LAND_SPEED", land, 0.6, 4.0),
        p("RTL_RETURN_ALT", limits.return_altitude_m, 0.0, 1000.0),
    ]
}

/// The UDP port our side listens on for instance `k`'s companion link.
pub fn companion_port(instance: u8) -> u16 {
    14540 + u16::from(instance)
}

/// A running PX4 SITL; stopped (SIGTERM, then SIGKILL) by [`Px4Process::stop`] or on drop.
#[derive(Debug)]
pub struct Px4Process {
    child: Option<Child>,
    instance: u8,
    log: PathBuf,
}

impl Px4Process {
    /// Starts a fresh instance: parameters and mission store wiped, a PX4 left over from an
    /// earlier run of this directory (its pid file) stopped first.
    pub fn start(install: &Px4Install, options: &Px4Options) -> Result<Self, Px4Error> {
        let k = options.instance;
        if k >= MAX_INSTANCES {
            return Err(Px4Error::Instance(k));
        }
        let io = |what: &'static str| {
            move |source| Px4Error::Io {
                instance: k,
                what,
                source,
            }
        };
        std::fs::create_dir_all(&options.run_dir).map_err(io("creating its directory"))?;
        // PX4 is started inside its directory and told it again (`-w`): a relative path would
        // be resolved twice.
        let run_dir =
            std::fs::canonicalize(&options.run_dir).map_err(io("finding its directory"))?;
        let pid_file = run_dir.join("px4.pid");
        stop_stale(&pid_file, &install.bin);
        for f in [
            "parameters.bson",
            "parameters_backup.bson",
            "param_import_fail.bson",
            "dataman",
        ] {
            let _ = std::fs::remove_file(run_dir.join(f));
        }
        let log = run_dir.join("px4.log");
        let out = std::fs::File::create(&log).map_err(io("creating px4.log"))?;
        let err = out.try_clone().map_err(io("opening px4.log"))?;
        let mut cmd = Command::new(&install.bin);
        cmd.arg("-i")
            .arg(k.to_string())
            .arg("-d")
            .arg("-w")
            .arg(&run_dir)
            .arg(&install.etc)
            .current_dir(&run_dir)
            .env("PX4_SIM_MODEL", SIH_MODEL)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        if (options.speed_factor - 1.0).abs() > 1e-9 {
            cmd.env("PX4_SIM_SPEED_FACTOR", format!("{}", options.speed_factor));
        }
        for (name, value) in &options.params {
            cmd.env(format!("PX4_PARAM_{name}"), value);
        }
        let mut child = cmd.spawn().map_err(io("starting px4"))?;
        std::fs::write(&pid_file, child.id().to_string()).map_err(io("writing px4.pid"))?;
        std::thread::sleep(Duration::from_millis(300));
        if let Ok(Some(status)) = child.try_wait() {
            return Err(Px4Error::Exited {
                instance: k,
                status: status.to_string(),
                log,
            });
        }
        tracing::info!(
            instance = k,
            pid = child.id(),
            speed = options.speed_factor,
            "PX4 SITL started"
        );
        Ok(Self {
            child: Some(child),
            instance: k,
            log,
        })
    }

    pub fn instance(&self) -> u8 {
        self.instance
    }

    pub fn log(&self) -> &Path {
        &self.log
    }

    /// Whether it still runs.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// SIGTERM, up to 5 s to exit, then SIGKILL.
    pub async fn stop(mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(pid) = i32::try_from(child.id()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
        let started = tokio::time::Instant::now();
        while started.elapsed() < STOP_GRACE {
            if !matches!(child.try_wait(), Ok(None)) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Px4Process {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Stops the PX4 an earlier run left behind in this directory — only if the recorded pid is
/// still this install's `px4` (never anything else by name).
fn stop_stale(pid_file: &Path, bin: &Path) {
    let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|t| t.trim().parse::<i32>().ok())
    else {
        return;
    };
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let ours = exe.is_some_and(|e| {
        let e = e
            .to_string_lossy()
            .trim_end_matches(" (deleted)")
            .to_string();
        std::fs::canonicalize(bin).is_ok_and(|b| b.to_string_lossy() == e)
    });
    if ours {
        tracing::warn!(pid, "stopping a PX4 left over from an earlier run");
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = std::fs::remove_file(pid_file);
}
