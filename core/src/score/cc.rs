//! CC — Communication Cost.
//!
//! - `alpha3-v1`: `1 − 0.5·min(1, tokens / 10 000) − 0.5·min(1, tool_actions / 25)`, against the
//!   episode budgets of 10,000 tokens and 25 tool actions.
//! - `alpha3-v2`: `0.5·min(1, 3 000 / tokens) + 0.5·min(1, 10 / tool_actions)`: each half is 1
//!   within its allowance and the allowance's share of the spend beyond it (a term with nothing
//!   spent is 1). This reproduces the published CC means exactly (docs/METRIC-V2.md).
//!
//! `tokens` are the prompt and completion tokens spent on the episode (published: `_meta.usage`;
//! closed loop: the sum over every generation, repairs included). `tool_actions` counts every
//! MCP and A2A action of the dialogue, whoever issued it: each one is traffic on the link.

use crate::episode::{Episode, EpisodeMeta};

/// Token budget of one episode.
pub const TOKEN_BUDGET: f64 = 10_000.0;
/// Tool-action budget of one episode.
pub const ACTION_BUDGET: f64 = 25.0;

/// Tokens an episode may spend at full CC (`alpha3-v2`).
pub const TOKEN_ALLOWANCE: f64 = 3_000.0;
/// Tool actions an episode may issue at full CC (`alpha3-v2`).
pub const ACTION_ALLOWANCE: f64 = 10.0;

/// CC of `alpha3-v2` from the episode's spend.
pub fn communication_cost_v2(tokens: u64, tool_actions: usize) -> f64 {
    let within = |allowance: f64, spent: f64| {
        if spent <= allowance {
            1.0
        } else {
            allowance / spent
        }
    };
    0.5 * within(TOKEN_ALLOWANCE, tokens as f64)
        + 0.5 * within(ACTION_ALLOWANCE, tool_actions as f64)
}

/// CC of `alpha3-v1` from the episode's spend.
pub fn communication_cost(tokens: u64, tool_actions: usize) -> f64 {
    let t = (tokens as f64 / TOKEN_BUDGET).min(1.0);
    let a = (tool_actions as f64 / ACTION_BUDGET).min(1.0);
    (1.0 - 0.5 * t - 0.5 * a).clamp(0.0, 1.0)
}

/// Prompt + completion tokens of an episode (`total_tokens` when only that is reported), or
/// `None` when the file reports no usage.
pub fn tokens_of(meta: &EpisodeMeta) -> Option<u64> {
    let u = meta.usage.as_ref()?;
    let sum = u.prompt_tokens + u.completion_tokens;
    Some(if sum > 0 { sum } else { u.total_tokens })
}

/// MCP and A2A actions of the whole dialogue.
pub fn tool_actions(episode: &Episode) -> usize {
    episode.dialogue.iter().map(|t| t.actions.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn cost_by_hand() {
        assert_eq!(communication_cost(0, 0), 1.0);
        // 5,000 tokens and 10 actions: 1 − 0.25 − 0.2.
        assert!((communication_cost(5_000, 10) - 0.55).abs() < 1e-12);
        // Both budgets exceeded: the floor.
        assert_eq!(communication_cost(50_000, 100), 0.0);
        assert_eq!(communication_cost(10_000, 0), 0.5);
    }

    #[test]
    fn v2_cost_by_hand() {
        assert_eq!(communication_cost_v2(0, 0), 1.0);
        assert_eq!(communication_cost_v2(3_000, 10), 1.0);
        // 6,000 tokens: half the allowance; 20 actions: half the allowance.
        assert!((communication_cost_v2(6_000, 20) - 0.5).abs() < 1e-12);
        assert!((communication_cost_v2(4_000, 5) - (0.5 * 0.75 + 0.5)).abs() < 1e-12);
        // Never below 0, however much is spent.
        let floor = communication_cost_v2(u64::MAX, usize::MAX);
        assert!((0.0..1e-3).contains(&floor), "{floor}");
    }

    #[test]
    fn v2_falls_as_either_spend_grows() {
        let mut last = communication_cost_v2(3_000, 10);
        for tokens in (3_500..20_000).step_by(500) {
            let cc = communication_cost_v2(tokens, 10);
            assert!(cc < last, "{tokens}: {cc} ≥ {last}");
            last = cc;
        }
        assert!(communication_cost_v2(3_000, 11) < communication_cost_v2(3_000, 10));
    }

    #[test]
    fn dialogues_of_8_and_12_turns_count_their_actions() {
        // alternating(n): one read_telemetry per agent turn, so n/2 actions; 2,000 tokens.
        for (n, actions) in [(8usize, 4usize), (12, 6)] {
            let e = episode(alternating(n));
            assert_eq!(tool_actions(&e), actions);
            let cc = communication_cost(tokens_of(&e.meta).unwrap(), tool_actions(&e));
            let expected = 1.0 - 0.5 * 0.2 - 0.5 * actions as f64 / 25.0;
            assert!((cc - expected).abs() < 1e-12, "T = {n}: {cc}");
        }
    }

    #[test]
    fn operator_actions_count_too() {
        let e = episode(vec![
            agent(vec![mcp("a", json!({}), json!({}))]),
            user(vec![
                mcp("b", json!({}), json!({})),
                mcp("c", json!({}), json!({})),
            ]),
        ]);
        assert_eq!(tool_actions(&e), 3);
    }

    #[test]
    fn no_actions_and_a_stub_without_usage() {
        let e = episode(vec![agent(vec![]), user(vec![])]);
        assert_eq!(tool_actions(&e), 0);
        assert_eq!(tokens_of(&stub().meta), None);
        assert_eq!(communication_cost(0, tool_actions(&stub())), 1.0);
    }

    #[test]
    fn total_tokens_stand_in_when_the_split_is_missing() {
        let mut e = episode(vec![]);
        if let Some(u) = e.meta.usage.as_mut() {
            u.prompt_tokens = 0;
            u.completion_tokens = 0;
            u.total_tokens = 4321;
        }
        assert_eq!(tokens_of(&e.meta), Some(4321));
    }
}
