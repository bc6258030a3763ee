//! Telemetry confirmation: an ACK is not proof of action (PX4 ACKs a reposition outside its
//! fence and then ignores it), so every command names the telemetry that shows it took effect.

use alpha3_core::frames::Enu;
use alpha3_core::snapshot::{FlightMode, LandedState, VehicleSnapshot};

/// Within this distance of a target the vehicle has arrived, metres.
pub const ARRIVED_M: f64 = 1.0;
/// Climb that shows a take-off started, metres.
const CLIMB_M: f64 = 0.5;
/// Speed toward a target that shows the vehicle is flying there, m/s: drift in a position hold
/// (wind after a take-off, GNSS wander) stays well below it.
pub const CLOSING_MPS: f64 = 0.5;
/// Heading error that counts as "on the requested yaw", degrees.
const YAW_DONE_DEG: f64 = 5.0;

/// What telemetry must show for a command to count as done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Confirm {
    /// Nothing in telemetry shows it (e.g. a speed limit): the ACK is all there is.
    Ack,
    Armed(bool),
    Mode(FlightMode),
    /// Take-off mode, a take-off landed state, or a climb from `from_z_m`.
    TakingOff {
        from_z_m: f64,
    },
    /// Closer to `target` by at least a metre (or half the way) while flying toward it at
    /// [`CLOSING_MPS`] or more, or already there. Getting closer alone is not enough: a hold
    /// drifting back after a take-off gets closer too, and PX4 ignores a reposition it ACKed.
    Approaching {
        target: Enu,
        from_distance_m: f64,
    },
    /// Within `radius_m` of `target`.
    Arrived {
        target: Enu,
        radius_m: f64,
    },
    /// Turning toward `target_deg` by at least 2°, or on it.
    Yaw {
        target_deg: f64,
        from_error_deg: f64,
    },
    /// Land mode or a landing/landed state.
    Landing,
}

impl Confirm {
    pub fn approaching(target: Enu, now: &VehicleSnapshot) -> Self {
        Confirm::Approaching {
            target,
            from_distance_m: now.position.distance(target),
        }
    }

    pub fn yaw(target_deg: f64, now: &VehicleSnapshot) -> Self {
        Confirm::Yaw {
            target_deg,
            from_error_deg: heading_error_deg(now.yaw_deg, target_deg),
        }
    }

    pub fn is_met(&self, s: &VehicleSnapshot) -> bool {
        match *self {
            Confirm::Ack => true,
            Confirm::Armed(armed) => s.armed == armed,
            Confirm::Mode(mode) => s.mode == mode,
            Confirm::TakingOff { from_z_m } => {
                s.mode == FlightMode::Takeoff
                    || s.landed == LandedState::TakingOff
                    || (s.armed && s.position.z > from_z_m + CLIMB_M)
            }
            Confirm::Approaching {
                target,
                from_distance_m,
            } => {
                let d = s.position.distance(target);
                let closer = d <= from_distance_m - (0.5 * from_distance_m).min(1.0);
                d <= ARRIVED_M || (closer && closing_speed_mps(s, target) >= CLOSING_MPS)
            }
            Confirm::Arrived { target, radius_m } => s.position.distance(target) <= radius_m,
            Confirm::Yaw {
                target_deg,
                from_error_deg,
            } => {
                let e = heading_error_deg(s.yaw_deg, target_deg);
                e <= YAW_DONE_DEG || e <= from_error_deg - 2.0
            }
            Confirm::Landing => {
                s.mode == FlightMode::Land
                    || matches!(s.landed, LandedState::Landing | LandedState::OnGround)
            }
        }
    }

    /// Words for a receipt when the confirmation did not come.
    pub fn describe(&self) -> String {
        match self {
            Confirm::Ack => "an acknowledgement".into(),
            Confirm::Armed(true) => "the vehicle armed".into(),
            Confirm::Armed(false) => "the vehicle disarmed".into(),
            Confirm::Mode(m) => format!("mode {m:?}"),
            Confirm::TakingOff { .. } => "a climb".into(),
            Confirm::Approaching { target, .. } => {
                format!(
                    "motion toward ({:.1}, {:.1}, {:.1})",
                    target.x, target.y, target.z
                )
            }
            Confirm::Arrived { target, radius_m } => format!(
                "arrival within {radius_m} m of ({:.1}, {:.1}, {:.1})",
                target.x, target.y, target.z
            ),
            Confirm::Yaw { target_deg, .. } => format!("a turn to {target_deg:.0}°"),
            Confirm::Landing => "a landing".into(),
        }
    }
}

/// The vehicle's speed toward `target`, m/s (negative when moving away).
fn closing_speed_mps(s: &VehicleSnapshot, target: Enu) -> f64 {
    let d = s.position.distance(target);
    if d <= f64::EPSILON {
        return 0.0;
    }
    let to = Enu::new(
        (target.x - s.position.x) / d,
        (target.y - s.position.y) / d,
        (target.z - s.position.z) / d,
    );
    s.velocity.x * to.x + s.velocity.y * to.y + s.velocity.z * to.z
}

/// Absolute difference of two headings, degrees in [0, 180].
pub fn heading_error_deg(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::frames::Geo;

    fn snap() -> VehicleSnapshot {
        VehicleSnapshot::on_ground_at_home(Geo::default(), 0)
    }

    #[test]
    fn approaching_needs_real_progress_or_arrival() {
        let mut s = snap();
        s.position = Enu::new(0.0, 0.0, 10.0);
        let c = Confirm::approaching(Enu::new(100.0, 0.0, 10.0), &s);
        assert!(!c.is_met(&s));
        s.velocity = Enu::new(3.0, 0.0, 0.0);
        s.position.x = 0.5;
        assert!(!c.is_met(&s), "half a metre is noise");
        s.position.x = 1.0;
        assert!(c.is_met(&s));
        // The same metre drifted, hardly moving (a hold in wind): not the reposition.
        s.velocity = Enu::new(0.2, 0.1, 0.0);
        assert!(!c.is_met(&s), "drift is not progress");
        s.velocity = Enu::new(-3.0, 0.0, 0.0);
        assert!(!c.is_met(&s), "flying away is not progress");
        let here = Confirm::approaching(s.position, &s);
        assert!(here.is_met(&s), "already there");
    }

    #[test]
    fn takeoff_shows_as_mode_state_or_climb() {
        let mut s = snap();
        let c = Confirm::TakingOff { from_z_m: 0.0 };
        assert!(!c.is_met(&s));
        s.armed = true;
        s.position.z = 0.6;
        assert!(c.is_met(&s));
        let mut m = snap();
        m.mode = FlightMode::Takeoff;
        assert!(c.is_met(&m));
    }

    #[test]
    fn yaw_error_wraps_around_north() {
        assert_eq!(heading_error_deg(350.0, 10.0), 20.0);
        assert_eq!(heading_error_deg(10.0, 350.0), 20.0);
        assert_eq!(heading_error_deg(0.0, 180.0), 180.0);
        let mut s = snap();
        s.yaw_deg = 350.0;
        let c = Confirm::yaw(20.0, &s);
        assert!(!c.is_met(&s));
        s.yaw_deg = 358.0;
        assert!(c.is_met(&s));
    }
}
