//! How `fly`, `mcp --connect` and `sitl` reach a flight controller, in one place: the
//! real-vehicle gate and the unsigned-link check on the address alone (nothing is opened if they
//! fail), then the link (with its `.tlog`), the real-vehicle gate again on what the autopilot
//! says it is, the wait until it is ready to fly, a vehicle left in the air brought down (when
//! asked), the config's parameter writes, and the mission anchored at the autopilot's home.
//! Every reason not to fly is a [`Refusal`] a caller can act on, with the link closed.

use super::connection::Connection;
use super::kit::OnboardError;
use super::mission_source::{MissionSource, mission_on};
use super::note::{BatterySource, VehicleLinkNote};
use super::replan::AirspaceWatch;
use super::start::{anchor_mission, settle_on_ground, wait_ready_to_fly};
use crate::agent::anchor::Anchor;
use crate::agent::mission_mode::HandedRoute;
use crate::real_vehicle::{after_connect, before_connect};
use crate::unsigned_link::exposure;
use alpha3_core::config::{Address, Config};
use alpha3_core::frames::LocalFrame;
use alpha3_core::gate::RouteEnd;
use alpha3_core::scenario::Scenario;
use alpha3_hil::simulator::SimulatorPolicy;
use alpha3_hil::{HilError, HilLink};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a command asks for.
#[derive(Debug, Clone)]
pub struct VehicleRequest<'a> {
    pub config: &'a Config,
    /// The address (`udpin:127.0.0.1:14540`, `serial:/dev/ttyAMA0:921600`).
    pub connect: &'a str,
    pub allow_real_vehicle: bool,
    pub allow_unsigned: bool,
    pub ready_timeout_s: u64,
    /// How long landing a vehicle left in the air may take, seconds.
    pub start_timeout_s: u64,
    /// Where the link's telemetry log goes, if anywhere.
    pub tlog: Option<PathBuf>,
    /// A vehicle found in the air: landed before the mission is anchored (`sitl`: an earlier
    /// episode left it flying), or kept flying (`fly` restarted mid-flight).
    pub left_in_air: LeftInAir,
    /// Which battery the episode's gate and truth read ([`BatterySource`]).
    pub battery: BatterySource,
}

/// What to do with a vehicle that is in the air when the link comes up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftInAir {
    /// Land it where it is with the failsafe's landing, then anchor on the ground.
    Land,
    /// Anchor at its home and fly on from where it is.
    Keep,
}

/// Why a vehicle will not be flown.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The address or the config is wrong.
    #[error("{0}")]
    Invalid(String),
    /// The flight controller is not provably a simulator on this machine.
    #[error("refusing to fly: {reason}")]
    NotSimulated { reason: String },
    /// The link is unsigned and other machines can reach it.
    #[error("refusing to fly: {why}")]
    Unsigned { why: String },
    /// The link could not be opened, or the autopilot was never heard.
    #[error("connecting to the flight controller: {0}")]
    Link(#[source] HilError),
    /// The autopilot refused a parameter write the config asked for.
    #[error("{0}")]
    Params(#[source] HilError),
    /// The vehicle was not ready, could not be landed, or the mission could not be anchored.
    #[error("{0}")]
    Start(#[source] OnboardError),
    /// The plan could not be made into a mission here (unreadable, no fence, the autopilot's
    /// airspace not readable).
    #[error("the plan: {0}")]
    Plan(String),
    /// The whole-mission check before take-off refused legs of the plan.
    #[error("refusing to fly {file}: the check before take-off refused {}", lines.join("; "))]
    PlanFailed { file: String, lines: Vec<String> },
}

impl Refusal {
    /// What a person should do about it, when there is something.
    pub fn advice(&self) -> Option<&'static str> {
        match self {
            Refusal::NotSimulated { .. } => Some(
                "this flight controller is not provably simulated; pass --allow-real-vehicle to fly a real aircraft",
            ),
            Refusal::Unsigned { .. } => Some(
                "sign the link ([link] signing_key_env, require_signing = true) or pass --allow-unsigned",
            ),
            _ => None,
        }
    }

    /// The input was wrong (exit 1), rather than the vehicle or the link failing (exit 3).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Refusal::Invalid(_)
                | Refusal::NotSimulated { .. }
                | Refusal::Unsigned { .. }
                | Refusal::Params(_)
                | Refusal::Plan(_)
                | Refusal::PlanFailed { .. }
        )
    }
}

impl From<Refusal> for crate::exit::Stop {
    fn from(r: Refusal) -> Self {
        let code = if r.is_invalid_input() {
            crate::exit::INVALID
        } else {
            crate::exit::FAILURE
        };
        let mut lines = vec![format!("{r}")];
        if let Some(advice) = r.advice() {
            lines.push(advice.to_string());
        }
        Self { code, lines }
    }
}

/// A connected, ready and anchored flight controller.
#[derive(Debug)]
pub struct Connected {
    pub link: HilLink,
    pub anchor: Anchor,
    /// The scenario as flown: from the ground when the vehicle stands there.
    pub flown: Scenario,
    /// The record header's `vehicle_link` note.
    pub note: VehicleLinkNote,
    /// Whether a vehicle left in the air was landed first ([`LeftInAir::Land`]).
    pub landed_first: bool,
    /// A plan's airspace watch: the autopilot's own fence and rally points followed during
    /// the episode ([`super::replan`]); none for a scenario file.
    pub airspace: Option<AirspaceWatch>,
    /// A plan's checked route, which the agent may hand over to the autopilot as its mission;
    /// none for a scenario file.
    pub handed: Option<HandedRoute>,
}

impl Connected {
    /// The note with the autopilot's clock rate as measured now: the rate is estimated from
    /// the autopilot's time stamps, so a note taken later (after bringing the vehicle to the
    /// start) carries a settled figure, not the first guess of 1.
    pub fn note_now(&self) -> VehicleLinkNote {
        VehicleLinkNote {
            clock_rate: self.link.vehicle_clock().map(|c| c.rate),
            ..self.note.clone()
        }
    }
}

/// The checks on the address alone: it parses, the real-vehicle gate passes (or is
/// overridden, with a warning), and a link other machines can reach is signed (or allowed).
pub fn check_address(req: &VehicleRequest<'_>) -> Result<Address, Refusal> {
    let address = Address::parse(req.connect).map_err(|e| Refusal::Invalid(e.to_string()))?;
    if let Some(v) = before_connect(&address) {
        if !req.allow_real_vehicle {
            return Err(Refusal::NotSimulated {
                reason: v.reason().to_string(),
            });
        }
        tracing::warn!(
            "flying a flight controller that is not provably simulated: {}",
            v.reason()
        );
    }
    if let Some(link) = &req.config.link
        && let Some(why) = exposure(&address, link)
    {
        if !req.allow_unsigned {
            return Err(Refusal::Unsigned {
                why: why.to_string(),
            });
        }
        tracing::warn!("flying over an exposed, unsigned link: {why}");
    }
    Ok(address)
}

/// Connects to `address` (as [`check_address`] passed it) as `req` says and anchors
/// `scenario` at the autopilot's home. `prefix` starts the progress line (`alpha3 fly`).
pub async fn connect_vehicle(
    req: &VehicleRequest<'_>,
    address: Address,
    scenario: &Scenario,
    prefix: &str,
) -> Result<Connected, Refusal> {
    connect_vehicle_for(req, address, MissionSource::Scenario(scenario), prefix).await
}

/// [`connect_vehicle`] for a mission from either source: a plan is made into the mission
/// flown once the autopilot is heard ([`super::mission_source`]).
pub async fn connect_vehicle_for(
    req: &VehicleRequest<'_>,
    address: Address,
    source: MissionSource<'_>,
    prefix: &str,
) -> Result<Connected, Refusal> {
    let mut conn = Connection::from_config(req.config, Some(req.connect))
        .map_err(|e| Refusal::Invalid(e.to_string()))?;
    conn.ready_timeout_ms = req.ready_timeout_s * 1000;
    conn.tlog = req.tlog.clone();
    // Asked at connect and on every reconnect; unless allowed, the link itself refuses every
    // command while the autopilot is not proven a simulator.
    conn.simulator = if req.allow_real_vehicle {
        SimulatorPolicy::Check
    } else {
        SimulatorPolicy::Require
    };
    let mut link = conn.connect().await.map_err(Refusal::Link)?;
    match prepare(req, &address, &conn, &mut link, source, prefix).await {
        Ok(Prepared {
            anchor,
            note,
            landed_first,
            scenario,
            airspace,
            handed,
        }) => {
            let mut flown = scenario;
            if anchor.on_ground {
                flown.spawn.xyz[2] = 0.0;
            }
            Ok(Connected {
                link,
                anchor,
                flown,
                note,
                landed_first,
                airspace,
                handed,
            })
        }
        Err(refusal) => {
            link.close().await;
            Err(refusal)
        }
    }
}

/// What [`prepare`] found and did.
struct Prepared {
    anchor: Anchor,
    note: VehicleLinkNote,
    landed_first: bool,
    scenario: Scenario,
    airspace: Option<AirspaceWatch>,
    handed: Option<HandedRoute>,
}

/// Everything after the link is up: the real-vehicle gate on the autopilot's word, readiness,
/// a vehicle left in the air, the parameter writes, the anchor and the note.
async fn prepare(
    req: &VehicleRequest<'_>,
    address: &Address,
    conn: &Connection,
    link: &mut HilLink,
    source: MissionSource<'_>,
    prefix: &str,
) -> Result<Prepared, Refusal> {
    let verdict = after_connect(address, &link.status());
    if !verdict.is_simulated() {
        if !req.allow_real_vehicle {
            return Err(Refusal::NotSimulated {
                reason: verdict.reason().to_string(),
            });
        }
        tracing::warn!(
            "flying a flight controller that is not provably simulated: {}",
            verdict.reason()
        );
    }
    eprintln!("{prefix}: {}", verdict.reason());
    let ready = Duration::from_secs(req.ready_timeout_s);
    wait_ready_to_fly(link, ready)
        .await
        .map_err(Refusal::Start)?;
    let landed_first = match req.left_in_air {
        LeftInAir::Land => settle_on_ground(link, Duration::from_secs(req.start_timeout_s))
            .await
            .map_err(Refusal::Start)?,
        LeftInAir::Keep => false,
    };
    let param_writes = param_writes(req.config, link)
        .await
        .map_err(Refusal::Params)?;
    let (scenario, plan, airspace) = mission_on(link, source, req.config).await?;
    let anchor = anchor_mission(link, &scenario)
        .await
        .map_err(Refusal::Start)?;
    let handed = plan.as_ref().map(|p| {
        let mut route = p.check.route.clone();
        route.end = if p.ends_with_landing {
            RouteEnd::Land
        } else if p.ends_with_return {
            RouteEnd::Return
        } else {
            RouteEnd::Stay
        };
        HandedRoute {
            route,
            frame: LocalFrame::new(anchor.origin),
        }
    });
    let status = link.status();
    let note = VehicleLinkNote {
        connect: address.to_string(),
        peer: status.peer.map(|p| p.to_string()),
        autopilot: status
            .autopilot
            .map(|a| format!("{:?} {:?}", a.autopilot, a.vehicle_type)),
        simulated: verdict.is_simulated(),
        real_vehicle_gate: verdict.reason().to_string(),
        allow_real_vehicle: req.allow_real_vehicle,
        allow_unsigned: req.allow_unsigned,
        tlog: conn.tlog.as_ref().map(|p| p.display().to_string()),
        param_writes,
        anchor,
        clock_rate: link.vehicle_clock().map(|c| c.rate),
        battery: req.battery,
        plan,
    };
    Ok(Prepared {
        anchor,
        note,
        landed_first,
        scenario,
        airspace,
        handed,
    })
}

/// Writes the config's `[link] param_writes` (alpha3-hil refuses protected names the config
/// did not list) and returns what the autopilot confirmed, for the record.
async fn param_writes(
    config: &Config,
    link: &HilLink,
) -> Result<serde_json::Map<String, serde_json::Value>, HilError> {
    let mut out = serde_json::Map::new();
    let Some(writes) = config.link.as_ref().map(|l| &l.param_writes) else {
        return Ok(out);
    };
    if writes.is_empty() {
        return Ok(out);
    }
    let list: Vec<(String, f64)> = writes.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let done = link.write_params(list).await?;
    for (name, value) in done {
        tracing::warn!(param = %name, %value, "autopilot parameter written (named in the config)");
        out.insert(name, serde_json::json!(value.as_f64()));
    }
    Ok(out)
}

/// `DIR/<id>.tlog`, or `<id>-2.tlog`, `-3`, … when an earlier run's log is there.
pub fn free_tlog_path(dir: &Path, id: &str) -> PathBuf {
    let first = dir.join(format!("{id}.tlog"));
    if !first.exists() {
        return first;
    }
    (2u32..)
        .map(|n| dir.join(format!("{id}-{n}.tlog")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_gets_its_own_telemetry_log() {
        let dir = tempfile::tempdir().unwrap();
        let a = free_tlog_path(dir.path(), "ep");
        assert_eq!(a, dir.path().join("ep.tlog"));
        std::fs::write(&a, b"").unwrap();
        let b = free_tlog_path(dir.path(), "ep");
        assert_eq!(b, dir.path().join("ep-2.tlog"));
    }
}
