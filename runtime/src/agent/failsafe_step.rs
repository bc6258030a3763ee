//! The watchdog's ladder step flown: through the gate's failsafe path, recorded with the
//! watchdog's cause.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use alpha3_core::command::Command;
use alpha3_core::config::FailsafeStep;
use alpha3_core::failsafe::return_command;
use alpha3_core::gate::evaluate_failsafe_in;
use alpha3_core::record::Event;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::VehicleLink;

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Takes the watchdog's ladder step `step` through the failsafe path of the gate, and
    /// records it with the watchdog's cause.
    pub(super) async fn take_step(
        &mut self,
        snapshot: &VehicleSnapshot,
        now: u64,
        step: FailsafeStep,
    ) -> Result<(), Interruption> {
        self.take_step_for(snapshot, now, step, None).await
    }

    /// [`Self::take_step`] for a cause of the runtime's own (`because`), not the watchdog's.
    pub(super) async fn take_step_for(
        &mut self,
        snapshot: &VehicleSnapshot,
        now: u64,
        step: FailsafeStep,
        because: Option<&str>,
    ) -> Result<(), Interruption> {
        let command = match step {
            FailsafeStep::Hold => Command::Hold,
            FailsafeStep::Return => {
                let nearest = self.watchdog.has_ended();
                let to = return_command(self.gate, snapshot, now, nearest)
                    .unwrap_or(Command::ReturnToHome);
                self.return_to = Some(to);
                to
            }
            FailsafeStep::Land => Command::Land { site: None },
        };
        // Knowing the airspace: a landing below the band continues, a hold in traffic's way
        // becomes a move out of it.
        let verdict = evaluate_failsafe_in(self.gate, snapshot, &command, now);
        let reason = match because {
            Some(b) => b.to_string(),
            None => self
                .watchdog
                .engaged()
                .map_or_else(String::new, |(_, c)| format!("{c:?}").to_lowercase()),
        };
        if let Some(approved) = verdict.approved() {
            let receipt = self.side.execute(approved).await;
            if !receipt.accepted {
                tracing::warn!(
                    "failsafe {} refused by the vehicle: {:?}",
                    command.name(),
                    receipt.message
                );
            }
        }
        self.recorder.append(
            now,
            Event::Watchdog {
                // What was flown: the gate may have made the step a landing or a move; a return
                // to an emergency site is named apart from the land step.
                action: match verdict.approved().map(|a| *a.command()) {
                    Some(Command::Land { site: Some(_) }) if step == FailsafeStep::Return => {
                        "return_to_site"
                    }
                    Some(c) => c.name(),
                    None => command.name(),
                }
                .to_string(),
                reason,
            },
        )?;
        Ok(())
    }
}
