//! The airspace `perf` measures in: the busiest scenario of the fixed suite (most no-fly zones
//! and traffic), with the vehicle already cruising towards its first waypoint, so the gate and
//! the world work on a realistic load rather than an empty sky.

use crate::episode_setup::{EpisodeSettings, known_plans, profile_for_scenario};
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::gate::{GateContext, GateContextError, GateState, evaluate};
use alpha3_core::scenario::Scenario;
use alpha3_sim::scenario::{SUITE_SIZE, suite_scenario};
use alpha3_sim::{World, WorldOptions};

/// A world in flight and the gate's context for it.
#[derive(Debug, Clone)]
pub struct Scene {
    pub world: World,
    pub gate: GateContext,
    /// The next leg: to the mission's first waypoint.
    pub command: Command,
    pub fence_vertices: usize,
    pub no_fly_zones: usize,
    pub traffic: usize,
    pub peer_plans: usize,
}

fn load(s: &Scenario) -> usize {
    s.airspace.no_fly_zones.len() + s.airspace.no_fly_zones_dynamic.len() + s.traffic.len()
}

/// The suite scenario with the most zones and traffic (the first one on a tie).
pub fn busiest_scenario() -> Scenario {
    let mut best = suite_scenario(0);
    for i in 1..SUITE_SIZE {
        let s = suite_scenario(i);
        if load(&s) > load(&best) {
            best = s;
        }
    }
    best
}

impl Scene {
    /// Takes off in the busiest scenario and cruises 10 s towards the first waypoint.
    pub fn busiest() -> Result<Self, GateContextError> {
        let scenario = busiest_scenario();
        let limits = EpisodeSettings::default().limits;
        let profile = profile_for_scenario(&scenario, &crate::episode_setup::shipped_vehicle());
        let mut gate = GateContext::from_scenario(&scenario, &limits, &profile, 0)?;
        let first = scenario
            .mission
            .waypoints
            .first()
            .copied()
            .unwrap_or([100.0, 100.0, 30.0]);
        let altitude_m = first[2].clamp(limits.min_altitude_m, limits.max_altitude_m);
        let fence_vertices = scenario
            .airspace
            .geofence
            .iter()
            .map(|a| match a {
                alpha3_core::airspace::Area::Polygon { points, .. } => points.len(),
                _ => 1,
            })
            .sum();
        let no_fly_zones =
            scenario.airspace.no_fly_zones.len() + scenario.airspace.no_fly_zones_dynamic.len();
        let traffic = scenario.traffic.len();
        let mut world = World::new(scenario, WorldOptions::seeded(1));
        // The scene is flown through the gate, as every command to the world is.
        let mut state = GateState::default();
        let mut fly = |world: &mut World, command: &Command| {
            let verdict = evaluate(
                &gate,
                &world.snapshot(),
                command,
                world.now_ms(),
                &mut state,
            );
            if let Some(approved) = verdict.approved() {
                world.execute(approved);
            }
        };
        fly(&mut world, &Command::Arm);
        fly(&mut world, &Command::Takeoff { altitude_m });
        world.advance_until_settled(120_000);
        let command = Command::GoTo {
            target: Enu::new(first[0], first[1], first[2]),
            speed_mps: None,
        };
        fly(&mut world, &command);
        let t = world.now_ms() + 10_000;
        world.advance_to_ms(t);
        let plans = known_plans(&world);
        let peer_plans = plans.len();
        gate.set_peer_plans(plans)?;
        Ok(Self {
            world,
            gate,
            command,
            fence_vertices,
            no_fly_zones,
            traffic,
            peer_plans,
        })
    }
}
