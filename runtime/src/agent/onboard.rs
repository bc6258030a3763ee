//! What `alpha3 sitl` and `alpha3 fly` share around one episode against a flight controller:
//! the mission (world, gate, settings and policy for a scenario), the MAVLink connection (with
//! its telemetry log), and bringing the vehicle to the scenario's start before the agent flies.

use super::anchor::{Anchor, anchor};
use crate::episode_setup::{EpisodeSettings, profile_for_scenario};
use crate::policy::{EpisodeBrief, Policy};
use alpha3_core::command::Command;
use alpha3_core::config::{Address, Config};
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::gate::{GateContext, GateState, Verdict, evaluate, evaluate_failsafe};
use alpha3_core::scenario::Scenario;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::session::SessionConfig;
use alpha3_hil::simulator::SimulatorPolicy;
use alpha3_hil::{ConnectOptions, HilError, HilLink};
use alpha3_sim::{World, WorldOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why an onboard episode could not start.
#[derive(Debug, thiserror::Error)]
pub enum OnboardError {
    #[error("configuration: {0}")]
    Config(String),
    #[error("policy: {0}")]
    Policy(String),
    #[error(transparent)]
    Link(#[from] HilError),
    #[error("bringing the vehicle to the start: {0}")]
    Start(String),
}

/// Everything one episode needs besides the vehicle.
pub struct Mission {
    pub world: World,
    pub gate: GateContext,
    pub settings: EpisodeSettings,
    pub policy: Box<dyn Policy>,
}

impl std::fmt::Debug for Mission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mission")
            .field("scenario", &self.world.scenario().name)
            .field("policy", &self.policy.name())
            .finish_non_exhaustive()
    }
}

/// The mission for `scenario` under `config` (`base_dir` resolves the policy's relative paths).
/// `origin` places the scenario on the earth ([`super::anchor`]).
pub fn mission(
    config: &Config,
    scenario: &Scenario,
    seed: u64,
    base_dir: &Path,
    suite: Option<&alpha3_core::config::BenchSuite>,
    origin: Geo,
) -> Result<Mission, OnboardError> {
    let settings = EpisodeSettings::from_config(config, suite);
    let vehicle = config
        .vehicle
        .as_ref()
        .ok_or_else(|| OnboardError::Config("no [vehicle] section".into()))?;
    let profile = profile_for_scenario(scenario, vehicle);
    let gate = GateContext::from_scenario(scenario, &settings.limits, &profile, 0)
        .map_err(|e| OnboardError::Config(format!("gate context: {e}")))?;
    let policy_cfg = config
        .policy
        .as_ref()
        .ok_or_else(|| OnboardError::Config("no [policy] section".into()))?;
    let brief = EpisodeBrief {
        scenario,
        settings: &settings,
        vehicle: &profile,
    };
    let policy = crate::policy::from_config(policy_cfg, base_dir, Some(&brief))
        .map_err(|e| OnboardError::Policy(e.to_string()))?;
    let options = WorldOptions {
        origin,
        ..WorldOptions::seeded(seed)
    };
    Ok(Mission {
        world: World::new(scenario.clone(), options),
        gate,
        settings,
        policy,
    })
}

/// How long a busy local port is tried again before connecting fails.
const PORT_BUSY_WAIT: Duration = Duration::from_secs(10);

/// How to reach the flight controller.
#[derive(Debug, Clone)]
pub struct Connection {
    pub address: Address,
    pub session: SessionConfig,
    pub ready_timeout_ms: u64,
    pub required_failsafes: Vec<String>,
    pub tlog: Option<PathBuf>,
    /// Whether to ask the autopilot if it is a simulator, and to fly nothing else (`fly`).
    pub simulator: SimulatorPolicy,
}

impl Connection {
    /// From the config's `[link]` section (required), with `connect` overriding its address.
    /// Positions on the link are relative to the autopilot's home until [`anchor_mission`]
    /// puts them in the mission's frame.
    pub fn from_config(config: &Config, connect: Option<&str>) -> Result<Self, OnboardError> {
        let link = config
            .link
            .as_ref()
            .ok_or_else(|| OnboardError::Config("no [link] section".into()))?;
        let text = connect.unwrap_or(&link.connect);
        let address = Address::parse(text).map_err(|e| OnboardError::Config(e.to_string()))?;
        let mut session = SessionConfig::from_link_config(link)?;
        session.cruise_speed_mps = config.vehicle.as_ref().map(|v| v.cruise_speed_mps);
        Ok(Self {
            address,
            session,
            ready_timeout_ms: 30_000,
            required_failsafes: link.required_failsafes.clone(),
            tlog: None,
            simulator: SimulatorPolicy::Ignore,
        })
    }

    /// Opens the link and waits for the autopilot. A local port still held for a moment (the
    /// previous episode's socket, another program just leaving it) is tried again for up to
    /// 10 s before the error is given.
    pub async fn connect(&self) -> Result<HilLink, HilError> {
        let started = tokio::time::Instant::now();
        loop {
            let opened = HilLink::connect_with(
                self.address.clone(),
                self.session.clone(),
                ConnectOptions {
                    ready_timeout_ms: self.ready_timeout_ms,
                    preflight: true,
                    required_failsafes: self.required_failsafes.clone(),
                    tlog: self.tlog.clone(),
                    simulator: self.simulator,
                },
            )
            .await;
            match opened {
                Err(HilError::Open { source, .. })
                    if source.kind() == std::io::ErrorKind::AddrInUse
                        && started.elapsed() < PORT_BUSY_WAIT =>
                {
                    tracing::warn!(address = %self.address, "local port busy; trying again");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                other => return other,
            }
        }
    }
}

/// How many frames others than the autopilot sent, in a line for the operator; the link
/// dropped them (it stays bound to the autopilot it heard first).
pub fn foreign_note(status: &alpha3_hil::LinkStatus) -> Option<String> {
    let f = status.foreign;
    let s = f.last?;
    let from = s
        .from
        .map_or_else(|| "the link".to_string(), |a| a.to_string());
    Some(format!(
        "{} frames from others than the autopilot dropped (last: system {} component {} from {from})",
        f.count, s.system_id, s.component_id
    ))
}

/// Waits (up to `timeout`) until the vehicle can be flown, before the first command: every
/// input the gate reads reported (battery, position, home, fix, landed state), the telemetry
/// asked for arriving, the autopilot itself ready by its own account (ArduPilot: ~40 s after
/// boot, EKF and pre-arm checks) — then for a 3-D fix, which the gate needs for every move.
/// The error names what is missing, in the autopilot's words where it gave any.
pub async fn wait_ready_to_fly(link: &HilLink, timeout: Duration) -> Result<(), OnboardError> {
    let started = tokio::time::Instant::now();
    alpha3_hil::wait_ready_to_fly(link, timeout).await?;
    wait_until(link, started, timeout, |l| l.snapshot().gnss.fix.is_3d()).await
}

/// Brings a vehicle that is still in the air (an earlier episode or run left it flying) down
/// where it is, with the failsafe's landing, and waits until it is on the ground: a mission is
/// anchored at, and starts from, a vehicle on the ground. Then waits until the vehicle has
/// disarmed itself. Returns whether it had to land it.
pub async fn settle_on_ground(link: &mut HilLink, timeout: Duration) -> Result<bool, OnboardError> {
    let snap = link.snapshot();
    let landed = snap.is_airborne();
    if landed {
        let land = Command::Land { site: None };
        let Some(approved) = evaluate_failsafe(&snap, &land, link.now_ms())
            .approved()
            .cloned()
        else {
            return Err(OnboardError::Start(
                "the vehicle is in the air and the failsafe may not land it".into(),
            ));
        };
        let receipt = link.send(approved).await.map_err(|e| {
            OnboardError::Start(format!("landing the vehicle left in the air: {e}"))
        })?;
        if !receipt.accepted {
            return Err(OnboardError::Start(format!(
                "landing the vehicle left in the air refused: {}",
                receipt.message.unwrap_or_default()
            )));
        }
        let started = tokio::time::Instant::now();
        wait_until(link, started, timeout, |l| !l.snapshot().is_airborne()).await?;
    }
    // Both autopilots disarm by themselves after touch-down (PX4 COM_DISARM_LAND, ArduCopter's
    // LAND). Starting before that would skip arming and ask an armed vehicle, still in its
    // landing mode, to take off: ArduCopter refuses that (take-off only in GUIDED).
    if link.snapshot().armed && !link.snapshot().is_airborne() {
        let started = tokio::time::Instant::now();
        wait_until(link, started, DISARM_WAIT, |l| !l.snapshot().armed)
            .await
            .map_err(|_| {
                OnboardError::Start(format!(
                    "the vehicle stayed armed on the ground for {} s; it must disarm before a \
                     mission starts",
                    DISARM_WAIT.as_secs()
                ))
            })?;
    }
    Ok(landed)
}

/// How long an armed vehicle on the ground is given to disarm itself before a mission.
const DISARM_WAIT: Duration = Duration::from_secs(30);

/// Places `scenario` on the earth so that its home is where the vehicle stands (see
/// [`super::anchor`]) and switches the link to that frame: from here on telemetry and
/// commands are in the scenario's coordinates. Build the mission's world with
/// [`Anchor::origin`].
pub async fn anchor_mission(link: &HilLink, scenario: &Scenario) -> Result<Anchor, OnboardError> {
    link.set_origin(None).await?;
    let a = anchor(scenario, &link.snapshot());
    link.set_origin(Some(a.origin)).await?;
    tracing::info!(
        origin = ?a.origin,
        home = ?a.home,
        point = ?a.point,
        "mission anchored at the autopilot"
    );
    Ok(a)
}

/// How close to the scenario's spawn point the vehicle must be before the agent flies, m.
const START_TOLERANCE_M: f64 = 10.0;

/// Brings the vehicle to `world`'s spawn point — armed and airborne when the spawn is in the
/// air — with commands the gate approved, and waits until it is there (`timeout`). A vehicle
/// already there is left alone. Returns what was done, for the log.
pub async fn bring_to_start(
    link: &mut HilLink,
    world: &World,
    gate: &GateContext,
    timeout: Duration,
) -> Result<Vec<String>, OnboardError> {
    let spawn = world.snapshot().position;
    let mut done = Vec::new();
    let at_start = |link: &HilLink| link.snapshot().position.distance(spawn) <= START_TOLERANCE_M;
    if at_start(link) {
        return Ok(done);
    }
    let mut state = GateState::default();
    let mut steps = Vec::new();
    if spawn.z > 1.0 {
        let snap = link.snapshot();
        if !snap.is_airborne() {
            if !snap.armed {
                steps.push(Command::Arm);
            }
            steps.push(Command::Takeoff {
                altitude_m: spawn.z,
            });
        }
        steps.push(Command::GoTo {
            target: Enu::new(spawn.x, spawn.y, spawn.z),
            speed_mps: None,
        });
    }
    let started = tokio::time::Instant::now();
    for command in steps {
        let now = link.now_ms();
        let verdict = evaluate(gate, &link.snapshot(), &command, now, &mut state);
        let approved = match &verdict {
            Verdict::Approved(a) | Verdict::Clamped { approved: a, .. } => a.clone(),
            Verdict::Denied(f) => {
                return Err(OnboardError::Start(format!(
                    "the gate denied {}: {}",
                    command.name(),
                    f.iter()
                        .map(|x| format!(
                            "{} (measured {}, limit {})",
                            x.reason, x.measured, x.limit
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                )));
            }
        };
        let receipt = link
            .send(approved)
            .await
            .map_err(|e| OnboardError::Start(format!("{}: {e}", command.name())))?;
        if !receipt.accepted {
            return Err(OnboardError::Start(format!(
                "{} refused: {}",
                command.name(),
                receipt.message.unwrap_or_default()
            )));
        }
        done.push(command.name().to_string());
        if let Command::Takeoff { altitude_m } = command {
            wait_until(link, started, timeout, |l| {
                (l.snapshot().position.z - altitude_m).abs() < 1.0
            })
            .await?;
        }
    }
    wait_until(link, started, timeout, |l| {
        at_start(l) && l.snapshot().ground_speed_mps() < 1.0
    })
    .await?;
    Ok(done)
}

async fn wait_until(
    link: &HilLink,
    started: tokio::time::Instant,
    timeout: Duration,
    done: impl Fn(&HilLink) -> bool,
) -> Result<(), OnboardError> {
    while !done(link) {
        if started.elapsed() > timeout {
            let s = link.snapshot();
            return Err(OnboardError::Start(format!(
                "not ready within {} s: position {:?}, fix {:?}",
                timeout.as_secs(),
                s.position,
                s.gnss.fix
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}
