//! How long the vehicle takes to fly a leg, with bounds, and the link outages the mission plan
//! announces — so a turn's commands fit the loop's world-time budget and no command is due
//! while the link is down.

use alpha3_sim::dynamics::FlightLimits;

/// Leave this much between the end of the last command and the start of an outage, seconds.
pub(super) const OUTAGE_LEAD_S: f64 = 6.0;
/// Hold this long past the end of an outage, seconds (the link monitor needs a fresh sample).
pub(super) const OUTAGE_TAIL_S: f64 = 1.5;

/// The airframe's pace as the flight controller flies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Pace {
    cruise_mps: f64,
    climb_mps: f64,
    descent_mps: f64,
    accel_mps2: f64,
}

impl Pace {
    pub fn of(limits: &FlightLimits) -> Self {
        Self {
            cruise_mps: limits.cruise_speed_mps.min(limits.max_speed_mps).max(0.5),
            climb_mps: limits.max_climb_mps.max(0.2),
            descent_mps: limits.max_descent_mps.max(0.2),
            accel_mps2: limits.max_accel_h_mps2.max(0.5),
        }
    }

    pub fn cruise_mps(&self) -> f64 {
        self.cruise_mps
    }

    /// Nominal time of a straight leg from rest to rest, seconds: the controller flies the 3-D
    /// line at the slower of the horizontal cruise and the climb or descent rate, accelerates
    /// and brakes, then settles on the point.
    pub fn leg_s(&self, from: [f64; 3], to: [f64; 3]) -> f64 {
        let dh = (to[0] - from[0]).hypot(to[1] - from[1]);
        let dz = to[2] - from[2];
        let d = dh.hypot(dz);
        if d < 0.5 {
            return 1.0;
        }
        let (uh, uz) = (dh / d, dz.abs() / d);
        let vz = if dz > 0.0 {
            self.climb_mps
        } else {
            self.descent_mps
        };
        let mut v = f64::INFINITY;
        let mut a = f64::INFINITY;
        if uh > 1e-9 {
            v = v.min(self.cruise_mps / uh);
            a = a.min(self.accel_mps2 / uh);
        }
        if uz > 1e-9 {
            v = v.min(vz / uz);
            a = a.min(4.0 / uz);
        }
        d / v + v / a + 3.0
    }

    /// Time to descend from `z` to the ground, seconds.
    pub fn descent_s(&self, z: f64) -> f64 {
        z.max(0.0) / self.descent_mps + 8.0
    }
}

/// Bounds on a nominal duration: wind, gusts and a degraded motor slow the vehicle down.
pub(super) fn bounds(nominal_s: f64) -> (f64, f64) {
    (0.85 * nominal_s - 1.0, 1.3 * nominal_s + 4.0)
}

/// An announced link outage, scenario seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Outage {
    pub start_s: f64,
    pub end_s: f64,
}

/// The first outage that is not over at `t_s` and begins before `until_s` (with the lead).
pub(super) fn outage_between(outages: &[Outage], t_s: f64, until_s: f64) -> Option<Outage> {
    outages
        .iter()
        .copied()
        .filter(|o| o.end_s + OUTAGE_TAIL_S > t_s && o.start_s - OUTAGE_LEAD_S < until_s)
        .min_by(|a, b| a.start_s.total_cmp(&b.start_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace() -> Pace {
        Pace {
            cruise_mps: 9.0,
            climb_mps: 3.0,
            descent_mps: 1.5,
            accel_mps2: 5.0,
        }
    }

    #[test]
    fn legs_take_cruise_time_plus_braking_and_vertical_legs_the_climb_rate() {
        let p = pace();
        let level = p.leg_s([0.0, 0.0, 50.0], [90.0, 0.0, 50.0]);
        assert!((level - (10.0 + 1.8 + 3.0)).abs() < 1e-9, "{level}");
        let down = p.leg_s([0.0, 0.0, 50.0], [0.0, 0.0, 20.0]);
        assert!(down > 20.0, "descending 30 m at 1.5 m/s: {down}");
        assert!(p.leg_s([0.0; 3], [0.0; 3]) > 0.0);
        let (lo, hi) = bounds(level);
        assert!(lo < level && level < hi);
    }

    #[test]
    fn outages_ahead_are_found_with_their_lead() {
        let o = [
            Outage {
                start_s: 100.0,
                end_s: 110.0,
            },
            Outage {
                start_s: 200.0,
                end_s: 220.0,
            },
        ];
        assert_eq!(outage_between(&o, 0.0, 50.0), None);
        assert_eq!(outage_between(&o, 0.0, 96.0), Some(o[0]));
        assert_eq!(outage_between(&o, 120.0, 300.0), Some(o[1]));
        assert_eq!(outage_between(&o, 230.0, 900.0), None);
    }
}
