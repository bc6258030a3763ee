//! How the measure of the way home shapes the ladder's return and land steps: a return the gate
//! rules out gives way to the land step, a return waits a while for traffic in its way, and the
//! land step waits while the return under way progresses.

use super::state::{Ladder, Phase};
use super::watchdog::Watchdog;
use super::way_home::{HANDOVER_TRAFFIC_WAIT_MS, RETURN_AT_HOME_M};
use crate::config::FailsafeStep;

impl Watchdog {
    /// Ladder step `i`, due now, adjusted for the way home: a return the gate rules out gives
    /// way to the land step after it; a return waits while traffic is in its way
    /// ([`Self::return_deferred`]); a land step after a return waits while the return
    /// progresses ([`Self::return_yields`]). `None`: no step now.
    pub(super) fn refine_step(&self, i: usize, now_ms: u64) -> Option<usize> {
        let step = self.ladder[i];
        let land_next = self.ladder.get(i + 1) == Some(&FailsafeStep::Land);
        if step == FailsafeStep::Return && land_next && self.way_home.is_some_and(|s| s.ruled_out) {
            return Some(i + 1);
        }
        if step == FailsafeStep::Return && self.return_deferred(now_ms) {
            return None;
        }
        if step == FailsafeStep::Land
            && self.step_taken() == Some(FailsafeStep::Return)
            && !self.return_yields(now_ms)
        {
            return None;
        }
        Some(i)
    }

    /// Whether the return step waits for traffic in its way (on a way the gate does not rule
    /// out): for one step interval past its due time (the step before it was taken at least one interval ago). In
    /// the hand-over the return is due when the episode ends, so it waits up to
    /// [`HANDOVER_TRAFFIC_WAIT_MS`] from then, holding clear of the traffic (see
    /// [`Self::episode_ended`]): the failsafe path would fly the return through the traffic.
    pub(super) fn return_deferred(&self, now_ms: u64) -> bool {
        let waits = |from: u64, for_ms: u64| now_ms.saturating_sub(from) < for_ms;
        self.way_home
            .is_some_and(|s| s.traffic_in_way && !s.ruled_out)
            && match self.phase {
                Phase::HandOver { since_ms } => waits(since_ms, HANDOVER_TRAFFIC_WAIT_MS),
                Phase::Episode => match self.ladder_state {
                    Ladder::Idle => true,
                    Ladder::Engaged(e) => waits(e.since_ms, 2 * self.step_interval_ms),
                },
            }
    }

    /// Whether the return under way must give way to the land step: it is ruled out, or it
    /// has made no progress ([`RETURN_PROGRESS_M`]) within a step interval. A return over
    /// home ([`RETURN_AT_HOME_M`]) never does; without a measurement it always does (the plain
    /// ladder).
    ///
    /// [`RETURN_PROGRESS_M`]: super::RETURN_PROGRESS_M
    fn return_yields(&self, now_ms: u64) -> bool {
        let Some(status) = self.way_home else {
            return true;
        };
        if status.home_distance_m < RETURN_AT_HOME_M {
            return false;
        }
        let progress = match self.ladder_state {
            Ladder::Engaged(e) => e.progress,
            Ladder::Idle => None,
        };
        status.ruled_out
            || progress.is_none_or(|p| now_ms.saturating_sub(p.at_ms) >= self.step_interval_ms)
    }
}
