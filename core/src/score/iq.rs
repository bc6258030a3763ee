//! IQ — Interaction Quality: the mean of three terms.
//!
//! `alpha3-v2`: `(B + A + R) / 3`, which reproduces the published IQ means exactly
//! (docs/METRIC-V2.md):
//! - `B = min(1, 10 / T)`: the share of the dialogue within the 10-turn budget
//!   ([`turn_budget_term`]; 0 for an empty dialogue).
//! - `A`: alternation, as below.
//! - `R`: the share of actions answered by an observation at the same index ([`answered`]; 1
//!   when there are no actions).
//!
//! `alpha3-v1`: `(L + A + G) / 3`:
//! - `L = max(0, 1 − |T − T*| / T*)`: T* is the median turn count of the run's successful
//!   episodes, so L depends on the run and is applied at aggregation ([`length_term`]).
//! - `A`: the fraction of the T − 1 adjacent turn pairs whose speakers differ (1 for a single
//!   turn, 0 for an empty dialogue: nothing was exchanged).
//! - `G`: the fraction of agent turns that are grounded: the turn reads state (a monitoring
//!   tool), or a value in its arguments or payload appeared before — in the initial state, an
//!   observation, or an operator turn. Numbers are compared after rounding to 1 decimal, strings
//!   exactly; a string seen before also contributes its words and numbers (an observation
//!   `"enroute to x=500"` makes `500` known). An agent turn without actions reads nothing and
//!   uses nothing, so it is not grounded; an episode without agent turns has G = 0.

use super::classify::class_of;
use crate::episode::{Episode, Speaker, Turn};
use crate::protocol::{ToolClass, ToolSpec};
use serde_json::Value;
use std::collections::HashSet;

/// The run's T* when it has no successful episode.
pub const DEFAULT_T_STAR: f64 = 10.0;

/// Turns a dialogue may take at full IQ (`alpha3-v2`).
pub const TURN_BUDGET: f64 = 10.0;

/// `B` (`alpha3-v2`): `min(1, 10 / T)`; 0 for an empty dialogue.
pub fn turn_budget_term(turns: usize) -> f64 {
    if turns == 0 {
        0.0
    } else {
        (TURN_BUDGET / turns as f64).min(1.0)
    }
}

/// `R` (`alpha3-v2`): the share of the dialogue's actions that have an observation at the same
/// index of their turn; 1 when there are no actions.
pub fn answered(dialogue: &[Turn]) -> f64 {
    let actions: usize = dialogue.iter().map(|t| t.actions.len()).sum();
    if actions == 0 {
        return 1.0;
    }
    let answered: usize = dialogue
        .iter()
        .map(|t| t.actions.len().min(t.obs.len()))
        .sum();
    answered as f64 / actions as f64
}

/// `L` for a dialogue of `turns` turns against the run's `t_star`.
pub fn length_term(turns: usize, t_star: f64) -> f64 {
    if t_star.is_nan() || t_star <= 0.0 {
        return 0.0;
    }
    (1.0 - (turns as f64 - t_star).abs() / t_star).max(0.0)
}

/// `A`: the share of adjacent turn pairs that alternate speakers.
pub fn alternation(dialogue: &[Turn]) -> f64 {
    match dialogue.len() {
        0 => 0.0,
        1 => 1.0,
        n => {
            let differ = dialogue
                .windows(2)
                .filter(|p| p[0].speaker != p[1].speaker)
                .count();
            differ as f64 / (n - 1) as f64
        }
    }
}

/// `G`: the share of agent turns that are grounded.
pub fn grounding(episode: &Episode, catalogue: &[ToolSpec]) -> f64 {
    let mut known = Known::default();
    if let Ok(initial) = serde_json::to_value(&episode.initial_state) {
        known.add(&initial);
    }
    let mut agent_turns = 0usize;
    let mut grounded = 0usize;
    for turn in &episode.dialogue {
        if turn.speaker == Speaker::Agent {
            agent_turns += 1;
            let reads = turn
                .actions
                .iter()
                .any(|a| class_of(catalogue, a.name()) == ToolClass::Monitoring);
            if reads || turn.actions.iter().any(|a| known.uses(a.arguments())) {
                grounded += 1;
            }
        } else {
            known.add_str(&turn.intent);
            for a in &turn.actions {
                known.add(a.arguments());
            }
            for v in turn.extra.values() {
                known.add(v);
            }
        }
        for obs in &turn.obs {
            for body in [&obs.result, &obs.payload].into_iter().flatten() {
                known.add(body);
            }
        }
    }
    if agent_turns == 0 {
        0.0
    } else {
        grounded as f64 / agent_turns as f64
    }
}

/// IQ from its three terms.
pub fn interaction_quality(l: f64, a: f64, g: f64) -> f64 {
    ((l + a + g) / 3.0).clamp(0.0, 1.0)
}

/// Values seen so far in the episode.
#[derive(Debug, Default)]
struct Known {
    /// Numbers, as tenths (rounded to 1 decimal).
    numbers: HashSet<i64>,
    strings: HashSet<String>,
}

fn tenths(x: f64) -> Option<i64> {
    let t = (x * 10.0).round();
    // Beyond ±2^53 the rounding is meaningless; such values are not compared.
    (t.is_finite() && t.abs() < 9.0e15).then_some(t as i64)
}

impl Known {
    fn add(&mut self, v: &Value) {
        match v {
            Value::Number(n) => self.numbers.extend(n.as_f64().and_then(tenths)),
            Value::String(s) => self.add_str(s),
            Value::Array(xs) => xs.iter().for_each(|x| self.add(x)),
            Value::Object(o) => o.values().for_each(|x| self.add(x)),
            Value::Bool(_) | Value::Null => {}
        }
    }

    /// A string, and its words and numbers.
    fn add_str(&mut self, s: &str) {
        let words = s
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map(|w| w.trim_matches('.'))
            .filter(|w| !w.is_empty() && *w != s);
        for w in words {
            match w.parse::<f64>().ok().and_then(tenths) {
                Some(n) => {
                    self.numbers.insert(n);
                }
                None => {
                    self.strings.insert(w.to_string());
                }
            }
        }
        match s.parse::<f64>().ok().and_then(tenths) {
            Some(n) => {
                self.numbers.insert(n);
            }
            None => {
                self.strings.insert(s.to_string());
            }
        }
    }

    /// Whether any leaf value of `v` was seen before.
    fn uses(&self, v: &Value) -> bool {
        match v {
            Value::Number(n) => n
                .as_f64()
                .and_then(tenths)
                .is_some_and(|t| self.numbers.contains(&t)),
            Value::String(s) => match s.parse::<f64>().ok().and_then(tenths) {
                Some(t) => self.numbers.contains(&t),
                None => self.strings.contains(s.as_str()),
            },
            Value::Array(xs) => xs.iter().any(|x| self.uses(x)),
            Value::Object(o) => o.values().any(|x| self.uses(x)),
            Value::Bool(_) | Value::Null => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::protocol::catalogue;
    use serde_json::json;

    fn g(e: &Episode) -> f64 {
        grounding(e, &catalogue())
    }

    #[test]
    fn length_term_by_hand() {
        assert_eq!(length_term(10, 10.0), 1.0);
        assert_eq!(length_term(8, 10.0), 0.8);
        assert_eq!(length_term(12, 10.0), 0.8);
        assert!((length_term(12, 9.0) - (1.0 - 3.0 / 9.0)).abs() < 1e-12);
        assert_eq!(length_term(30, 10.0), 0.0);
        assert_eq!(length_term(0, 10.0), 0.0);
    }

    #[test]
    fn turn_budget_term_by_hand() {
        for t in 1..=10 {
            assert_eq!(turn_budget_term(t), 1.0, "T = {t}");
        }
        assert_eq!(turn_budget_term(11), 10.0 / 11.0);
        assert_eq!(turn_budget_term(12), 10.0 / 12.0);
        assert_eq!(turn_budget_term(40), 0.25);
        assert_eq!(turn_budget_term(0), 0.0);
    }

    #[test]
    fn answered_by_hand() {
        assert_eq!(answered(&alternating(8)), 1.0);
        assert_eq!(answered(&[agent(vec![]), user(vec![])]), 1.0);
        // Two actions, one observation: the second is unanswered.
        let mut t = agent(vec![
            mcp("read_telemetry", json!({}), json!({})),
            mcp("hold", json!({}), json!({})),
        ]);
        t.obs.truncate(1);
        assert_eq!(answered(&[t, user(vec![])]), 0.5);
    }

    #[test]
    fn alternation_by_hand() {
        assert_eq!(alternation(&alternating(8)), 1.0);
        assert_eq!(alternation(&alternating(12)), 1.0);
        // agent, agent, user, user, agent: pairs differ at 2 of 4.
        let broken = vec![
            agent(vec![]),
            agent(vec![]),
            user(vec![]),
            user(vec![]),
            agent(vec![]),
        ];
        assert_eq!(alternation(&broken), 0.5);
        assert_eq!(alternation(&[]), 0.0);
        assert_eq!(alternation(&alternating(1)), 1.0);
    }

    #[test]
    fn reading_state_grounds_a_turn() {
        // Every agent turn reads telemetry: 4 of 4 (T = 8) and 6 of 6 (T = 12).
        assert_eq!(g(&episode(alternating(8))), 1.0);
        assert_eq!(g(&episode(alternating(12))), 1.0);
    }

    #[test]
    fn values_ground_only_once_seen() {
        let e = episode(vec![
            // Uses the initial pose's x (100): grounded.
            agent(vec![mcp(
                "navigate_to",
                json!({"x": 100.04}),
                json!({"value": "enroute to x=640"}),
            )]),
            // The operator mentions 75 m.
            user(vec![mcp(
                "request_altitude",
                json!({"alt_m": 75}),
                json!({}),
            )]),
            // 75 came from the operator, 640 from an observation's text: both grounded.
            agent(vec![mcp(
                "set_altitude",
                json!({"altitude_m": "75"}),
                json!({}),
            )]),
            user(vec![]),
            agent(vec![mcp("set_course", json!({"x": 640}), json!({}))]),
            user(vec![]),
            // 333 and "alpha" never appeared: not grounded.
            agent(vec![mcp(
                "goto",
                json!({"x": 333, "tag": "alpha"}),
                json!({}),
            )]),
            user(vec![]),
            // No actions: not grounded.
            agent(vec![]),
        ]);
        assert_eq!(g(&e), 3.0 / 5.0);
    }

    #[test]
    fn the_first_agent_turn_needs_state_or_the_initial_state() {
        let uses_initial = episode(vec![agent(vec![mcp(
            "set_speed",
            json!({"speed_mps": 12}),
            json!({}),
        )])]);
        assert_eq!(g(&uses_initial), 1.0);
        let invents = episode(vec![agent(vec![mcp(
            "set_speed",
            json!({"speed_mps": 13}),
            json!({}),
        )])]);
        assert_eq!(g(&invents), 0.0);
    }

    #[test]
    fn an_agents_own_arguments_do_not_ground_its_later_turns() {
        let e = episode(vec![
            agent(vec![mcp("goto", json!({"x": 333}), json!({}))]),
            user(vec![]),
            agent(vec![mcp("goto", json!({"x": 333}), json!({}))]),
        ]);
        assert_eq!(g(&e), 0.0);
    }

    #[test]
    fn a_failure_stub_and_a_user_only_dialogue_have_no_grounding() {
        assert_eq!(g(&stub()), 0.0);
        assert_eq!(g(&episode(vec![user(vec![])])), 0.0);
    }

    #[test]
    fn iq_is_the_mean_of_its_terms() {
        assert!((interaction_quality(0.8, 1.0, 0.6) - 0.8).abs() < 1e-12);
        assert_eq!(interaction_quality(1.0, 1.0, 1.0), 1.0);
    }
}
