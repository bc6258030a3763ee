//! What the watchdog remembers between calls: the decisions it waits on, where its ladder is,
//! how far a return under way has come, and whether the episode is over.

use super::way_home::RETURN_PROGRESS_M;
use serde::{Deserialize, Serialize};

/// Why the watchdog escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    DeadlineMissed,
    GenerationFailures,
    LinkLost,
    PredictedBreach,
    /// The episode is over with the vehicle in the air: no decision will come.
    EpisodeEnded,
}

/// The policy's decisions as the watchdog counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Decisions {
    /// When the decision now pending was asked for; `None` while none is.
    pub pending_since_ms: Option<u64>,
    /// Generation failures since the last valid decision.
    pub failures: u32,
}

impl Decisions {
    /// Whether the pending decision is later than `deadline_ms` at `now_ms`.
    pub fn overdue(&self, now_ms: u64, deadline_ms: u64) -> bool {
        self.pending_since_ms
            .is_some_and(|t| now_ms.saturating_sub(t) > deadline_ms)
    }
}

/// Where the ladder is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Ladder {
    /// No step taken: normal operation.
    Idle,
    /// A step was taken and stands until a valid decision resets the ladder.
    Engaged(Engaged),
}

/// The ladder step taken last.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Engaged {
    /// Its index in the configured ladder.
    pub index: usize,
    /// When it was first taken: the next step is due one step interval later.
    pub since_ms: u64,
    /// Why it was first taken (taking it again for a predicted breach keeps this).
    pub cause: Cause,
    /// Why it was taken last: [`Cause::PredictedBreach`] after it was taken again for one.
    pub last_cause: Cause,
    /// When it was taken last (first, or again for a predicted breach).
    pub last_taken_ms: u64,
    /// While the step is a return: its progress so far (`None` until it is measured).
    pub progress: Option<ReturnProgress>,
}

impl Engaged {
    /// Step `index`, taken at `now_ms` for `cause`.
    pub fn new(index: usize, cause: Cause, now_ms: u64) -> Self {
        Self {
            index,
            since_ms: now_ms,
            cause,
            last_cause: cause,
            last_taken_ms: now_ms,
            progress: None,
        }
    }
}

/// The last progress of a return: the least distance to its destination so far, the height
/// then, and when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ReturnProgress {
    pub least_distance_m: f64,
    pub height_m: f64,
    pub at_ms: u64,
}

impl ReturnProgress {
    /// The progress after measuring the return `distance_m` from its destination at `height_m`
    /// at `now_ms`: it progressed when it got [`RETURN_PROGRESS_M`] closer than ever before or
    /// climbed or descended that much since it last progressed (the first measure always does).
    pub fn after(last: Option<Self>, distance_m: f64, height_m: f64, now_ms: u64) -> Option<Self> {
        let (d, h) = (distance_m, height_m);
        let progressed = last.is_none_or(|m| {
            d <= m.least_distance_m - RETURN_PROGRESS_M
                || (h - m.height_m).abs() >= RETURN_PROGRESS_M
        });
        if !progressed {
            return last;
        }
        Some(Self {
            least_distance_m: last.map_or(d, |m| m.least_distance_m.min(d)),
            height_m: h,
            at_ms: now_ms,
        })
    }
}

/// Whether anyone still decides for the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// The episode runs: the policy decides, the ladder stands in when it cannot.
    Episode,
    /// The episode ended at `since_ms` with the vehicle in the air: no decision will come, the
    /// ladder brings the vehicle down (the hand-over).
    HandOver { since_ms: u64 },
}
