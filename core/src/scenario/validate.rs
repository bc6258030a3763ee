//! Cross-field rules of a scenario that a schema cannot express.

use super::Scenario;
use crate::episode::StructureProblem;

/// Every rule `scenario` breaks, with JSON pointers; empty when it is sound.
pub fn scenario_problems(s: &Scenario) -> Vec<StructureProblem> {
    let mut out = Vec::new();
    let mut push = |pointer: String, rule: &'static str, message: String| {
        out.push(StructureProblem {
            pointer,
            rule,
            message,
        })
    };
    let a = &s.airspace;
    if a.altitude_agl_min_m >= a.altitude_agl_max_m {
        push(
            "/airspace/altitude_agl_min_m".into(),
            "altitude_band",
            format!(
                "altitude_agl_min_m ({}) must be below altitude_agl_max_m ({})",
                a.altitude_agl_min_m, a.altitude_agl_max_m
            ),
        );
    }
    for (field, areas) in [
        ("geofence", &a.geofence),
        ("no_fly_zones", &a.no_fly_zones),
        ("no_fly_zones_dynamic", &a.no_fly_zones_dynamic),
    ] {
        for (i, area) in areas.iter().enumerate() {
            if let Some(p) = area.problem() {
                push(format!("/airspace/{field}/{i}"), "area", p);
            }
        }
    }
    if s.sim.dt <= 0.0 {
        push(
            "/sim/dt".into(),
            "positive",
            format!("dt must be positive, is {}", s.sim.dt),
        );
    }
    if s.mission.time_budget_s <= 0.0 {
        push(
            "/mission/time_budget_s".into(),
            "positive",
            format!(
                "time_budget_s must be positive, is {}",
                s.mission.time_budget_s
            ),
        );
    }
    if s.uav.battery_wh <= 0.0 {
        push(
            "/uav/battery_Wh".into(),
            "positive",
            format!("battery_Wh must be positive, is {}", s.uav.battery_wh),
        );
    }
    if let Some(r) = s.uav.reserve_fraction
        && !(0.0..1.0).contains(&r)
    {
        push(
            "/uav/reserve_fraction".into(),
            "fraction",
            format!("reserve_fraction must be in [0, 1), is {r}"),
        );
    }
    out
}
