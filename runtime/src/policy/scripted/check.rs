//! The agent's own look at a leg before it asks for it: the gate's pure checks, run on the
//! agent's copy of the gate context at the time the leg is expected to start, against the
//! traffic picture the gate has too (cooperative peers' shared plans, other aircraft's
//! broadcast tracks, moving obstacles). It asks with a little more margin than the gate, so a
//! leg it plans is still clear when it is flown a few seconds off the estimate.

use alpha3_core::command::Command;
use alpha3_core::config::Limits;
use alpha3_core::frames::Enu;
use alpha3_core::gate::{GateContext, GateState, PeerPlan, Verdict, evaluate, ids};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_sim::dynamics::FlightLimits;
use alpha3_sim::traffic::Traffic;

/// Extra separation the agent keeps over the gate's, metres.
const EXTRA_SEPARATION_M: f64 = 8.0;
/// Position uncertainty the agent plans with, metres.
const PLANNING_UNCERTAINTY_M: f64 = 4.0;
/// Plans of other aircraft are known this far past the mission's time budget, seconds.
const PLAN_TAIL_S: f64 = 600.0;
const PLAN_STEP_S: f64 = 2.0;

/// Findings that are about where the leg goes (a detour helps), not when (waiting helps).
pub(super) const STATIC_IDS: [&str; 6] = [
    ids::NO_FLY_PATH_CROSSES,
    ids::NO_FLY_TARGET_INSIDE,
    ids::GEOFENCE_OUTSIDE,
    ids::GEOFENCE_PATH_LEAVES,
    ids::ALTITUDE_OUT_OF_BAND,
    ids::ALTITUDE_PATH_LEAVES_BAND,
];
/// Findings that are about timing against traffic and moving zones.
pub(super) const TIMED_IDS: [&str; 3] = [
    ids::SEPARATION_TRAFFIC,
    ids::SEPARATION_PEER,
    ids::NO_FLY_MOVING_CONFLICT,
];

/// The agent's copy of the gate.
#[derive(Debug, Clone)]
pub(super) struct PathCheck {
    gate: GateContext,
}

impl PathCheck {
    /// For `scenario` under `limits` (the runtime's safety policy), with the traffic's plans
    /// over the whole mission. `None` when the scenario does not make a gate context.
    pub fn new(scenario: &Scenario, limits: &Limits) -> Option<Self> {
        let mut limits = limits.clone();
        limits.min_separation_m += EXTRA_SEPARATION_M;
        limits.position_uncertainty_m = limits.position_uncertainty_m.max(PLANNING_UNCERTAINTY_M);
        let profile =
            crate::agent::profile_for_scenario(scenario, &crate::agent::shipped_vehicle());
        let mut gate = GateContext::from_scenario(scenario, &limits, &profile, 0).ok()?;
        gate.set_peer_plans(known_plans(scenario)).ok()?;
        Some(Self { gate })
    }

    /// Denial finding ids for a leg `from` → `to` started at rest at scenario time `t_s`
    /// (empty: the gate would approve it). `now` gives the battery, fix and mode.
    pub fn leg(
        &self,
        now: &VehicleSnapshot,
        from: [f64; 3],
        to: [f64; 3],
        t_s: f64,
    ) -> Vec<&'static str> {
        let t_ms = (t_s.max(0.0) * 1000.0).round() as u64;
        let snap = VehicleSnapshot {
            time_ms: t_ms,
            position: Enu::new(from[0], from[1], from[2]),
            velocity: Enu::new(0.0, 0.0, 0.0),
            ..*now
        };
        let command = Command::GoTo {
            target: Enu::new(to[0], to[1], to[2]),
            speed_mps: None,
        };
        match evaluate(&self.gate, &snap, &command, t_ms, &mut GateState::default()) {
            Verdict::Denied(findings) => findings.iter().map(|f| f.id).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the gate would let the vehicle return home from `at` at `t_s` (a watchdog return
    /// it rules out becomes a landing on the spot). Traffic in the way does not rule it out.
    pub fn return_ok(&self, now: &VehicleSnapshot, at: [f64; 3], t_s: f64) -> bool {
        let t_ms = (t_s.max(0.0) * 1000.0).round() as u64;
        let snap = VehicleSnapshot {
            time_ms: t_ms,
            position: Enu::new(at[0], at[1], at[2]),
            velocity: Enu::new(0.0, 0.0, 0.0),
            ..*now
        };
        match evaluate(
            &self.gate,
            &snap,
            &Command::ReturnToHome,
            t_ms,
            &mut GateState::default(),
        ) {
            Verdict::Denied(findings) => findings.iter().all(|f| TIMED_IDS.contains(&f.id)),
            _ => true,
        }
    }

    /// Whether holding at `at` from `t0_s` to `t1_s` keeps clear of traffic and moving zones
    /// (checked as a short hop there, whose plan holds at the target for the gate's horizon).
    pub fn hold_is_clear(&self, now: &VehicleSnapshot, at: [f64; 3], t0_s: f64, t1_s: f64) -> bool {
        let step = self.gate.tuning().hold_horizon_s.max(2.0);
        if !(t0_s.is_finite() && t1_s.is_finite()) {
            return false;
        }
        let hop = [at[0] + 0.5, at[1], at[2]];
        let mut t = t0_s;
        loop {
            let found = self.leg(now, at, hop, t);
            if found.iter().any(|id| TIMED_IDS.contains(id)) {
                return false;
            }
            if t >= t1_s {
                return true;
            }
            t = (t + step).min(t1_s);
        }
    }
}

/// Every other aircraft's and moving obstacle's path over the mission, as the gate gets it
/// from A2A plans and broadcast tracks: the world's own traffic model, from scenario time 0.
fn known_plans(scenario: &Scenario) -> Vec<PeerPlan> {
    let cruise = FlightLimits::from_airframe(&scenario.uav).cruise_speed_mps;
    let traffic = Traffic::new(scenario, cruise);
    let end = scenario.mission.time_budget_s.max(0.0) + PLAN_TAIL_S;
    crate::agent::plans_over(&traffic, scenario, 0.0, end, PLAN_STEP_S)
}
