//! The scripted reference agent: a deterministic baseline that flies the generated missions the
//! way a careful operator would, through the same tools, gate and slice policy as any LLM.
//!
//! It reads the mission plan it was given (the scenario's waypoints, sensors and landing
//! sites, as a plan uploaded before flight), the situation of each decision (telemetry, link,
//! the last observations) and the operator's words (new waypoint, hold, abort). Per turn it:
//! checks state; moves control to URLLC when it is elsewhere; takes off; flies the next
//! waypoint; captures at each waypoint with the mission's payload (only while the link is not
//! hard — it defers bulk sensing otherwise); skips a waypoint the gate denies twice; and lands
//! at the nearest authorised site when done, aborted or short of energy.

use super::{BoxFuture, Decision, DecisionContext, Policy};
use alpha3_core::link::{HardThresholds, Slice};
use alpha3_core::protocol::{Action, AgentTurn};
use alpha3_core::scenario::Scenario;
use serde_json::{Value, json};
use tokio::time::Instant;

/// The scripted agent for one scenario.
#[derive(Debug, Clone)]
pub struct ScriptedPolicy {
    name: String,
    plan: Vec<[f64; 3]>,
    next: usize,
    sites: Vec<[f64; 2]>,
    sensor: Option<String>,
    capture_kind: &'static str,
    sensor_on: bool,
    captured: Vec<bool>,
    denials: u32,
    hold_s: Option<f64>,
    aborted: bool,
    landing: bool,
    reserve_pct: f64,
}

impl ScriptedPolicy {
    pub fn new(name: impl Into<String>, scenario: &Scenario, sensors: &[String]) -> Self {
        let kind = scenario.mission.kind.to_ascii_lowercase();
        let capture_kind = if kind.contains("map") {
            "scan"
        } else if kind.contains("surveil") {
            "clip"
        } else {
            "image"
        };
        let imaging = |s: &&String| {
            let s = s.to_ascii_lowercase();
            ["camera", "rgb", "thermal", "imag", "lidar", "photo"]
                .iter()
                .any(|k| s.contains(k))
        };
        let sensor = if kind.contains("deliver") {
            None
        } else {
            sensors.iter().find(imaging).or(sensors.first()).cloned()
        };
        let mut sites = vec![[scenario.spawn.xyz[0], scenario.spawn.xyz[1]]];
        if let Some(l) = &scenario.landing {
            sites.extend(l.emergency_sites.iter().map(|s| [s[0], s[1]]));
        }
        Self {
            name: name.into(),
            captured: vec![false; scenario.mission.waypoints.len()],
            plan: scenario.mission.waypoints.clone(),
            next: 0,
            sites,
            sensor,
            capture_kind,
            sensor_on: false,
            denials: 0,
            hold_s: None,
            aborted: false,
            landing: false,
            reserve_pct: 100.0 * scenario.uav.reserve_fraction.unwrap_or(0.2),
        }
    }

    /// Takes the operator's words: abort, hold, an added waypoint, and the status line
    /// ("Next is waypoint i at (x, y, z)") that keeps the plan in step with the world.
    fn read_operator(&mut self, text: &str) {
        let lower = text.to_ascii_lowercase();
        if lower.contains("abort") {
            self.aborted = true;
        } else if lower.contains("add a waypoint at")
            && let Some(p) = first_triple(&lower)
        {
            self.plan.insert(self.next, p);
            self.captured.insert(self.next, true);
        } else if lower.contains("hold your position for") {
            self.hold_s = numbers(&lower).first().copied();
        } else if lower.contains("next is waypoint")
            && let Some(p) = first_triple(&lower)
            && let Some(j) = self.plan.iter().position(|w| same(w, &p))
        {
            self.next = j;
        } else if lower.contains("0 waypoint(s) left") {
            self.next = self.plan.len();
        }
    }

    fn turn(&mut self, ctx: &DecisionContext) -> AgentTurn {
        let now = &ctx.now;
        let s = &now.snapshot;
        if let Some(text) = &now.operator {
            self.read_operator(text);
        }
        let denials: Vec<&str> = now
            .observations
            .iter()
            .filter(|o| o.result.get("status").and_then(Value::as_str) == Some("denied"))
            .flat_map(|o| o.result["findings"].as_array().into_iter().flatten())
            .filter_map(|f| f["id"].as_str())
            .collect();
        let waiting = denials
            .iter()
            .any(|id| id.contains("separation") || id.contains("moving"));
        self.denials = if denials.is_empty() {
            0
        } else {
            self.denials + 1
        };
        if self.denials >= 3 && self.next < self.plan.len() {
            // The gate refused this leg three times: skip it rather than insist.
            self.next += 1;
            self.denials = 0;
        } else if waiting && self.hold_s.is_none() {
            // Traffic or a moving zone is in the way: let it pass, then try again.
            self.hold_s = Some(20.0);
        }
        let mut actions = vec![Action::mcp("read_telemetry", json!({}))];
        let hard = now.link.is_hard(&HardThresholds::default());
        if now.link.slice != Slice::Urllc {
            actions.push(Action::mcp(
                "switch_network_slice",
                json!({"slice": "URLLC"}),
            ));
        }
        let holding = self.hold_s.take();
        if let Some(d) = holding {
            actions.push(Action::mcp("hold", json!({"duration_s": d})));
            if !s.is_airborne() || self.aborted {
                return turn("hold_as_ordered", actions);
            }
        }
        let low = s.battery.remaining_pct < self.reserve_pct + 10.0;
        if !s.is_airborne() {
            if self.landing || self.aborted || self.next >= self.plan.len() {
                return turn("report_landed", actions);
            }
            let alt = self.plan.first().map_or(30.0, |w| w[2]);
            actions.push(Action::mcp("takeoff", json!({"altitude_m": alt})));
        }
        if self.aborted || low || self.next >= self.plan.len() {
            return self.land(actions, s.position.x, s.position.y);
        }
        // Up to two legs per turn, each with its capture; moves run to completion in order.
        let mut planned = self.next;
        for _ in 0..2 {
            if planned >= self.plan.len() {
                break;
            }
            let w = self.plan[planned];
            actions.push(Action::mcp(
                "set_waypoint",
                json!({"waypoint": {"x": w[0], "y": w[1], "z": w[2]}}),
            ));
            if let Some(sensor) = self.sensor.clone()
                && !self.captured[planned]
                && !hard
            {
                self.captured[planned] = true;
                if !self.sensor_on {
                    self.sensor_on = true;
                    actions.push(Action::mcp("activate_sensor", json!({"sensor": sensor})));
                }
                actions.push(Action::mcp(
                    "capture",
                    json!({"sensor": sensor, "kind": self.capture_kind}),
                ));
            }
            planned += 1;
        }
        let intent = format!("fly_waypoints_{}_to_{}", self.next, planned - 1);
        turn(&intent, actions)
    }

    fn land(&mut self, mut actions: Vec<Action>, x: f64, y: f64) -> AgentTurn {
        self.landing = true;
        let site = self.nearest_site(x, y);
        actions.push(Action::mcp(
            "land",
            json!({"site": {"x": site[0], "y": site[1]}}),
        ));
        let intent = if self.aborted {
            "abort_and_land"
        } else {
            "land_at_site"
        };
        turn(intent, actions)
    }

    fn nearest_site(&self, x: f64, y: f64) -> [f64; 2] {
        self.sites
            .iter()
            .copied()
            .min_by(|a, b| {
                let da = (a[0] - x).hypot(a[1] - y);
                let db = (b[0] - x).hypot(b[1] - y);
                da.total_cmp(&db)
            })
            .unwrap_or([x, y])
    }
}

impl Policy for ScriptedPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let turn = self.turn(ctx);
        Box::pin(async move {
            Decision {
                outcome: Ok(turn),
                attempts: Vec::new(),
            }
        })
    }
}

fn turn(intent: &str, actions: Vec<Action>) -> AgentTurn {
    AgentTurn {
        intent: intent.to_string(),
        actions,
    }
}

fn same(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.5)
}

/// Every number in `text`, in order.
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter_map(|t| t.trim_end_matches('.').parse::<f64>().ok())
        .collect()
}

/// The first `(x, y, z)` in `text`.
fn first_triple(text: &str) -> Option<[f64; 3]> {
    let start = text.find('(')?;
    let end = start + text[start..].find(')')?;
    let n = numbers(&text[start..end]);
    (n.len() == 3).then(|| [n[0], n[1], n[2]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_words_are_read() {
        assert_eq!(
            first_triple("change of plan: add a waypoint at (120.5, -40, 35) and visit it next"),
            Some([120.5, -40.0, 35.0])
        );
        assert_eq!(numbers("hold your position for 30 s: traffic"), vec![30.0]);
    }
}
