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
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
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
        // The watchdog's own step under way is not sent again (see [`repeats`]).
        let flying = self.last_sent.filter(|_| self.last_sent_by_watchdog);
        let approved = verdict
            .approved()
            .filter(|a| !flying.is_some_and(|f| repeats(f, a.command(), snapshot)));
        if let Some(approved) = approved {
            let receipt = self.send_approved(approved).await;
            self.last_sent_by_watchdog = receipt.accepted;
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

/// Beyond this the vehicle has not got where the step under way takes it, m.
const NOT_THERE_M: f64 = 2.0;

/// Whether the watchdog's `next` step only repeats `flying`, its step the vehicle flies now:
/// a hold while the vehicle holds, a climb (or descent) while it climbs to a height in the
/// same direction, a move out of the way while it flies one the same way (within about 25°).
/// Such a step is not sent again. PX4 takes each hold as a new braking point from where the
/// vehicle is, and each reposition as a new trajectory from where it is: one every half second
/// kept a stopping vehicle creeping on at 1 m/s (real PX4 SITL, 4 m in 4 s towards a mate's
/// path), and a climb out of the way at under 1 m/s for 6 s, while a mate timed it at 3 m/s
/// from its intent. A step the other way, another kind of step, or a mode the vehicle left
/// (not Hold, in which PX4 flies a reposition, nor Offboard/Guided) is sent.
fn repeats(flying: Command, next: &Command, s: &VehicleSnapshot) -> bool {
    if !matches!(s.mode, FlightMode::Hold | FlightMode::Offboard) {
        return false;
    }
    match (flying, *next) {
        (Command::Hold, Command::Hold) => true,
        (Command::SetAltitude { altitude_m: a }, Command::SetAltitude { altitude_m: b }) => {
            let z = s.position.z;
            (a - z).abs() > NOT_THERE_M && (a - z).signum() == (b - z).signum()
        }
        (Command::GoTo { target: a, .. }, Command::GoTo { target: b, .. }) => {
            let p = s.position.to_vector();
            let (to_a, to_b) = (a.to_vector() - p, b.to_vector() - p);
            to_a.norm() > NOT_THERE_M && to_a.dot(&to_b) > 0.9 * to_a.norm() * to_b.norm()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::frames::{Enu, Geo};
    use alpha3_core::snapshot::LandedState;

    fn at(z: f64, mode: FlightMode) -> VehicleSnapshot {
        let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
        s.landed = LandedState::InAir;
        s.position = Enu::new(10.0, 20.0, z);
        s.mode = mode;
        s
    }

    fn up_to(altitude_m: f64) -> Command {
        Command::SetAltitude { altitude_m }
    }

    #[test]
    fn a_hold_or_a_climb_under_way_is_not_sent_again() {
        let holding = at(40.0, FlightMode::Hold);
        assert!(repeats(Command::Hold, &Command::Hold, &holding));
        // Climbing from 40 m to 90 m; the gate now says 95 m: the same climb.
        let climbing = at(45.0, FlightMode::Hold);
        assert!(repeats(up_to(90.0), &up_to(95.0), &climbing));
        // Sideways 50 m east, asked again from 10 m further on.
        let east = Command::GoTo {
            target: Enu::new(60.0, 20.0, 40.0),
            speed_mps: None,
        };
        let again = Command::GoTo {
            target: Enu::new(70.0, 21.0, 40.0),
            speed_mps: None,
        };
        assert!(repeats(east, &again, &at(40.0, FlightMode::Offboard)));
    }

    #[test]
    fn another_step_another_way_an_arrival_or_another_mode_is_sent() {
        let climbing = at(45.0, FlightMode::Hold);
        // Down instead of up; a hold instead of the climb; the other way round.
        assert!(!repeats(up_to(90.0), &up_to(10.0), &climbing));
        assert!(!repeats(up_to(90.0), &Command::Hold, &climbing));
        assert!(!repeats(Command::Hold, &up_to(90.0), &climbing));
        // There already: a new climb from there is a new step.
        assert!(!repeats(
            up_to(90.0),
            &up_to(140.0),
            &at(89.0, FlightMode::Hold)
        ));
        // The vehicle left the mode the step flies in (a ground station took it home).
        assert!(!repeats(
            Command::Hold,
            &Command::Hold,
            &at(40.0, FlightMode::Return)
        ));
        let west = Command::GoTo {
            target: Enu::new(-40.0, 20.0, 40.0),
            speed_mps: None,
        };
        let east = Command::GoTo {
            target: Enu::new(60.0, 20.0, 40.0),
            speed_mps: None,
        };
        assert!(!repeats(east, &west, &at(40.0, FlightMode::Hold)));
    }
}
