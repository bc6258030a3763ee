//! The scripted agent's ways around static no-fly zones, for whoever must know before take-off
//! whether a leg can be flown at all: the whole-mission check (`alpha3 check`, `fly --plan`)
//! asks the same planner the agent flies with, so "checked" means "this agent can fly it".

use super::check::PathCheck;
use super::route::{self, Zone};
use alpha3_core::config::{Limits, VehicleProfile};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;

/// The planner for one scenario.
#[derive(Debug, Clone)]
pub struct WayAround {
    check: PathCheck,
    zones: Vec<Zone>,
}

impl WayAround {
    /// For `scenario` under `limits` with the gate's vehicle `profile`; `None` when the
    /// scenario does not make a gate context.
    pub fn new(scenario: &Scenario, limits: &Limits, profile: &VehicleProfile) -> Option<Self> {
        Some(Self {
            check: PathCheck::new(scenario, limits, profile)?,
            zones: route::static_zones(scenario),
        })
    }

    /// Via points (ending with `to`) around the static zones in the way of `from` → `to`
    /// flown at scenario time `t_s`; `None` when the leg is clear or no way was found.
    pub fn around(
        &self,
        now: &VehicleSnapshot,
        from: [f64; 3],
        to: [f64; 3],
        t_s: f64,
    ) -> Option<Vec<[f64; 3]>> {
        route::around(&self.check, &self.zones, now, from, to, t_s)
    }
}
