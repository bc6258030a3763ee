//! What bounds one episode: its budgets, pacing, safety limits and watchdog.

use super::HandoverCut;
use alpha3_core::config::{BenchSuite, Config, FailsafeStep, Limits, WatchdogConfig};

/// Budgets and pacing of one closed-loop episode (ALPHA3.md §1).
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeSettings {
    /// Dialogue turns (agent and operator), at most.
    pub max_turns: u32,
    pub max_tokens: u64,
    pub max_tool_actions: u32,
    /// World time one agent turn may take for its commands to complete.
    pub turn_budget_ms: u64,
    /// Truth-trace sampling interval.
    pub truth_interval_ms: u64,
    /// Communication below the operational threshold this long ends the episode.
    pub link_lost_terminate_ms: u64,
    /// The policy's decision deadline (wall time); also the world time a missed decision costs.
    pub deadline_ms: u64,
    pub limits: Limits,
    pub watchdog: WatchdogConfig,
    /// Set from outside to stop waiting for the failsafe's landing (the process is stopping).
    pub handover_cut: HandoverCut,
    /// What follows a *successful* episode: nothing for benchmark missions, which end where
    /// their last waypoint is, as α3-Bench's do; a plan's own end (`fly --plan`) otherwise.
    pub after_success: AfterSuccess,
}

/// What the vehicle does once the mission is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AfterSuccess {
    /// Left where the last waypoint is, under the agent's last command.
    #[default]
    Stay,
    /// The failsafe's return and landing at home: a plan ending with a return to launch.
    ReturnAndLand,
    /// A landing where it is, above the last waypoint: a plan ending with a landing.
    Land,
}

impl EpisodeSettings {
    /// Settings from a merged config (limits, watchdog, record, policy) and a suite.
    pub fn from_config(config: &Config, suite: Option<&BenchSuite>) -> Self {
        let defaults = Self::default();
        Self {
            max_turns: suite.map_or(defaults.max_turns, |s| s.max_turns),
            max_tokens: suite.map_or(defaults.max_tokens, |s| s.max_tokens),
            max_tool_actions: suite.map_or(defaults.max_tool_actions, |s| s.max_tool_actions),
            truth_interval_ms: config
                .record
                .as_ref()
                .map_or(defaults.truth_interval_ms, |r| r.truth_interval_ms.max(1)),
            deadline_ms: config
                .policy
                .as_ref()
                .map_or(defaults.deadline_ms, |p| p.deadline_ms),
            limits: config.limits.clone().unwrap_or(defaults.limits),
            watchdog: config.watchdog.clone().unwrap_or(defaults.watchdog),
            turn_budget_ms: defaults.turn_budget_ms,
            link_lost_terminate_ms: defaults.link_lost_terminate_ms,
            handover_cut: HandoverCut::default(),
            after_success: AfterSuccess::Stay,
        }
    }
}

impl Default for EpisodeSettings {
    fn default() -> Self {
        Self {
            max_turns: 12,
            max_tokens: 10_000,
            max_tool_actions: 25,
            turn_budget_ms: 180_000,
            truth_interval_ms: 1_000,
            link_lost_terminate_ms: 60_000,
            deadline_ms: 20_000,
            limits: Limits {
                min_altitude_m: 10.0,
                max_altitude_m: 120.0,
                return_altitude_m: 60.0,
                reserve_battery_pct: 25.0,
                hard_reserve_battery_pct: 15.0,
                min_separation_m: 25.0,
                position_uncertainty_m: 2.0,
                max_commands_per_s: 2.0,
                clamp_altitude: true,
            },
            watchdog: WatchdogConfig {
                ladder: vec![FailsafeStep::Hold, FailsafeStep::Return, FailsafeStep::Land],
                step_interval_ms: 15_000,
                max_generation_failures: 3,
                min_time_to_breach_ms: 3_000,
                hold_setpoint_hz: 10.0,
                decision_period_ms: 5_000,
                handover_max_ms: 600_000,
            },
            handover_cut: HandoverCut::default(),
            after_success: AfterSuccess::Stay,
        }
    }
}
