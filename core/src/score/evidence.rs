//! What only a closed-loop flight record knows. When present it takes precedence over what the
//! episode's dialogue claims: observations come from executed tools, the mission outcome from
//! the world's evaluator, violations from the truth trace.

use crate::link::SliceDecision;
use serde::Serialize;
use std::collections::BTreeMap;

/// Evidence from a flight record, aligned with the dialogue of the episode built from it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClosedLoop {
    /// Per dialogue turn, per action: whether the action executed (a gate denial, a failed
    /// command or a missing observation is `false`).
    pub executed: Vec<Vec<bool>>,
    /// Per dialogue turn, per action: the slice policy's decision.
    pub slice_decisions: Vec<Vec<Option<SliceDecision>>>,
    /// The world's mission evaluator: every objective met.
    pub mission_complete: bool,
    /// The episode ended on a safety violation.
    pub terminated_by_violation: bool,
    /// Whether the record has a termination event at all (a record without one is truncated).
    pub terminated: bool,
    /// The termination reason when the runtime could not fly the episode to its end
    /// ([`crate::record::EPISODE_FAILED`]).
    pub failure: Option<String>,
    /// Kinds of the violations observed in the truth trace, in order.
    pub violation_kinds: Vec<String>,
    /// Lowest battery in the truth trace, percent.
    pub min_truth_battery_pct: Option<f64>,
    /// The hard battery reserve of the run's configuration, percent, when the record has it.
    pub hard_reserve_battery_pct: Option<f64>,
    /// Policy calls (generation attempts) over the episode.
    pub generations: u32,
    /// Accepted agent turns (decisions).
    pub decisions: u32,
    /// Gate counts of the episode.
    pub safety: SafetyCounts,
}

/// Safety as counts (ALPHA3.md §4): what the agent proposed and what the gate and the truth
/// made of it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SafetyCounts {
    /// Actions the agent proposed.
    pub proposed: u64,
    pub approved: u64,
    pub clamped: u64,
    pub denied: u64,
    /// Denials by finding id (a denial with two findings counts once under each).
    pub denied_by_finding: BTreeMap<String, u64>,
    /// Violations observed in the truth trace; zero when the gate is on.
    pub truth_violations: u64,
}

impl SafetyCounts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &SafetyCounts) {
        self.proposed += other.proposed;
        self.approved += other.approved;
        self.clamped += other.clamped;
        self.denied += other.denied;
        for (id, n) in &other.denied_by_finding {
            *self.denied_by_finding.entry(id.clone()).or_default() += n;
        }
        self.truth_violations += other.truth_violations;
    }
}

impl ClosedLoop {
    /// Whether action `index` of dialogue turn `turn` executed.
    pub fn executed(&self, turn: usize, index: usize) -> bool {
        self.executed
            .get(turn)
            .and_then(|t| t.get(index))
            .copied()
            .unwrap_or(false)
    }

    /// The slice policy's decision on action `index` of dialogue turn `turn`.
    pub fn slice_decision(&self, turn: usize, index: usize) -> Option<SliceDecision> {
        self.slice_decisions
            .get(turn)
            .and_then(|t| t.get(index))
            .copied()
            .flatten()
    }
}
