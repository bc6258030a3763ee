//! The world: one scenario, one seed, one sync step function. Time is data (microseconds since
//! the episode started); nothing reads a clock, so a seed replays bit for bit.

mod follow;
mod step;
mod tools;

use crate::battery::Battery;
use crate::dynamics::{Body, FlightLimits};
use crate::error::SimError;
use crate::evaluator::{Objectives, SafetyLimits, SafetyMonitor};
use crate::faults::FaultSchedule;
use crate::flight_controller::FlightController;
use crate::network::{NetworkConditions, NetworkModel, default_slice_profiles};
use crate::operator::Operator;
use crate::payload::Payloads;
use crate::peers::Peers;
use crate::scenario::{MovingObstacle, emitter_flags, moving_obstacles, parse_scenario};
use crate::sensors::SensorModel;
use crate::traffic::Traffic;
use crate::vec3::V3;
use crate::wind::WindField;
use alpha3_core::config::SliceProfiles;
use alpha3_core::frames::Geo;
use alpha3_core::scenario::Scenario;
use std::time::Duration;

pub use tools::TruthState;

/// How to build a world.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldOptions {
    pub seed: u64,
    /// GNSS, barometer and IMU errors; off gives perfect sensors (hand-computed tests).
    pub sensor_noise: bool,
    pub slices: SliceProfiles,
    /// The truth's safety policy; the scenario's when `None`.
    pub safety: Option<SafetyLimits>,
    /// WGS-84 position of the scenario origin (PX4 SITL's default home when not set).
    pub origin: Geo,
}

impl WorldOptions {
    pub fn seeded(seed: u64) -> Self {
        Self {
            seed,
            ..Self::default()
        }
    }
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            sensor_noise: true,
            slices: default_slice_profiles(),
            safety: None,
            origin: Geo {
                lat_deg: 47.397742,
                lon_deg: 8.545594,
                alt_amsl_m: 488.0,
            },
        }
    }
}

/// The simulated world.
#[derive(Debug, Clone)]
pub struct World {
    scenario: Scenario,
    options: WorldOptions,
    time_us: u64,
    dt: Duration,
    body: Body,
    /// The flight controller's position estimate.
    estimate: V3,
    /// Velocity error dead reckoning has built up from the IMU bias.
    dr_velocity_error: [f64; 2],
    base_limits: FlightLimits,
    limits: FlightLimits,
    fc: FlightController,
    wind: WindField,
    sensors: SensorModel,
    battery: Battery,
    faults: FaultSchedule,
    fault_log: Vec<(u64, String, bool)>,
    traffic: Traffic,
    /// Counts changes to the traffic's plans after the start (swarm members yielding), so a
    /// copy of them (the gate's) can be refreshed exactly when it went stale.
    traffic_revision: u64,
    traffic_ids: Vec<String>,
    traffic_positions: Vec<V3>,
    obstacles: Vec<MovingObstacle>,
    obstacle_positions: Vec<(V3, f64)>,
    network: NetworkModel,
    peers: Peers,
    operator: Operator,
    payloads: Payloads,
    objectives: Objectives,
    safety: SafetyMonitor,
    /// Authorised landing sites: launch point, origin, emergency sites.
    sites: Vec<[f64; 2]>,
    crashed: bool,
    steps: u64,
}

impl World {
    /// A world for `scenario` (already checked by the loader).
    pub fn new(scenario: Scenario, options: WorldOptions) -> Self {
        let seed = options.seed;
        let s = &scenario;
        let base_limits = FlightLimits::from_airframe(&s.uav);
        let spawn = s.spawn.xyz;
        let airborne = spawn[2] > 0.0;
        let band = (s.airspace.altitude_agl_min_m, s.airspace.altitude_agl_max_m);
        let mut fc = FlightController::new(
            [spawn[0], spawn[1], 0.0],
            airborne,
            base_limits.cruise_speed_mps,
            band,
        );
        if airborne {
            fc.mode = crate::flight_controller::Mode::Hold { at: spawn };
        }
        let traffic = Traffic::new(s, base_limits.cruise_speed_mps);
        let mut sites = vec![[spawn[0], spawn[1]], [0.0, 0.0]];
        if let Some(l) = &s.landing {
            sites.extend(l.emergency_sites.iter().map(|p| [p[0], p[1]]));
        }
        let flags = emitter_flags(s);
        let safety_limits = options.safety.unwrap_or_else(|| SafetyLimits::of(s));
        let dt_us = (s.sim.dt * 1e6).round().max(1.0) as u64;
        Self {
            time_us: 0,
            dt: Duration::from_micros(dt_us),
            body: Body {
                position: spawn,
                yaw_deg: s.spawn.yaw_deg.rem_euclid(360.0),
                ..Body::default()
            },
            estimate: spawn,
            dr_velocity_error: [0.0; 2],
            base_limits,
            limits: base_limits,
            fc,
            wind: WindField::new(&s.environment, seed),
            sensors: SensorModel::new(&flags, seed, options.sensor_noise),
            battery: Battery::new(&s.uav),
            faults: FaultSchedule::new(&s.faults),
            fault_log: Vec::new(),
            traffic_revision: 0,
            traffic_ids: traffic.aircraft.iter().map(|a| a.id.clone()).collect(),
            traffic_positions: traffic
                .aircraft
                .iter()
                .map(|a| a.plan.position_at(0.0))
                .collect(),
            obstacles: moving_obstacles(s),
            obstacle_positions: Vec::new(),
            network: NetworkModel::new(&options.slices, NetworkConditions::of(s), seed),
            peers: Peers::new(&traffic, seed),
            traffic,
            operator: Operator::new(s, seed),
            payloads: Payloads::new(s),
            objectives: Objectives::new(s),
            safety: SafetyMonitor::new(s, safety_limits),
            sites,
            crashed: false,
            steps: 0,
            scenario,
            options,
        }
    }

    /// Parses, checks and builds.
    pub fn from_json(text: &str, options: WorldOptions) -> Result<Self, SimError> {
        Ok(Self::new(parse_scenario(text)?, options))
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn options(&self) -> &WorldOptions {
        &self.options
    }

    /// Scenario time, microseconds.
    pub fn time_us(&self) -> u64 {
        self.time_us
    }

    pub fn now_ms(&self) -> u64 {
        self.time_us / 1000
    }

    pub fn now_s(&self) -> f64 {
        self.time_us as f64 / 1e6
    }

    /// The scenario's physics step.
    pub fn dt(&self) -> Duration {
        self.dt
    }

    /// Physics steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Where return-to-home goes: the spawn point on the ground.
    pub fn launch_point(&self) -> [f64; 2] {
        self.sites[0]
    }

    /// Authorised landing sites (launch point, scenario origin, emergency sites).
    pub fn landing_sites(&self) -> &[[f64; 2]] {
        &self.sites
    }

    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }

    /// Changes whenever a plan in [`World::traffic`] changes.
    pub fn traffic_revision(&self) -> u64 {
        self.traffic_revision
    }

    /// Other aircraft now: (id, position).
    pub fn traffic_now(&self) -> impl Iterator<Item = (&str, V3)> {
        self.traffic_ids
            .iter()
            .map(String::as_str)
            .zip(self.traffic_positions.iter().copied())
    }

    pub fn faults(&self) -> &FaultSchedule {
        &self.faults
    }

    /// Fault starts and ends so far: (time ms, kind, started).
    pub fn fault_log(&self) -> &[(u64, String, bool)] {
        &self.fault_log
    }

    pub fn objectives(&self) -> &Objectives {
        &self.objectives
    }

    pub fn payloads(&self) -> &Payloads {
        &self.payloads
    }

    pub fn operator(&self) -> &Operator {
        &self.operator
    }

    pub fn network(&mut self) -> &mut NetworkModel {
        &mut self.network
    }

    pub fn flight_limits(&self) -> &FlightLimits {
        &self.limits
    }

    pub fn battery(&self) -> &Battery {
        &self.battery
    }

    pub fn flight_controller(&self) -> &FlightController {
        &self.fc
    }
}
