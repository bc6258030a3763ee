//! The scripted reference agent: a deterministic baseline that flies the generated missions the
//! way a careful operator would, through the same tools, gate and slice policy as any LLM.
//!
//! It reads the mission plan it was given (waypoints and payload tasks, sensors, landing sites,
//! announced link outages, the airspace and the traffic picture the gate has too), the situation
//! of each decision (telemetry, link, the results of its last actions) and the operator's words
//! (a new waypoint, a hold, an abort, the status line). Each turn it:
//! - checks state (telemetry before the first command) and moves control to URLLC;
//! - obeys an ordered hold, then plans as many legs as the turn's world time allows, each one
//!   checked first with the gate's own checks at the time it will be flown: around static
//!   no-fly zones over via points, after a short wait when traffic or a moving zone is in the
//!   way, and never into an announced link outage (it holds through one instead, so no command
//!   is due while the link is down);
//! - captures where the mission needs it, with the mission's payload, and again — with a
//!   fallback sensor if one went offline — when a capture was deferred or failed;
//! - lands at the nearest authorised site when aborted or when the battery, after the next leg
//!   and the way down, would not keep the reserve; lands on the mission's last waypoint when
//!   that is on the ground (a pad);
//! - tells swarm peers over A2A which formation it flies.
//!
//! It plans with what the episode's brief ([`EpisodeBrief`]) says: the limits the gate enforces,
//! the gate's vehicle profile, and the turns, tool actions, turn time and watchdog pace the loop
//! allows (its last turn finishes the mission or lands).
//!
//! One file per part of the decision: `review` (what the last turn did, what the operator said),
//! `decide` (hold, take off, land or fly on), `fly` (the legs to the targets and the captures),
//! `leg` (whether and how far one leg fits the turn), `aside` (detours and safe places to wait),
//! `turn_draft` (the turn being put together); `check` is the agent's copy of the gate, `route` its
//! ways around static zones, `timing` its time estimates and the announced outages.

mod allowance;
mod aside;
mod check;
mod decide;
mod fly;
mod itinerary;
mod leg;
mod near;
#[cfg(test)]
mod pad_tests;
mod review;
mod route;
mod timing;
mod turn_draft;
mod way_around;
mod words;

pub use way_around::WayAround;

use super::actions;
use super::brief::EpisodeBrief;
use super::contract::Policy;
use super::decision::{Decision, DecisionContext};
use super::generator::BoxFuture;
use allowance::Allowance;
use alpha3_core::link::{HardThresholds, Slice};
use alpha3_core::protocol::AgentTurn;
use alpha3_core::protocol::tools::CommandStatus;
use check::PathCheck;
use itinerary::{Itinerary, Target};
use route::Zone;
use tokio::time::Instant;
use turn_draft::TurnDraft;

/// What an action of the last turn was for, to read its observation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tag {
    Other,
    /// A leg towards target `target` (on the way or onto it).
    Leg {
        target: usize,
    },
    Activate,
    Capture {
        target: usize,
    },
}

/// The scripted agent for one scenario.
#[derive(Debug, Clone)]
pub struct ScriptedPolicy {
    name: String,
    itinerary: Itinerary,
    check: Option<PathCheck>,
    zones: Vec<Zone>,
    swarm: bool,
    allowance: Allowance,
    /// The next target to reach.
    next: usize,
    /// Index into `itinerary.sensors` of the sensor in use.
    sensor: usize,
    /// Sensors that failed to activate or capture since the last switch.
    failed: Vec<bool>,
    /// The link was hard when this turn was decided: sensing here waits for it first.
    link_hard: bool,
    sensor_on: bool,
    aborted: bool,
    landing: bool,
    /// The landing under way is the mission's own, on its pad (a leg before it taken back
    /// takes it back too).
    landing_on_pad: bool,
    /// The vehicle was over its pad at the waypoint above it when it asked to land there: a
    /// landing the watchdog stops half-way goes on from where it stopped, not from up there.
    over_pad: bool,
    hold_s: Option<f64>,
    actions_used: usize,
    turns: u32,
    last: Vec<Tag>,
}

impl ScriptedPolicy {
    /// The agent for the episode `episode` describes: its scenario (mission plan, fitted
    /// sensors, airspace, traffic), its settings and the gate's vehicle profile.
    pub fn new(name: impl Into<String>, episode: &EpisodeBrief<'_>) -> Self {
        let scenario = episode.scenario;
        let sensors = alpha3_sim::scenario::sensor_names(scenario);
        let itinerary = Itinerary::new(scenario, &sensors);
        Self {
            name: name.into(),
            failed: vec![false; itinerary.sensors.len()],
            link_hard: false,
            itinerary,
            check: PathCheck::new(scenario, &episode.settings.limits, episode.vehicle),
            zones: route::static_zones(scenario),
            swarm: alpha3_sim::scenario::swarm(scenario).enabled,
            allowance: Allowance::of(episode.settings),
            next: 0,
            sensor: 0,
            sensor_on: false,
            aborted: false,
            landing: false,
            landing_on_pad: false,
            over_pad: false,
            hold_s: None,
            actions_used: 0,
            turns: 0,
            last: Vec::new(),
        }
    }

    fn targets(&self) -> &[Target] {
        &self.itinerary.targets
    }

    /// One turn: read what happened, check state first time, move control to URLLC, decide.
    fn turn(&mut self, ctx: &DecisionContext) -> AgentTurn {
        let now = &ctx.now;
        let s = &now.snapshot;
        self.review(&now.observations);
        if let Some(text) = &now.operator {
            self.read_operator(text);
        }
        let t0 = s.time_ms as f64 / 1000.0;
        let pos = [s.position.x, s.position.y, s.position.z];
        let mut draft = TurnDraft {
            actions: Vec::new(),
            tags: Vec::new(),
            start_s: t0,
            lo_s: t0,
            hi_s: t0,
            at: pos,
            busy: false,
            room: self.allowance.actions.saturating_sub(self.actions_used),
        };
        if self.turns == 0 {
            draft.push(actions::read_telemetry(), Tag::Other);
            if self.swarm {
                draft.push(
                    actions::swarm_coordination("swarm-1", "formation"),
                    Tag::Other,
                );
            }
        }
        self.turns += 1;
        // The link monitor leaves its hard state only after a few good samples, so a deferral
        // last turn counts as hard too.
        self.link_hard = now.link.is_hard(&HardThresholds::default())
            || now
                .observations
                .iter()
                .any(|o| o.status() == Some(CommandStatus::Deferred));
        if now.link.slice != Slice::Urllc {
            draft.push(actions::switch_network_slice(Slice::Urllc), Tag::Other);
        }
        let intent = self.decide(&mut draft, s);
        self.actions_used += draft.actions.len();
        self.last = draft.tags;
        AgentTurn {
            intent,
            actions: draft.actions,
        }
    }
}

impl Policy for ScriptedPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let turn = self.turn(ctx);
        Box::pin(async move { Decision::at_once(turn) })
    }
}
