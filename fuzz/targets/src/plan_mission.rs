//! Plans made into missions: any bytes read as a `.plan` (or a WPL mission), placed at their
//! planned home inside the plan's own fence, then checked whole through the gate.
//!
//! Invariants: no panic in the fence intersection, the scenario built from the plan or the
//! check; a plan that becomes a mission passes the scenario rules (`plan_scenario` promises
//! it); every finding of the check names a leg, and its numbers are finite or an honest ±∞.

use alpha3_core::config::{Limits, VehicleProfile};
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::gate::GateContext;
use alpha3_core::mission_file::{ReadOptions, WplFile, read_plan, read_wpl};
use alpha3_core::plan_mission::{
    AutopilotAirspace, Placement, PlanParts, check_mission, plan_scenario,
};
use alpha3_core::scenario::scenario_problems;
use alpha3_core::snapshot::VehicleSnapshot;

fn vehicle() -> VehicleProfile {
    VehicleProfile {
        name: "fuzz".into(),
        frame: "quadrotor".into(),
        mass_kg: 2.0,
        max_speed_mps: 12.0,
        cruise_speed_mps: 8.0,
        max_climb_mps: 3.0,
        max_descent_mps: 1.5,
        max_accel_mps2: 4.0,
        max_yaw_rate_dps: 60.0,
        battery_capacity_wh: 74.0,
        hover_power_w: 220.0,
        drag_power_w_per_mps3: 0.05,
        manoeuvre_power_w_per_mps2: 15.0,
    }
}

fn limits() -> Limits {
    Limits {
        min_altitude_m: 10.0,
        max_altitude_m: 120.0,
        return_altitude_m: 60.0,
        reserve_battery_pct: 25.0,
        hard_reserve_battery_pct: 15.0,
        min_separation_m: 25.0,
        position_uncertainty_m: 2.0,
        max_commands_per_s: 2.0,
        clamp_altitude: true,
    }
}

pub fn run(data: &[u8]) {
    let options = ReadOptions::default();
    let parts = if let Ok(plan) = read_plan(data, &options) {
        Some((
            plan.mission_items(),
            plan.fence.clone(),
            plan.rally.clone(),
            plan.mission.planned_home,
        ))
    } else if let Ok(WplFile::Mission(m)) = read_wpl(data, &options) {
        let home = m.home.and_then(|h| h.lat_lon_deg()).map(|(lat, lon)| Geo {
            lat_deg: lat,
            lon_deg: lon,
            alt_amsl_m: 0.0,
        });
        home.map(|h| (m.items, Default::default(), Vec::new(), h))
    } else {
        None
    };
    let Some((items, fence, rally, home)) = parts else {
        return;
    };
    if !(home.lat_deg.is_finite() && home.lon_deg.is_finite() && home.alt_amsl_m.is_finite()) {
        return;
    }
    let plan = PlanParts {
        name: "fuzz",
        items: &items,
        fence: &fence,
        rally: &rally,
    };
    let at = Placement {
        home,
        vehicle: Enu::default(),
    };
    let (vehicle, limits) = (vehicle(), limits());
    let Ok(planned) = plan_scenario(&plan, &AutopilotAirspace::default(), at, &vehicle, &limits)
    else {
        return;
    };
    assert!(
        scenario_problems(&planned.scenario).is_empty(),
        "a planned mission breaks the scenario rules"
    );
    let Ok(gate) = GateContext::from_scenario(&planned.scenario, &limits, &vehicle, 0) else {
        return;
    };
    let start = VehicleSnapshot::on_ground_at_home(home, 0);
    let check = check_mission(
        &planned.scenario,
        &planned.sources,
        &gate,
        &start,
        &|_, _, _, _| None,
    );
    for f in &check.findings {
        assert!(!f.leg.is_empty(), "a finding without its leg");
        assert!(!f.limit.is_nan() && !f.measured.is_nan(), "a NaN in {f:?}");
    }
}
