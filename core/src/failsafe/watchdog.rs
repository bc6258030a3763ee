//! The watchdog: the runtime reports decisions, failures, the link and the way home to it, and
//! asks it at each tick what to do ([`WatchdogAction`]).

use super::state::{Cause, Decisions, Engaged, Ladder, Phase, ReturnProgress};
use super::way_home::ReturnStatus;
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

/// While a hold is the step taken, a predicted breach takes it again after this long, ms.
pub const PREDICTED_BREACH_REPEAT_MS: u64 = 5_000;

/// While a hold is the step taken, a breach the vehicle must act on now (no time left before
/// its move out of the way) takes it again after this long, ms: the gate's failsafe path turns
/// that hold into the move at once instead of at the next [`PREDICTED_BREACH_REPEAT_MS`]. On
/// real PX4 at 5x, a hold taken when the breach was still beyond the move's lead stood for
/// 5 s while traffic closed in, and the move came 2.6 s after the separation was lost.
pub const PREDICTED_BREACH_URGENT_REPEAT_MS: u64 = 500;

/// The watchdog's state machine.
#[derive(Debug, Clone)]
pub struct Watchdog {
    pub(super) ladder: Vec<FailsafeStep>,
    pub(super) step_interval_ms: u64,
    deadline_ms: u64,
    max_failures: u32,
    min_time_to_breach_ms: u64,
    decisions: Decisions,
    link_lost: bool,
    /// The runtime's latest measure of the way home.
    pub(super) way_home: Option<ReturnStatus>,
    pub(super) ladder_state: Ladder,
    pub(super) phase: Phase,
}

impl Watchdog {
    pub fn new(config: &WatchdogConfig, decision_deadline_ms: u64) -> Self {
        Self {
            ladder: config.ladder.clone(),
            step_interval_ms: config.step_interval_ms.max(1),
            deadline_ms: decision_deadline_ms,
            max_failures: config.max_generation_failures.max(1),
            min_time_to_breach_ms: config.min_time_to_breach_ms,
            decisions: Decisions::default(),
            link_lost: false,
            way_home: None,
            ladder_state: Ladder::Idle,
            phase: Phase::Episode,
        }
    }

    /// The policy was asked for a decision at `now_ms`.
    pub fn decision_started(&mut self, now_ms: u64) {
        self.decisions.pending_since_ms.get_or_insert(now_ms);
    }

    /// A valid decision arrived: the ladder resets unless it already reached its last step
    /// (a landing is not undone by a late answer) or the link is still lost.
    pub fn decision_made(&mut self) {
        self.decisions = Decisions::default();
        if !self.link_lost && !self.at_last_step() {
            self.ladder_state = Ladder::Idle;
            self.way_home = None;
        }
    }

    /// The policy failed to produce a valid turn (after its repair attempts).
    pub fn generation_failed(&mut self) {
        self.decisions.failures += 1;
    }

    /// The policy answered in time, but with no valid turn (after its repair attempts): a
    /// generation failure, and no decision is pending any more — the runtime holds on its
    /// fallback until it asks again, so only `max_generation_failures` in a row escalate.
    pub fn answer_invalid(&mut self) {
        self.generation_failed();
        self.decisions.pending_since_ms = None;
    }

    pub fn link_lost(&mut self, lost: bool) {
        self.link_lost = lost;
    }

    /// What to do at `now_ms`, given the gate's predicted time to breach for the current
    /// trajectory (`None` when no breach is predicted).
    pub fn tick(&mut self, now_ms: u64, time_to_breach_ms: Option<u64>) -> WatchdogAction {
        let breach = time_to_breach_ms.is_some_and(|t| t < self.min_time_to_breach_ms);
        let act_now = time_to_breach_ms == Some(0);
        let escalation = self.escalation(now_ms);
        if !breach && escalation.is_none() {
            return self.normal_operation();
        }
        if self.ladder.is_empty() {
            // No step to take: the hold is all there is.
            return WatchdogAction::StreamHold;
        }
        if let Some(cause) = escalation
            && self.restart_from_breach_hold(now_ms, cause)
        {
            return WatchdogAction::Step(FailsafeStep::Hold);
        }
        // The ladder's own escalation comes first, so a predicted breach never keeps it from
        // its next step.
        let next = escalation
            .and_then(|cause| self.escalation_step(now_ms, cause, breach))
            .or_else(|| self.breach_step(now_ms, breach, act_now));
        match next {
            Some((i, cause)) => self.take(i, cause, now_ms),
            None => WatchdogAction::StreamHold,
        }
    }

    /// The cause that escalates the ladder at `now_ms`, if any, the strongest first: a lost
    /// link, then generation failures, then a missed deadline, then the episode's end.
    fn escalation(&self, now_ms: u64) -> Option<Cause> {
        if self.link_lost {
            Some(Cause::LinkLost)
        } else if self.decisions.failures >= self.max_failures {
            Some(Cause::GenerationFailures)
        } else if self.decisions.overdue(now_ms, self.deadline_ms) {
            Some(Cause::DeadlineMissed)
        } else if self.has_ended() {
            Some(Cause::EpisodeEnded)
        } else {
            None
        }
    }

    /// Nothing escalates and no breach is predicted: stream the hold while a decision is
    /// pending.
    fn normal_operation(&self) -> WatchdogAction {
        if self.decisions.pending_since_ms.is_some() {
            WatchdogAction::StreamHold
        } else {
            WatchdogAction::None
        }
    }

    /// A hold taken for a predicted breach is not time served for a cause that escalates:
    /// that cause's ladder starts at its hold, now. Returns whether it did.
    fn restart_from_breach_hold(&mut self, now_ms: u64, cause: Cause) -> bool {
        let Ladder::Engaged(e) = &mut self.ladder_state else {
            return false;
        };
        if e.cause != Cause::PredictedBreach || self.ladder[e.index] != FailsafeStep::Hold {
            return false;
        }
        e.since_ms = now_ms;
        e.last_taken_ms = now_ms;
        e.cause = cause;
        e.last_cause = cause;
        true
    }

    /// The ladder's step for an escalating `cause`: its first step once nothing else is
    /// predicted (a predicted breach takes it in [`Self::breach_step`]), then the next one each
    /// step interval, both as the way home allows ([`Self::refine_step`]).
    fn escalation_step(&self, now_ms: u64, cause: Cause, breach: bool) -> Option<(usize, Cause)> {
        match self.ladder_state {
            Ladder::Idle if !breach => self.refine_step(0, now_ms).map(|i| (i, cause)),
            Ladder::Engaged(e) if now_ms.saturating_sub(e.since_ms) >= self.step_interval_ms => {
                (e.index + 1 < self.ladder.len())
                    .then_some(e.index + 1)
                    .and_then(|i| self.refine_step(i, now_ms))
                    .map(|i| (i, cause))
            }
            _ => None,
        }
    }

    /// The step for a predicted breach: the first step (hold) at once, and while a hold is the
    /// step taken, the hold again every [`PREDICTED_BREACH_REPEAT_MS`], or every
    /// [`PREDICTED_BREACH_URGENT_REPEAT_MS`] once the vehicle must act now (`act_now`): the
    /// gate's failsafe path turns a hold in traffic's way into a move out of it. A return or a
    /// landing under way is left alone; taking the hold again keeps the time it was first taken,
    /// so the ladder still steps on from it.
    fn breach_step(&self, now_ms: u64, breach: bool, act_now: bool) -> Option<(usize, Cause)> {
        let repeat_ms = if act_now {
            PREDICTED_BREACH_URGENT_REPEAT_MS
        } else {
            PREDICTED_BREACH_REPEAT_MS
        };
        match self.ladder_state {
            _ if !breach => None,
            Ladder::Idle => self
                .refine_step(0, now_ms)
                .map(|i| (i, Cause::PredictedBreach)),
            Ladder::Engaged(e) => (self.ladder[e.index] == FailsafeStep::Hold
                && now_ms.saturating_sub(e.last_taken_ms) >= repeat_ms)
                .then_some((e.index, Cause::PredictedBreach)),
        }
    }

    /// Takes ladder step `i` for `cause` at `now_ms`: a new step starts its interval; the step
    /// already taken (a hold, for a predicted breach) is taken again and keeps its start.
    fn take(&mut self, i: usize, cause: Cause, now_ms: u64) -> WatchdogAction {
        match &mut self.ladder_state {
            Ladder::Engaged(e) if e.index == i => {
                e.last_cause = cause;
                if cause == Cause::PredictedBreach {
                    e.last_taken_ms = now_ms;
                }
            }
            _ => self.ladder_state = Ladder::Engaged(Engaged::new(i, cause, now_ms)),
        }
        WatchdogAction::Step(self.ladder[i])
    }

    /// The ladder took the vehicle away (a return or landing) for a lost link that is back:
    /// nothing escalates any more and the agent may decide again (a valid decision resets the
    /// ladder), so the runtime stops waiting on the turn it was flying.
    pub fn released(&self) -> bool {
        matches!(
            self.ladder_state,
            Ladder::Engaged(e)
                if self.ladder[e.index] != FailsafeStep::Hold && e.cause == Cause::LinkLost
        ) && !self.link_lost
    }

    /// The step taken last and why, if the ladder is engaged.
    pub fn engaged(&self) -> Option<(FailsafeStep, Cause)> {
        match self.ladder_state {
            Ladder::Engaged(e) => Some((self.ladder[e.index], e.last_cause)),
            Ladder::Idle => None,
        }
    }

    fn at_last_step(&self) -> bool {
        self.taken_index()
            .is_some_and(|i| i + 1 == self.ladder.len())
    }

    /// The runtime's measure of the way home at `now_ms`, for the land step (see the module
    /// doc). Without one, the ladder steps on its interval alone.
    pub fn observe_return(&mut self, now_ms: u64, status: ReturnStatus) {
        self.way_home = Some(status);
        if let Ladder::Engaged(e) = &mut self.ladder_state
            && self.ladder[e.index] == FailsafeStep::Return
        {
            e.progress =
                ReturnProgress::after(e.progress, status.home_distance_m, status.height_m, now_ms);
        }
    }

    /// The episode is over with the vehicle in the air, already flying `under_way` (a return
    /// or a landing) or not: no decision will come, so the ladder takes the vehicle down from
    /// here — its return at once (its land step when the gate rules the return out), unless
    /// that or a later step is under way. The land step may follow a return as [`Self::tick`]
    /// allows. Returns the step to take now.
    pub fn episode_ended(
        &mut self,
        now_ms: u64,
        under_way: Option<FailsafeStep>,
    ) -> WatchdogAction {
        if self.phase == Phase::Episode {
            self.phase = Phase::HandOver { since_ms: now_ms };
        }
        if under_way.is_none()
            && matches!(
                self.step_taken(),
                Some(FailsafeStep::Return | FailsafeStep::Land)
            )
        {
            // The ladder's return or landing was replaced by a later decision: the vehicle is
            // not flying it, so it is taken again.
            self.ladder_state = Ladder::Idle;
        }
        self.adopt_step_under_way(now_ms, under_way);
        match self.hand_over_step(now_ms, under_way) {
            Some(i) if self.taken_index().is_none_or(|t| t < i) => {
                self.ladder_state = Ladder::Engaged(Engaged::new(i, Cause::EpisodeEnded, now_ms));
                WatchdogAction::Step(self.ladder[i])
            }
            _ => WatchdogAction::StreamHold,
        }
    }

    /// A return or landing the vehicle flies at the episode's end becomes the step taken, when
    /// it is further down the ladder than the step taken so far (keeping that step's cause).
    fn adopt_step_under_way(&mut self, now_ms: u64, under_way: Option<FailsafeStep>) {
        let Some(i) = under_way.and_then(|step| self.index_of(step)) else {
            return;
        };
        if self.taken_index().is_some_and(|t| t >= i) {
            return;
        }
        let cause = match self.ladder_state {
            Ladder::Engaged(e) => e.last_cause,
            Ladder::Idle => Cause::EpisodeEnded,
        };
        self.ladder_state = Ladder::Engaged(Engaged::new(i, cause, now_ms));
    }

    /// The step the hand-over wants at the episode's end: a hold while traffic is in the way
    /// of a return not under way yet, else the return as the way home allows, else the land
    /// step.
    fn hand_over_step(&self, now_ms: u64, under_way: Option<FailsafeStep>) -> Option<usize> {
        if self.return_deferred(now_ms)
            && under_way.is_none()
            && let Some(hold) = self.index_of(FailsafeStep::Hold)
        {
            return Some(hold);
        }
        self.index_of(FailsafeStep::Return)
            .and_then(|i| self.refine_step(i, now_ms))
            .or_else(|| self.index_of(FailsafeStep::Land))
    }

    /// The episode is over ([`Self::episode_ended`]): the hand-over is flying.
    pub fn has_ended(&self) -> bool {
        matches!(self.phase, Phase::HandOver { .. })
    }

    /// The index of the step taken last, if any.
    fn taken_index(&self) -> Option<usize> {
        match self.ladder_state {
            Ladder::Engaged(e) => Some(e.index),
            Ladder::Idle => None,
        }
    }

    /// The step taken last, if any.
    pub(super) fn step_taken(&self) -> Option<FailsafeStep> {
        self.taken_index().map(|i| self.ladder[i])
    }

    /// The first position of `step` in the ladder.
    fn index_of(&self, step: FailsafeStep) -> Option<usize> {
        self.ladder.iter().position(|s| *s == step)
    }
}

#[cfg(test)]
mod tests;
