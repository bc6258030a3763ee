//! "The command is done" as telemetry shows it, for a flight controller whose own arrival test
//! is out of sight (an autopilot over MAVLink).

use crate::frames::Enu;
use crate::snapshot::{FlightMode, LandedState, VehicleSnapshot};

/// Still, in the sense of "the command is done": slower than this horizontally, m/s. A real
/// autopilot's position hold is never quite still: PX4 SIH hovers with 0.1–0.7 m/s of velocity
/// noise, and a tighter bound kept moves "unfinished" for seconds.
const SETTLED_SPEED_MPS: f64 = 1.0;
/// Still: slower than this vertically, m/s.
const SETTLED_CLIMB_MPS: f64 = 0.5;
/// How close to a commanded target counts as there, horizontally, metres.
const ARRIVED_H_M: f64 = 3.0;
/// How close to a commanded target counts as there, vertically, metres.
const ARRIVED_V_M: f64 = 2.0;

/// Whether the vehicle reported as `s` is done with a command going to `target` (`None`: no
/// place to reach): disarmed or on the ground; otherwise not taking off, returning or landing,
/// still, and at the target.
pub fn reported_settled(s: &VehicleSnapshot, target: Option<Enu>) -> bool {
    if !s.armed || s.landed == LandedState::OnGround {
        return true;
    }
    let still = s.ground_speed_mps() < SETTLED_SPEED_MPS && s.velocity.z.abs() < SETTLED_CLIMB_MPS;
    if matches!(
        s.mode,
        FlightMode::Takeoff | FlightMode::Return | FlightMode::Land
    ) {
        return false;
    }
    let there = target.is_none_or(|t| {
        s.position.horizontal_distance(t) <= ARRIVED_H_M
            && (s.position.z - t.z).abs() <= ARRIVED_V_M
    });
    still && there
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hovering(at: Enu) -> VehicleSnapshot {
        let home = crate::frames::Geo {
            lat_deg: 47.4,
            lon_deg: 8.5,
            alt_amsl_m: 488.0,
        };
        VehicleSnapshot {
            armed: true,
            landed: LandedState::InAir,
            position: at,
            ..VehicleSnapshot::on_ground_at_home(home, 0)
        }
    }

    #[test]
    fn on_the_ground_or_disarmed_is_settled() {
        let mut s = hovering(Enu::new(0.0, 0.0, 10.0));
        s.velocity = Enu::new(5.0, 0.0, 0.0);
        s.landed = LandedState::OnGround;
        assert!(reported_settled(&s, Some(Enu::new(100.0, 0.0, 10.0))));
        s.landed = LandedState::InAir;
        s.armed = false;
        assert!(reported_settled(&s, Some(Enu::new(100.0, 0.0, 10.0))));
    }

    #[test]
    fn a_still_hover_is_settled_only_at_its_target() {
        let s = hovering(Enu::new(0.0, 0.0, 10.0));
        assert!(reported_settled(&s, None));
        assert!(reported_settled(&s, Some(Enu::new(2.9, 0.0, 11.9))));
        assert!(!reported_settled(&s, Some(Enu::new(3.1, 0.0, 10.0))));
        assert!(!reported_settled(&s, Some(Enu::new(0.0, 0.0, 12.1))));
    }

    #[test]
    fn moving_or_in_a_sequence_is_not_settled() {
        let mut s = hovering(Enu::new(0.0, 0.0, 10.0));
        s.velocity = Enu::new(0.0, 1.0, 0.0);
        assert!(!reported_settled(&s, None));
        s.velocity = Enu::new(0.0, 0.0, -0.5);
        assert!(!reported_settled(&s, None));
        let mut s = hovering(Enu::new(0.0, 0.0, 10.0));
        for mode in [FlightMode::Takeoff, FlightMode::Return, FlightMode::Land] {
            s.mode = mode;
            assert!(!reported_settled(&s, None), "{mode:?}");
        }
    }
}
