//! The agent's own look at a leg before it asks for it: the gate's pure checks, run on the
//! agent's copy of the gate context at the time the leg is expected to start, against the
//! traffic picture the gate has too (cooperative peers' shared plans, other aircraft's
//! broadcast tracks, moving obstacles). It asks with a little more margin than the gate, so a
//! leg it plans is still clear when it is flown a few seconds off the estimate.
//!
//! Static no-fly zones are checked apart, only those near the leg ([`super::near`]): the copy
//! holds everything else, and a leg's nearby zones are added to a bare copy of the airspace
//! for it. So a check costs what the zones around the leg cost, not what the whole map does.

use super::near::StaticZones;
use alpha3_core::airspace::Area;
use alpha3_core::command::Command;
use alpha3_core::config::{Limits, VehicleProfile};
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

/// The agent's copy of the gate.
#[derive(Debug, Clone)]
pub(super) struct PathCheck {
    /// Everything but the static no-fly zones: fence, band, energy, traffic, plans, moving
    /// zones.
    gate: GateContext,
    /// The same airspace and airframe with no zone, traffic or plan: a leg's nearby static
    /// zones are checked on a copy of it.
    bare: GateContext,
    statics: StaticZones,
}

/// Denial finding ids of `command` from `snap` at `t_ms` under `ctx`.
fn denials(
    ctx: &GateContext,
    snap: &VehicleSnapshot,
    command: &Command,
    t_ms: u64,
) -> Vec<&'static str> {
    match evaluate(ctx, snap, command, t_ms, &mut GateState::default()) {
        Verdict::Denied(findings) => findings.iter().map(|f| f.id).collect(),
        _ => Vec::new(),
    }
}

impl PathCheck {
    /// For `scenario` under `limits` (the runtime's safety policy) with the gate's vehicle
    /// `profile`, and the traffic's plans over the whole mission. `None` when the scenario does
    /// not make a gate context.
    pub fn new(scenario: &Scenario, limits: &Limits, profile: &VehicleProfile) -> Option<Self> {
        let mut limits = limits.clone();
        limits.min_separation_m += EXTRA_SEPARATION_M;
        limits.position_uncertainty_m = limits.position_uncertainty_m.max(PLANNING_UNCERTAINTY_M);
        let mut open = scenario.clone();
        let statics = std::mem::take(&mut open.airspace.no_fly_zones);
        let mut gate = GateContext::from_scenario(&open, &limits, profile, 0).ok()?;
        gate.set_peer_plans(known_plans(scenario)).ok()?;
        open.airspace.no_fly_zones_dynamic.clear();
        open.traffic.clear();
        let bare = GateContext::from_scenario(&open, &limits, profile, 0).ok()?;
        // Every static zone makes a context, as it does for the episode's gate.
        statics
            .iter()
            .try_fold(bare.clone(), |ctx, a| ctx.with_no_fly(a))
            .ok()?;
        Some(Self {
            gate,
            bare,
            statics: StaticZones::new(statics),
        })
    }

    /// Denial finding ids of `command` from `snap`, whose horizontal path runs from `from` to
    /// `to`: everything but the static zones from the copy, then the zones near the path.
    fn check(
        &self,
        snap: &VehicleSnapshot,
        command: &Command,
        from: [f64; 2],
        to: [f64; 2],
    ) -> Vec<&'static str> {
        let t_ms = snap.time_ms;
        let mut found = denials(&self.gate, snap, command, t_ms);
        let near: Vec<&Area> = self.statics.near(from, to).collect();
        if near.is_empty() {
            return found;
        }
        let local = near
            .into_iter()
            .try_fold(self.bare.clone(), |ctx, a| ctx.with_no_fly(a));
        match local {
            Ok(ctx) => found.extend(
                denials(&ctx, snap, command, t_ms)
                    .into_iter()
                    .filter(|id| ids::kind(id).obstacle == Some(ids::Obstacle::StaticZone)),
            ),
            // Every zone made a context when this copy was built; should one not, the way is
            // taken as blocked.
            Err(_) => found.push(ids::NO_FLY_PATH_CROSSES),
        }
        found
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
        self.check(&snap, &command, [from[0], from[1]], [to[0], to[1]])
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
        let home = self.gate.home();
        self.check(
            &snap,
            &Command::ReturnToHome,
            [at[0], at[1]],
            [home.x, home.y],
        )
        .iter()
        .all(|id| ids::kind(id).waiting_helps())
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
            if found.iter().any(|id| ids::kind(id).waiting_helps()) {
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
    crate::episode_setup::plans_over(&traffic, scenario, 0.0, end, PLAN_STEP_S)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode_setup::{EpisodeSettings, profile_for_scenario, shipped_vehicle};
    use alpha3_core::frames::Geo;
    use alpha3_core::snapshot::LandedState;

    /// Suite scenario 0 with one zone at (400, 100) and `far` more along its north edge, no
    /// traffic.
    fn scenario(far: usize) -> Scenario {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/scenarios/sc-0000.json"
        );
        let mut s = alpha3_sim::scenario::read_scenario(std::path::Path::new(path)).unwrap();
        s.traffic.clear();
        s.airspace.no_fly_zones_dynamic.clear();
        s.extra.remove("moving_obstacles");
        s.airspace.no_fly_zones = vec![Area::cylinder([400.0, 100.0], 30.0, 0.0, 200.0)];
        s.airspace.no_fly_zones.extend((0..far).map(|i| {
            let (x, y) = (
                20.0 + (i % 100) as f64 * 7.6,
                700.0 + (i / 100) as f64 * 9.0,
            );
            Area::cylinder([x, y], 2.0, 0.0, 200.0)
        }));
        s
    }

    fn hovering(at: [f64; 3]) -> VehicleSnapshot {
        let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
        s.armed = true;
        s.landed = LandedState::InAir;
        s.position = Enu::new(at[0], at[1], at[2]);
        s
    }

    #[test]
    fn zones_far_from_a_leg_change_no_verdict_and_a_near_one_still_denies() {
        let limits = EpisodeSettings::default().limits;
        let profile = profile_for_scenario(&scenario(0), &shipped_vehicle());
        let one = PathCheck::new(&scenario(0), &limits, &profile).unwrap();
        let many = PathCheck::new(&scenario(999), &limits, &profile).unwrap();
        assert_eq!(many.statics.near([200.0, 100.0], [600.0, 100.0]).count(), 1);
        let now = hovering([200.0, 100.0, 40.0]);
        let legs = [
            ([200.0, 100.0, 40.0], [600.0, 100.0, 40.0]),
            ([200.0, 100.0, 40.0], [200.0, 300.0, 40.0]),
            ([200.0, 100.0, 40.0], [390.0, 110.0, 40.0]),
            ([500.0, 300.0, 60.0], [500.0, 650.0, 60.0]),
        ];
        for (from, to) in legs {
            assert_eq!(many.leg(&now, from, to, 5.0), one.leg(&now, from, to, 5.0));
        }
        let through = many.leg(&now, legs[0].0, legs[0].1, 5.0);
        assert!(through.contains(&ids::NO_FLY_PATH_CROSSES), "{through:?}");
        let into = many.leg(&now, legs[2].0, legs[2].1, 5.0);
        assert!(into.contains(&ids::NO_FLY_TARGET_INSIDE), "{into:?}");
        assert!(many.leg(&now, legs[1].0, legs[1].1, 5.0).is_empty());
        // Home (the spawn, west) lies behind the zone from (600, 100), not from (200, 300).
        assert!(!many.return_ok(&now, [600.0, 100.0, 40.0], 5.0));
        assert!(many.return_ok(&now, [200.0, 300.0, 40.0], 5.0));
    }
}
