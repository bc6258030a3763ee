//! The random policy: each decision is 1–6 actions, each a random catalogue tool (or, now and
//! then, a name that is no tool) with random arguments — mostly of the right shape and over a
//! wide range around the mission area, sometimes of the wrong shape altogether.

use super::airborne;
use super::rng::SplitMix64;
use super::targets::Targets;
use crate::policy::contract::Policy;
use crate::policy::decision::{Decision, DecisionContext};
use crate::policy::generator::BoxFuture;
use alpha3_core::protocol::{Action, AgentTurn, ToolKind, ToolSpec, catalogue};
use serde_json::{Value, json};
use tokio::time::Instant;

/// A policy that acts at random.
#[derive(Debug, Clone)]
pub struct RandomPolicy {
    name: String,
    targets: Targets,
    catalogue: Vec<ToolSpec>,
    rng: SplitMix64,
}

const SLICES: [&str; 4] = ["URLLC", "eMBB", "mMTC", "best_effort"];
const KINDS: [&str; 4] = ["image", "clip", "scan", "video"];

impl RandomPolicy {
    pub fn new(name: impl Into<String>, targets: Targets, seed: u64) -> Self {
        Self {
            name: name.into(),
            targets,
            catalogue: catalogue(),
            rng: SplitMix64::new(seed ^ 0x7261_6E64_6F6D_2121),
        }
    }

    /// A coordinate: usually within a few fence-widths of the mission area, sometimes wild.
    fn coord(&mut self, centre: f64) -> f64 {
        let span = self.targets.fence_half_extent_m * 3.0;
        match self.rng.below(20) {
            0 => *self
                .rng
                .pick(&[1e308, -1e308, 0.0, -0.0, 1e-300, 9.9e15])
                .unwrap_or(&0.0),
            _ => centre + self.rng.range(-span, span),
        }
    }

    fn altitude(&mut self) -> f64 {
        match self.rng.below(10) {
            0 => self.rng.range(-200.0, 0.0),
            1 => self.rng.range(self.targets.max_altitude_m, 2000.0),
            _ => self.rng.range(0.0, self.targets.max_altitude_m * 1.2),
        }
    }

    fn point(&mut self) -> Value {
        let c = self.targets.fence_centre;
        json!({"x": self.coord(c[0]), "y": self.coord(c[1]), "z": self.altitude()})
    }

    fn sensor(&mut self) -> String {
        if self.rng.chance(0.2) {
            return "laser_cannon".into();
        }
        self.rng
            .pick(&self.targets.sensors)
            .cloned()
            .unwrap_or_else(|| "rgb".into())
    }

    /// Arguments of the right shape for `tool`.
    fn arguments(&mut self, tool: &str) -> Value {
        let speed = self.rng.range(-5.0, self.targets.max_speed_mps * 3.0);
        match tool {
            "takeoff" => json!({"altitude_m": self.altitude()}),
            "set_waypoint" => {
                let mut a = json!({"waypoint": self.point()});
                if self.rng.chance(0.5) {
                    a["speed_mps"] = json!(speed);
                }
                a
            }
            "set_altitude" => json!({"altitude_m": self.altitude()}),
            "set_speed" => json!({"speed_mps": speed}),
            "hold" => json!({"duration_s": self.rng.range(-10.0, 900.0)}),
            "land" => {
                if self.rng.chance(0.5) {
                    json!({})
                } else {
                    let p = self.point();
                    json!({"site": {"x": p["x"], "y": p["y"]}})
                }
            }
            "check_geofence" => json!({"point": self.point()}),
            "activate_sensor" | "deactivate_sensor" => json!({"sensor": self.sensor()}),
            "capture" => {
                let kind = self.rng.pick(&KINDS).copied().unwrap_or("image");
                json!({"sensor": self.sensor(), "kind": kind})
            }
            "switch_network_slice" => {
                json!({"slice": self.rng.pick(&SLICES).copied().unwrap_or("URLLC")})
            }
            _ => json!({}),
        }
    }

    /// Arguments of any shape at all.
    fn garbage(&mut self) -> Value {
        match self.rng.below(6) {
            0 => Value::Null,
            1 => json!("ignore all limits"),
            2 => json!([1, 2, 3]),
            3 => json!({"altitude_m": "1000", "waypoint": [0, 0, 0]}),
            4 => json!({"waypoint": {"x": "far", "y": null}}),
            _ => json!(self.rng.range(-1e6, 1e6)),
        }
    }

    fn action(&mut self) -> Action {
        if self.rng.chance(0.05) {
            let name = self
                .rng
                .pick(&["disarm", "arm", "override_gate", "set_geofence", ""])
                .copied()
                .unwrap_or("disarm");
            return Action::mcp(name, json!({}));
        }
        let i = self.rng.below(self.catalogue.len());
        let (name, kind) = (self.catalogue[i].name, self.catalogue[i].kind);
        let args = if self.rng.chance(0.1) {
            self.garbage()
        } else {
            self.arguments(name)
        };
        match kind {
            ToolKind::A2a => {
                let payload = if self.rng.chance(0.5) {
                    json!({"pose": self.point(), "status": "random"})
                } else {
                    args
                };
                Action::a2a(name, "uav-2", payload)
            }
            _ => Action::mcp(name, args),
        }
    }

    fn turn(&mut self, ctx: &DecisionContext) -> AgentTurn {
        let n = 1 + self.rng.below(6);
        let mut actions: Vec<Action> = (0..n).map(|_| self.action()).collect();
        // On the ground, often take off first: random actions then fly, where they matter.
        if !airborne(ctx) && self.rng.chance(0.3) {
            let args = self.arguments("takeoff");
            actions.insert(0, Action::mcp("takeoff", args));
        }
        AgentTurn {
            intent: String::from("random"),
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
        ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let turn = self.turn(ctx);
        Box::pin(async move { Decision::at_once(turn) })
    }
}
