//! Episodes against the world without an LLM and without the gate: a dialogue of agent and
//! operator turns where a policy proposes commands and tool calls and the world runs them in
//! order, each to completion. Built for tests and benchmarks only (feature `test-support`). [`MissionFollower`] is the trivial policy the benchmark and tests use.

use crate::evaluator::MissionReport;
use crate::operator::OperatorTurn;
use crate::world::World;
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::link::LinkSample;
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::protocol::{Action, AgentTurn};
use alpha3_core::snapshot::LandedState;
use serde_json::json;

/// One thing a policy asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Command(Command),
    Activate(String),
    Capture(String, CaptureKind),
    /// Let this many seconds pass (holding, waiting for the operator's clearance).
    Wait(f64),
}

/// A policy's turn: an intent and steps.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyTurn {
    pub intent: String,
    pub steps: Vec<Step>,
}

/// Decides turns from the world's public state.
pub trait Policy {
    fn decide(&mut self, world: &World) -> PolicyTurn;
}

/// Episode settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RolloutConfig {
    /// Dialogue turns, agent first (the paper: 8–12).
    pub turns: u32,
    /// Longest time one step may take to complete, milliseconds.
    pub step_timeout_ms: u64,
}

impl Default for RolloutConfig {
    fn default() -> Self {
        Self {
            turns: 10,
            step_timeout_ms: 300_000,
        }
    }
}

/// What an episode produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollout {
    pub turns: u32,
    pub agent_turns: Vec<AgentTurn>,
    pub operator_turns: Vec<OperatorTurn>,
    /// One link sample per dialogue turn.
    pub link: Vec<LinkSample>,
    pub report: MissionReport,
}

fn action_of(step: &Step) -> Action {
    match step {
        Step::Command(c) => Action::mcp(c.name(), serde_json::to_value(c).unwrap_or_default()),
        Step::Activate(s) => Action::mcp("activate_sensor", json!({ "sensor": s })),
        Step::Capture(s, k) => Action::mcp("capture", json!({ "sensor": s, "kind": k })),
        Step::Wait(d) => Action::mcp("hold", json!({ "duration_s": d })),
    }
}

/// Runs one episode of `config.turns` turns; stops early when the mission succeeds.
pub fn run_episode(world: &mut World, policy: &mut dyn Policy, config: RolloutConfig) -> Rollout {
    let mut out = Rollout {
        turns: 0,
        agent_turns: Vec::new(),
        operator_turns: Vec::new(),
        link: Vec::new(),
        report: world.mission_report(),
    };
    let mut last_agent = AgentTurn {
        intent: String::new(),
        actions: Vec::new(),
    };
    for turn in 1..=config.turns {
        out.turns = turn;
        out.link.push(world.link_sample());
        if turn % 2 == 1 {
            let decided = policy.decide(world);
            for step in &decided.steps {
                match step {
                    Step::Command(c) => {
                        if world.execute_command(c).accepted {
                            world.advance_until_settled(config.step_timeout_ms);
                        }
                    }
                    Step::Activate(s) => {
                        world.activate_sensor(s);
                    }
                    Step::Capture(s, k) => {
                        world.capture(s, *k);
                    }
                    Step::Wait(d) => {
                        let until = world.now_ms() + (d * 1000.0) as u64;
                        world.advance_to_ms(until);
                    }
                }
            }
            last_agent = AgentTurn {
                intent: decided.intent,
                actions: decided.steps.iter().map(action_of).collect(),
            };
            out.agent_turns.push(last_agent.clone());
        } else {
            out.operator_turns.push(world.operator_turn(&last_agent));
        }
        let report = world.mission_report();
        let done = report.success || report.terminated;
        out.report = report;
        if done && turn % 2 == 1 {
            break;
        }
    }
    out
}

/// The trivial policy: up to `per_turn` next waypoints per turn, captures where the mission
/// needs them, holds when ordered, and lands at the nearest authorised site at the end or
/// after an abort.
#[derive(Debug, Clone)]
pub struct MissionFollower {
    pub per_turn: usize,
    activated: bool,
    held: bool,
}

impl MissionFollower {
    pub fn new(per_turn: usize) -> Self {
        Self {
            per_turn,
            activated: false,
            held: false,
        }
    }
}

impl Policy for MissionFollower {
    fn decide(&mut self, world: &World) -> PolicyTurn {
        let o = world.objectives();
        let snap = world.snapshot();
        let mut steps = Vec::new();
        if snap.landed == LandedState::OnGround
            && o.next_waypoint().is_some()
            && o.aborted_at_s.is_none()
        {
            steps.push(Step::Command(Command::Arm));
            let z = world.scenario().airspace.altitude_agl_min_m + 10.0;
            steps.push(Step::Command(Command::Takeoff { altitude_m: z }));
        }
        if let Some(h) = o.hold
            && h.done_at_s.is_none()
            && !self.held
        {
            self.held = true;
            steps.push(Step::Command(Command::Hold));
            steps.push(Step::Wait(h.duration_s + 2.0));
        }
        let sensor = world.payloads().names().iter().find(|n| {
            !matches!(
                n.as_str(),
                "gnss" | "imu" | "magnetometer" | "barometer" | "radar"
            )
        });
        let end = o.aborted_at_s.is_some() || o.next_waypoint().is_none();
        if !end {
            let next = o.next_waypoint().unwrap_or(0);
            for i in next..(next + self.per_turn).min(o.waypoints.len()) {
                let w = o.waypoints[i];
                steps.push(Step::Command(Command::GoTo {
                    target: Enu::new(w[0], w[1], w[2]),
                    speed_mps: None,
                }));
                for t in o
                    .tasks
                    .iter()
                    .filter(|t| t.waypoint == i && t.done_at_s.is_none())
                {
                    if let Some(s) = sensor {
                        if !self.activated {
                            self.activated = true;
                            steps.push(Step::Activate(s.clone()));
                        }
                        steps.push(Step::Capture(s.clone(), t.kind));
                    }
                }
            }
        } else if snap.landed != LandedState::OnGround {
            let p = snap.position;
            let site = world.landing_sites().iter().copied().min_by(|a, b| {
                let d = |s: &[f64; 2]| (s[0] - p.x) * (s[0] - p.x) + (s[1] - p.y) * (s[1] - p.y);
                d(a).total_cmp(&d(b))
            });
            steps.push(Step::Command(Command::Land { site }));
        }
        let intent = if end {
            "land_at_nearest_site"
        } else {
            "fly_next_waypoints"
        };
        PolicyTurn {
            intent: intent.into(),
            steps,
        }
    }
}
