//! The hover baseline: take off, hold, land.

use super::super::actions;
use super::super::brief::EpisodeBrief;
use super::super::contract::Policy;
use super::super::decision::{Decision, DecisionContext};
use super::super::generator::BoxFuture;
use alpha3_core::protocol::AgentTurn;
use tokio::time::Instant;

/// How long each turn holds, seconds of world time.
const HOLD_S: f64 = 10.0;
/// Land when the battery is this close above the reserve, percent.
const BATTERY_MARGIN_PCT: f64 = 10.0;

/// Takes off to the mission's height, holds where it is each turn, lands at home on its last
/// turn or when the battery nears the reserve; after landing it only reads telemetry.
#[derive(Debug, Clone)]
pub struct HoverPolicy {
    name: String,
    altitude_m: f64,
    home: [f64; 2],
    reserve_pct: f64,
    agent_turns: u32,
    turns: u32,
    landing: bool,
}

impl HoverPolicy {
    pub fn new(name: impl Into<String>, episode: &EpisodeBrief<'_>) -> Self {
        let s = episode.scenario;
        Self {
            name: name.into(),
            altitude_m: super::cruise_altitude(episode),
            home: [s.spawn.xyz[0], s.spawn.xyz[1]],
            reserve_pct: 100.0 * s.uav.reserve_fraction.unwrap_or(0.2),
            agent_turns: super::agent_turns(episode),
            turns: 0,
            landing: false,
        }
    }

    fn turn(&mut self, ctx: &DecisionContext) -> AgentTurn {
        let s = &ctx.now.snapshot;
        let index = self.turns;
        self.turns += 1;
        if index == 0 {
            return AgentTurn {
                intent: "take_off_and_hover".into(),
                actions: vec![actions::read_telemetry(), actions::takeoff(self.altitude_m)],
            };
        }
        if self.landing {
            return AgentTurn {
                intent: "stay_landed".into(),
                actions: vec![actions::read_telemetry()],
            };
        }
        let last = index + 1 >= self.agent_turns;
        let low = s.battery.remaining_pct <= self.reserve_pct + BATTERY_MARGIN_PCT;
        if last || low {
            self.landing = true;
            return AgentTurn {
                intent: "land_at_home".into(),
                actions: vec![actions::land_at(self.home)],
            };
        }
        AgentTurn {
            intent: "hover".into(),
            actions: vec![actions::hold(Some(HOLD_S))],
        }
    }
}

impl Policy for HoverPolicy {
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
