//! The random baseline: well-formed turns drawn at random.

use super::super::actions;
use super::super::brief::EpisodeBrief;
use super::super::contract::Policy;
use super::super::decision::{Decision, DecisionContext};
use super::super::generator::BoxFuture;
use alpha3_core::link::Slice;
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::protocol::{Action, AgentTurn};
use alpha3_sim::rng::SimRng;
use tokio::time::Instant;

/// Most actions in one turn.
const MAX_ACTIONS: u64 = 3;
/// How far beyond the mission's waypoints and home a random waypoint may fall, metres.
const AREA_MARGIN_M: f64 = 100.0;
/// Hold durations are drawn from this range, seconds.
const HOLD_S: (f64, f64) = (5.0, 30.0);

/// The tools a random turn draws from (the catalogue's MCP tools that act or read).
const TOOLS: [&str; 11] = [
    "read_telemetry",
    "takeoff",
    "set_waypoint",
    "set_altitude",
    "set_speed",
    "hold",
    "return_to_home",
    "land",
    "activate_sensor",
    "capture",
    "switch_network_slice",
];

/// Draws one to three catalogue actions a turn, with arguments in range, from a stream seeded
/// by the episode's seed.
#[derive(Debug, Clone)]
pub struct RandomPolicy {
    name: String,
    rng: SimRng,
    /// The box the mission flies in (its waypoints and home, with a margin): x and y ranges.
    area: [(f64, f64); 2],
    band: (f64, f64),
    max_speed_mps: f64,
    sites: Vec<[f64; 2]>,
    sensors: Vec<String>,
    turns: u32,
}

impl RandomPolicy {
    pub fn new(name: impl Into<String>, episode: &EpisodeBrief<'_>) -> Self {
        let s = episode.scenario;
        let home = [s.spawn.xyz[0], s.spawn.xyz[1]];
        let points = s
            .mission
            .waypoints
            .iter()
            .map(|w| [w[0], w[1]])
            .chain(std::iter::once(home));
        let mut area = [(home[0], home[0]), (home[1], home[1])];
        for p in points {
            for (axis, v) in area.iter_mut().zip(p) {
                *axis = (axis.0.min(v), axis.1.max(v));
            }
        }
        for axis in &mut area {
            *axis = (axis.0 - AREA_MARGIN_M, axis.1 + AREA_MARGIN_M);
        }
        let mut sites = vec![home];
        if let Some(l) = &s.landing {
            sites.extend(l.emergency_sites.iter().map(|p| [p[0], p[1]]));
        }
        let a = &s.airspace;
        let band = (
            a.altitude_agl_min_m.min(a.altitude_agl_max_m),
            a.altitude_agl_max_m.max(a.altitude_agl_min_m),
        );
        Self {
            name: name.into(),
            rng: SimRng::stream(episode.seed, "baseline-random"),
            area,
            band,
            max_speed_mps: s.uav.max_speed_mps.max(1.0),
            sites,
            sensors: alpha3_sim::scenario::sensor_names(s),
            turns: 0,
        }
    }

    fn point(&mut self) -> [f64; 3] {
        [
            self.rng.range(self.area[0].0, self.area[0].1),
            self.rng.range(self.area[1].0, self.area[1].1),
            self.altitude(),
        ]
    }

    fn altitude(&mut self) -> f64 {
        self.rng.range(self.band.0, self.band.1)
    }

    fn sensor(&mut self) -> String {
        self.rng
            .pick(&self.sensors)
            .cloned()
            .unwrap_or_else(|| "rgb".to_string())
    }

    fn action(&mut self, tool: &str) -> Action {
        match tool {
            "takeoff" => actions::takeoff(self.altitude()),
            "set_waypoint" => {
                let p = self.point();
                let speed = self
                    .rng
                    .chance(0.5)
                    .then(|| self.rng.range(1.0, self.max_speed_mps));
                actions::set_waypoint(p, speed)
            }
            "set_altitude" => actions::set_altitude(self.altitude()),
            "set_speed" => actions::set_speed(self.rng.range(1.0, self.max_speed_mps)),
            "hold" => actions::hold(Some(self.rng.range(HOLD_S.0, HOLD_S.1))),
            "return_to_home" => actions::return_to_home(),
            "land" => {
                let site = self.rng.pick(&self.sites).copied().unwrap_or([0.0, 0.0]);
                actions::land_at(site)
            }
            "activate_sensor" => actions::activate_sensor(&self.sensor()),
            "capture" => {
                let kinds = [CaptureKind::Image, CaptureKind::Clip, CaptureKind::Scan];
                let kind = self.rng.pick(&kinds).copied().unwrap_or_default();
                actions::capture(&self.sensor(), kind)
            }
            "switch_network_slice" => {
                let slices = [Slice::Urllc, Slice::Embb, Slice::Mmtc];
                let slice = self.rng.pick(&slices).copied().unwrap_or(Slice::Urllc);
                actions::switch_network_slice(slice)
            }
            _ => actions::read_telemetry(),
        }
    }

    fn turn(&mut self) -> AgentTurn {
        let index = self.turns;
        self.turns += 1;
        let n = self.rng.int_in(1, MAX_ACTIONS);
        let actions = (0..n)
            .map(|_| {
                let tool = self.rng.pick(&TOOLS).copied().unwrap_or("read_telemetry");
                self.action(tool)
            })
            .collect();
        AgentTurn {
            intent: format!("random_turn_{index}"),
            actions,
        }
    }
}

impl Policy for RandomPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        _ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let turn = self.turn();
        Box::pin(async move { Decision::at_once(turn) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode_setup::EpisodeSettings;
    use alpha3_core::config::Config;

    fn turns_of(seed: u64) -> Vec<AgentTurn> {
        let scenario = alpha3_sim::scenario::suite_scenario(3);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/alpha3.toml");
        let config = Config::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
        let settings = EpisodeSettings::from_config(&config, None);
        let vehicle =
            crate::episode_setup::profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
        let brief = EpisodeBrief {
            scenario: &scenario,
            settings: &settings,
            vehicle: &vehicle,
            seed,
        };
        let mut p = RandomPolicy::new("random", &brief);
        (0..20).map(|_| p.turn()).collect()
    }

    /// Every drawn action names a catalogue tool and its arguments validate against the tool's
    /// schema; a seed draws the same turns again, another seed others.
    #[test]
    fn random_turns_are_well_formed_and_seeded() {
        let catalogue = alpha3_core::protocol::catalogue();
        let schemas = alpha3_core::score::tc::Schemas::compile(&catalogue).unwrap();
        let turns = turns_of(7);
        let mut tools = std::collections::BTreeSet::new();
        for t in &turns {
            assert!((1..=3).contains(&t.actions.len()), "{t:?}");
            for a in &t.actions {
                tools.insert(a.name().to_string());
                assert!(schemas.arguments_valid(a), "{a:?} does not validate");
            }
        }
        assert!(tools.len() >= 6, "20 turns drew only {tools:?}");
        assert_eq!(turns, turns_of(7));
        assert_ne!(turns, turns_of(8));
    }
}
