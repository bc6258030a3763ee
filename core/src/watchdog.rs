//! The watchdog, so the LLM is never in the control loop: while a decision is pending the
//! vehicle holds; a missed deadline, repeated generation failures or a lost link step it down the
//! ladder (hold → return → land by default), one step per interval; a predicted breach makes it
//! hold at once. Pure: every input carries its time.

use crate::config::{FailsafeStep, WatchdogConfig};
use serde::{Deserialize, Serialize};

/// What the runtime must do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WatchdogAction {
    /// Nothing beyond normal operation.
    None,
    /// A decision is pending: keep streaming hold setpoints.
    StreamHold,
    /// Take this ladder step now (once; the runtime records it).
    Step(FailsafeStep),
}

/// Why the watchdog escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    DeadlineMissed,
    GenerationFailures,
    LinkLost,
    PredictedBreach,
}

/// The watchdog's state machine.
#[derive(Debug, Clone)]
pub struct Watchdog {
    ladder: Vec<FailsafeStep>,
    step_interval_ms: u64,
    deadline_ms: u64,
    max_failures: u32,
    min_time_to_breach_ms: u64,
    pending_since_ms: Option<u64>,
    failures: u32,
    link_lost: bool,
    /// Index of the ladder step taken last, and when.
    level: Option<(usize, u64)>,
    cause: Option<Cause>,
}

impl Watchdog {
    pub fn new(config: &WatchdogConfig, decision_deadline_ms: u64) -> Self {
        Self {
            ladder: config.ladder.clone(),
            step_interval_ms: config.step_interval_ms.max(1),
            deadline_ms: decision_deadline_ms,
            max_failures: config.max_generation_failures.max(1),
            min_time_to_breach_ms: config.min_time_to_breach_ms,
            pending_since_ms: None,
            failures: 0,
            link_lost: false,
            level: None,
            cause: None,
        }
    }

    /// The policy was asked for a decision at `now_ms`.
    pub fn decision_started(&mut self, now_ms: u64) {
        self.pending_since_ms.get_or_insert(now_ms);
    }

    /// A valid decision arrived: the ladder resets unless it already reached its last step
    /// (a landing is not undone by a late answer) or the link is still lost.
    pub fn decision_made(&mut self) {
        self.pending_since_ms = None;
        self.failures = 0;
        if !self.link_lost && !self.at_last_step() {
            self.level = None;
            self.cause = None;
        }
    }

    /// The policy failed to produce a valid turn (after its repair attempts).
    pub fn generation_failed(&mut self) {
        self.failures += 1;
    }

    pub fn link_lost(&mut self, lost: bool) {
        self.link_lost = lost;
    }

    /// What to do at `now_ms`, given the gate's predicted time to breach for the current
    /// trajectory (`None` when no breach is predicted).
    pub fn tick(&mut self, now_ms: u64, time_to_breach_ms: Option<u64>) -> WatchdogAction {
        let cause = if time_to_breach_ms.is_some_and(|t| t < self.min_time_to_breach_ms) {
            Some(Cause::PredictedBreach)
        } else if self.link_lost {
            Some(Cause::LinkLost)
        } else if self.failures >= self.max_failures {
            Some(Cause::GenerationFailures)
        } else if self
            .pending_since_ms
            .is_some_and(|t| now_ms.saturating_sub(t) > self.deadline_ms)
        {
            Some(Cause::DeadlineMissed)
        } else {
            None
        };
        let Some(cause) = cause else {
            return if self.pending_since_ms.is_some() {
                WatchdogAction::StreamHold
            } else {
                WatchdogAction::None
            };
        };
        if self.ladder.is_empty() {
            return WatchdogAction::StreamHold;
        }
        self.cause = Some(cause);
        let next = match self.level {
            None => Some(0),
            // A predicted breach only ever asks for the first step (hold) at once.
            Some(_) if cause == Cause::PredictedBreach => None,
            Some((i, at)) if now_ms.saturating_sub(at) >= self.step_interval_ms => {
                (i + 1 < self.ladder.len()).then_some(i + 1)
            }
            Some(_) => None,
        };
        match next {
            Some(i) => {
                self.level = Some((i, now_ms));
                WatchdogAction::Step(self.ladder[i])
            }
            None => WatchdogAction::StreamHold,
        }
    }

    /// The step taken last and why, if the ladder is engaged.
    pub fn engaged(&self) -> Option<(FailsafeStep, Cause)> {
        let (i, _) = self.level?;
        Some((self.ladder[i], self.cause?))
    }

    fn at_last_step(&self) -> bool {
        self.level.is_some_and(|(i, _)| i + 1 == self.ladder.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> WatchdogConfig {
        WatchdogConfig {
            ladder: vec![FailsafeStep::Hold, FailsafeStep::Return, FailsafeStep::Land],
            step_interval_ms: 10_000,
            max_generation_failures: 3,
            min_time_to_breach_ms: 3_000,
            hold_setpoint_hz: 10.0,
        }
    }

    #[test]
    fn a_pending_decision_holds_then_a_missed_deadline_walks_the_ladder() {
        let mut w = Watchdog::new(&config(), 5_000);
        w.decision_started(0);
        assert_eq!(w.tick(1_000, None), WatchdogAction::StreamHold);
        assert_eq!(w.tick(5_000, None), WatchdogAction::StreamHold);
        assert_eq!(
            w.tick(5_001, None),
            WatchdogAction::Step(FailsafeStep::Hold)
        );
        assert_eq!(w.tick(6_000, None), WatchdogAction::StreamHold);
        assert_eq!(
            w.tick(15_001, None),
            WatchdogAction::Step(FailsafeStep::Return)
        );
        assert_eq!(
            w.tick(25_001, None),
            WatchdogAction::Step(FailsafeStep::Land)
        );
        assert_eq!(
            w.tick(99_000, None),
            WatchdogAction::StreamHold,
            "no step past the last"
        );
        assert_eq!(
            w.engaged(),
            Some((FailsafeStep::Land, Cause::DeadlineMissed))
        );
        w.decision_made();
        assert_eq!(
            w.engaged().map(|e| e.0),
            Some(FailsafeStep::Land),
            "landing is not undone"
        );
    }

    #[test]
    fn a_valid_decision_before_the_last_step_resets_the_ladder() {
        let mut w = Watchdog::new(&config(), 5_000);
        w.decision_started(0);
        assert_eq!(
            w.tick(6_000, None),
            WatchdogAction::Step(FailsafeStep::Hold)
        );
        w.decision_made();
        assert_eq!(w.engaged(), None);
        assert_eq!(w.tick(7_000, None), WatchdogAction::None);
    }

    #[test]
    fn repeated_generation_failures_and_link_loss_escalate() {
        let mut w = Watchdog::new(&config(), 60_000);
        for _ in 0..3 {
            w.generation_failed();
        }
        assert_eq!(w.tick(100, None), WatchdogAction::Step(FailsafeStep::Hold));
        let mut w = Watchdog::new(&config(), 60_000);
        w.link_lost(true);
        assert_eq!(w.tick(100, None), WatchdogAction::Step(FailsafeStep::Hold));
        w.decision_made();
        assert_eq!(
            w.engaged().map(|e| e.1),
            Some(Cause::LinkLost),
            "still lost: no reset"
        );
    }

    #[test]
    fn a_predicted_breach_holds_at_once() {
        let mut w = Watchdog::new(&config(), 60_000);
        assert_eq!(w.tick(0, Some(10_000)), WatchdogAction::None);
        assert_eq!(
            w.tick(0, Some(2_000)),
            WatchdogAction::Step(FailsafeStep::Hold)
        );
        assert_eq!(w.tick(50_000, Some(2_000)), WatchdogAction::StreamHold);
    }
}
