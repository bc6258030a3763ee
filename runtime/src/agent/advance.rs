//! Episode time passing under watch: at every sample the link, the truth and new violations
//! are recorded and the watchdog may take its next ladder step.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use alpha3_core::config::FailsafeStep;
use alpha3_core::failsafe::{WatchdogAction, return_status};
use alpha3_core::gate::time_to_breach;
use alpha3_core::link::LinkCondition;
use alpha3_core::record::Event;
use alpha3_core::snapshot::FlightMode;
use alpha3_core::vehicle::VehicleLink;

/// When [`Flight::run_until`] may stop before its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Until {
    /// Only at the time.
    Time,
    /// When the watchdog, engaged for a lost link, is released by the link coming back.
    Released,
    /// As `Released`, or when the vehicle's command is done.
    Settled,
}

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Runs the vehicle until `until_ms` — or earlier as `until` allows, or at once when the
    /// process is stopping (the next decision then ends the episode) — sampling truth and
    /// link, reporting violations and letting the watchdog act.
    pub(super) async fn run_until(
        &mut self,
        until_ms: u64,
        until: Until,
    ) -> Result<(), Interruption> {
        while self.side.now_ms() < until_ms && !self.done(until) && !self.cut.is_cut() {
            let next = (self.side.now_ms() + self.interval_ms).min(until_ms);
            self.side.advance_to(next).await?;
            self.timing.ticked(self.side.now_ms().saturating_sub(next));
            self.tick().await?;
        }
        Ok(())
    }

    fn done(&self, until: Until) -> bool {
        match until {
            Until::Time => false,
            Until::Released => self.released(),
            Until::Settled => self.released() || self.side.is_settled(),
        }
    }

    /// The link is back, and the vehicle still flies the watchdog's return or landing (no later
    /// command of the agent's replaced it).
    fn released(&self) -> bool {
        self.watchdog.released()
            && matches!(
                self.side.snapshot().mode,
                FlightMode::Return | FlightMode::Land
            )
    }

    /// One sample after time moved: link, truth, new violations, and the watchdog's turn.
    pub(super) async fn tick(&mut self) -> Result<(), Interruption> {
        self.refresh_plans();
        let now = self.side.now_ms();
        let sample = self.side.link_sample();
        self.monitor.observe(sample, now);
        self.recorder.append(now, Event::Link { sample })?;
        self.recorder.append(now, self.side.truth_event())?;
        let violations = self.side.world().violations();
        for v in violations.iter().skip(self.reported) {
            self.recorder.append(now, v.to_event())?;
        }
        self.reported = violations.len();
        let snapshot = self.side.snapshot();
        let lost =
            self.monitor.state(now).condition == LinkCondition::Lost || self.side.vehicle_lost();
        self.watchdog.link_lost(lost);
        if self.watchdog.engaged().map(|e| e.0) != Some(FailsafeStep::Return) {
            self.return_to = None;
        }
        if self.watchdog.engaged().is_some() {
            // The land step weighs the return under way against the way there.
            let nearest = self.watchdog.has_ended();
            let status = return_status(self.gate, &snapshot, now, self.return_to.as_ref(), nearest);
            self.watchdog.observe_return(now, status);
        }
        self.watch_mission(&snapshot, now).await?;
        // Lost the swarm: stop now; the episode ends with the landing at the turn's end.
        if !self.swarm_held && snapshot.is_airborne() && self.side.swarm_lost(now) {
            self.swarm_held = true;
            self.take_step_for(&snapshot, now, FailsafeStep::Hold, Some("swarm_lost"))
                .await?;
        }
        // A holding vehicle must act earlier on traffic: by moving out of the way (escape_ms).
        let judging = std::time::Instant::now();
        let breach = time_to_breach(self.gate, &snapshot, now).map(|b| b.act_in_ms());
        self.timing.judged(
            now.saturating_sub(snapshot.time_ms),
            judging.elapsed().as_secs_f64() * 1e6,
        );
        if let WatchdogAction::Step(step) = self.watchdog.tick(now, breach) {
            self.take_step(&snapshot, now, step).await?;
        }
        Ok(())
    }
}
