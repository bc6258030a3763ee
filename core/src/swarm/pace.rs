//! How long a vehicle says a leg takes in its intent: its mates time the leg from where they
//! hear it, at the intent's own pace, so a pace that is too fast puts it where it has not
//! yet got. A multicopter flies across at its cruise speed but climbs and descends far slower
//! (PX4's defaults: 3 m/s up, 1.5 m/s down): a descent of 26 m timed at an 8 m/s cruise said
//! "down and gone in 3.3 s" for a vehicle that took 17 s, and a mate flew over it.

use crate::frames::Enu;

/// The speeds a leg is timed at, m/s (each at least 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    pub cruise_mps: f64,
    pub climb_mps: f64,
    pub descent_mps: f64,
}

impl Pace {
    /// Milliseconds from `from` to `to`: the slower of the way across at cruise and the way up
    /// or down at the climb or descent rate (a multicopter does both at once), at least 1.
    pub fn leg_ms(&self, from: Enu, to: Enu) -> u32 {
        let across_s = from.horizontal_distance(to) / self.cruise_mps.max(0.1);
        let dz = to.z - from.z;
        let rate = if dz >= 0.0 {
            self.climb_mps
        } else {
            self.descent_mps
        };
        let vertical_s = dz.abs() / rate.max(0.1);
        let ms = (across_s.max(vertical_s) * 1000.0).ceil();
        if ms.is_finite() {
            ms.clamp(1.0, 3.6e6) as u32
        } else {
            3_600_000
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: Pace = Pace {
        cruise_mps: 8.0,
        climb_mps: 3.0,
        descent_mps: 1.5,
    };

    #[test]
    fn a_descent_is_timed_at_the_descent_rate_not_the_cruise() {
        let here = Enu::new(106.0, 105.0, 36.0);
        let below = Enu::new(106.0, 105.0, 10.0);
        // 26 m down at 1.5 m/s, not at 8.
        assert_eq!(PACE.leg_ms(here, below), 17_334);
        assert_eq!(PACE.leg_ms(below, here), 8_667);
    }

    #[test]
    fn a_leg_across_and_up_takes_the_slower_of_the_two() {
        let from = Enu::new(0.0, 0.0, 40.0);
        assert_eq!(PACE.leg_ms(from, Enu::new(80.0, 0.0, 43.0)), 10_000);
        assert_eq!(PACE.leg_ms(from, Enu::new(8.0, 0.0, 70.0)), 10_000);
        assert_eq!(PACE.leg_ms(from, from), 1);
    }

    #[test]
    fn nonsense_speeds_or_positions_give_a_bounded_time() {
        let stuck = Pace {
            cruise_mps: 0.0,
            climb_mps: f64::NAN,
            descent_mps: -1.0,
        };
        let from = Enu::new(0.0, 0.0, 40.0);
        assert!(stuck.leg_ms(from, Enu::new(1.0, 0.0, 39.0)) >= 1);
        let far = Enu::new(f64::INFINITY, 0.0, 40.0);
        assert_eq!(PACE.leg_ms(from, far), 3_600_000);
    }
}
