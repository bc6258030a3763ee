//! What the episode allows the agent, read from its settings: agent turns, tool actions, the
//! world time a turn's commands may take, and the watchdog's pace.

use crate::episode_setup::EpisodeSettings;

/// Kept off the loop's turn budget for the error of the agent's own time estimates, seconds.
const TURN_MARGIN_S: f64 = 15.0;

/// The episode's budgets and pacing as the agent plans with them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Allowance {
    /// Agent turns per episode: every other dialogue turn is the operator's.
    pub agent_turns: u32,
    /// Tool actions per episode, less one kept for a landing.
    pub actions: usize,
    /// The world time one turn's commands may take: the loop's turn budget less a margin, s.
    pub turn_horizon_s: f64,
    /// How long the watchdog holds without a link before its ladder steps on to a return, s.
    pub watchdog_step_s: f64,
    /// The world time every turn lets pass at least (the loop's decision period), seconds.
    pub min_turn_s: f64,
}

impl Allowance {
    pub fn of(settings: &EpisodeSettings) -> Self {
        Self {
            agent_turns: settings.max_turns / 2,
            actions: usize::try_from(settings.max_tool_actions)
                .unwrap_or(usize::MAX)
                .saturating_sub(1),
            turn_horizon_s: settings.turn_budget_ms as f64 / 1000.0 - TURN_MARGIN_S,
            watchdog_step_s: settings.watchdog.step_interval_ms as f64 / 1000.0,
            min_turn_s: settings.watchdog.decision_period_ms as f64 / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::config::Config;

    /// The shipped config and the suite's budgets give the agent the allowance it was tuned
    /// with: 6 agent turns, 24 actions and a landing, 165 s a turn, a 15 s watchdog step and
    /// 5 s turns at least.
    #[test]
    fn the_shipped_settings_give_the_tuned_allowance() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/alpha3.toml");
        let config = Config::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
        let tuned = Allowance {
            agent_turns: 6,
            actions: 24,
            turn_horizon_s: 165.0,
            watchdog_step_s: 15.0,
            min_turn_s: 5.0,
        };
        assert_eq!(
            Allowance::of(&EpisodeSettings::from_config(&config, None)),
            tuned
        );
        assert_eq!(Allowance::of(&EpisodeSettings::default()), tuned);
    }
}
