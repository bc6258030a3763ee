//! The end of an unsuccessful episode with the vehicle still in the air: the hand-over to the
//! failsafe.
//!
//! Once an episode is over nobody decides for the vehicle: left hovering, it would stay there
//! until its battery ran out. So after an episode that ended without success (a budget, the
//! link, a violation) with the vehicle airborne, the runtime hands it to the failsafe — the
//! watchdog's return, which ends with a landing at home, or its land step where the gate rules
//! the return out (see `alpha3_core::failsafe`) — and lets episode time run until the vehicle
//! is down or `watchdog.handover_max_ms` has passed. It is recorded like the episode itself
//! (watchdog steps with the cause `episodeended`, truth, link, violations), before the
//! termination line. A successful episode ends where its mission ends, under the agent's last
//! command — unless its mission ends with a return (a plan's RTL item,
//! `EpisodeSettings::after_success`): then the same return and landing follow it; or with a
//! landing (NAV_LAND): then the failsafe's landing where the vehicle is.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use crate::episode_setup::HandoverCut;
use alpha3_core::config::FailsafeStep;
use alpha3_core::failsafe::{WatchdogAction, return_status};
use alpha3_core::snapshot::FlightMode;
use alpha3_core::vehicle::VehicleLink;

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Hands a vehicle still in the air at the end of an unsuccessful episode (or of a plan that
    /// ends with a return) to the failsafe and runs episode time until it is down or `max_ms`
    /// has passed (0: not at all). `land_here`: a plan that ends with a landing — the
    /// failsafe's landing where the vehicle is, not its ladder from the return.
    pub(super) async fn hand_over(
        &mut self,
        max_ms: u64,
        cut: &HandoverCut,
        land_here: bool,
    ) -> Result<(), Interruption> {
        let snapshot = self.side.snapshot();
        if max_ms == 0 || !snapshot.is_airborne() {
            return Ok(());
        }
        self.refresh_plans();
        let now = self.side.now_ms();
        self.watchdog.observe_return(
            now,
            return_status(self.gate, &snapshot, now, self.return_to.as_ref(), true),
        );
        let under_way = match snapshot.mode {
            FlightMode::Return => Some(FailsafeStep::Return),
            FlightMode::Land => Some(FailsafeStep::Land),
            _ => None,
        };
        if land_here && under_way != Some(FailsafeStep::Land) {
            // The plan's own end: its landing, here above its landing place. The watchdog
            // takes it as its land step, for the episode's end.
            let _ = self.watchdog.episode_ended(now, Some(FailsafeStep::Land));
            self.take_step(&snapshot, now, FailsafeStep::Land).await?;
        } else if let WatchdogAction::Step(step) = self.watchdog.episode_ended(now, under_way) {
            self.take_step(&snapshot, now, step).await?;
        }
        let until = now.saturating_add(max_ms);
        while self.side.now_ms() < until && self.side.snapshot().is_airborne() {
            if cut.is_cut() {
                tracing::warn!(
                    "stopping: the vehicle is left to its failsafe command, still in the air"
                );
                return Ok(());
            }
            let next = (self.side.now_ms() + self.interval_ms).min(until);
            self.side.advance_to(next).await?;
            self.timing.ticked(self.side.now_ms().saturating_sub(next));
            self.tick().await?;
        }
        if self.side.snapshot().is_airborne() {
            tracing::warn!(
                "the vehicle is still in the air {} s after the episode ended",
                max_ms / 1000
            );
        }
        Ok(())
    }
}
