//! A plan made into the mission flown — in the autopilot's airspace, with the config's vehicle,
//! limits and forecast wind — and checked whole before take-off. `alpha3 check` prints it; `fly --plan`
//! refuses to start a mission that fails it.

use crate::episode_setup::{EpisodeSettings, profile_for_scenario};
use crate::policy::scripted::WayAround;
use alpha3_core::config::Config;
use alpha3_core::gate::{GateContext, GateContextError};
use alpha3_core::plan_mission::{
    AutopilotAirspace, MissionCheck, Placement, PlanMissionError, PlannedMission, check_mission,
    plan_scenario,
};
use alpha3_core::snapshot::VehicleSnapshot;

use super::read::PlanInput;

/// Why a plan could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum PlanCheckError {
    #[error("the config has no [vehicle] section")]
    NoVehicle,
    #[error(transparent)]
    Plan(#[from] PlanMissionError),
    #[error("the gate cannot use this airspace: {0}")]
    Gate(#[from] GateContextError),
}

/// The mission a plan is flown as, its gate, and the whole-mission check.
#[derive(Debug, Clone)]
pub struct CheckedPlan {
    pub planned: PlannedMission,
    pub gate: GateContext,
    pub check: MissionCheck,
}

/// Builds and checks the mission of `input` at `at`, the vehicle's battery at `battery_pct`.
pub fn check_plan(
    input: &PlanInput,
    autopilot: &AutopilotAirspace,
    at: Placement,
    battery_pct: f64,
    config: &Config,
) -> Result<CheckedPlan, PlanCheckError> {
    let settings = EpisodeSettings::from_config(config, None);
    let vehicle = config.vehicle.as_ref().ok_or(PlanCheckError::NoVehicle)?;
    let mut planned = plan_scenario(&input.parts(), autopilot, at, vehicle, &settings.limits)?;
    // A plan carries no weather: the forecast the config gives is the wind it is judged in.
    if let Some(f) = &config.forecast {
        let w = &mut planned.scenario.environment.weather;
        (w.wind_mps, w.wind_dir_deg, w.gust_mps) = (f.wind_mps, f.wind_from_deg, f.gust_mps);
    }
    let profile = profile_for_scenario(&planned.scenario, vehicle);
    let gate = GateContext::from_scenario(&planned.scenario, &settings.limits, &profile, 0)?;
    let mut start = VehicleSnapshot::on_ground_at_home(at.home, 0);
    start.position = at.vehicle;
    start.position.z = 0.0;
    start.battery.remaining_pct = battery_pct;
    let planner = WayAround::new(&planned.scenario, &settings.limits, &profile);
    let detour = |now: &VehicleSnapshot, from: [f64; 3], to: [f64; 3], t_s: f64| {
        planner.as_ref().and_then(|p| p.around(now, from, to, t_s))
    };
    let check = check_mission(&planned.scenario, &planned.sources, &gate, &start, &detour);
    Ok(CheckedPlan {
        planned,
        gate,
        check,
    })
}
