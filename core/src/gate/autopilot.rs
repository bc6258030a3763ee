//! What the autopilot does on its own after a return or a landing is approved — PX4's
//! behaviour with its default parameters. The gate plans these commands with it, and the
//! built-in world's simulated autopilot (`alpha3-sim`) flies them with it, so the path the gate
//! checks is the path that is flown (one source of truth).
//!
//! - Return (`RTL`): climb straight up to the return altitude when below it (else keep the
//!   current altitude), fly straight home, land.
//! - Land: descend at the vehicle's maximum descent rate down to [`LAND_SLOW_BELOW_M`], then at
//!   [`LAND_SPEED_MPS`] (or the maximum descent rate when that is slower) to the ground.

/// PX4's `RTL_RETURN_ALT` default, metres above home. `limits.return_altitude_m` in the shipped
/// configuration is this value; a vehicle whose parameter differs needs the config to match.
pub const RETURN_ALTITUDE_M: f64 = 60.0;

/// Height above the ground below which a landing slows to [`LAND_SPEED_MPS`] (PX4's
/// `MPC_LAND_ALT1` default).
pub const LAND_SLOW_BELOW_M: f64 = 10.0;

/// Final descent speed of a landing (PX4's `MPC_LAND_SPEED` default), m/s.
pub const LAND_SPEED_MPS: f64 = 0.7;

/// The return altitude actually used in an altitude band: `return_altitude_m` moved into
/// `[min_m, max_m]` (not `clamp`, which panics on NaN).
pub fn return_altitude_in_band(return_altitude_m: f64, min_m: f64, max_m: f64) -> f64 {
    return_altitude_m.max(min_m).min(max_m)
}

/// The altitude a return flies home at from `current_m`: PX4 climbs to the return altitude
/// when lower and otherwise keeps its altitude.
pub fn return_cruise_altitude_m(current_m: f64, return_altitude_m: f64) -> f64 {
    current_m.max(return_altitude_m)
}

/// The final descent speed of a vehicle that descends at most at `max_descent_mps`.
pub fn land_speed_mps(max_descent_mps: f64) -> f64 {
    LAND_SPEED_MPS.min(max_descent_mps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_climbs_to_the_return_altitude_and_never_descends_to_it() {
        assert_eq!(return_cruise_altitude_m(20.0, 60.0), 60.0);
        assert_eq!(return_cruise_altitude_m(90.0, 60.0), 90.0);
        assert_eq!(return_altitude_in_band(60.0, 10.0, 50.0), 50.0);
        assert_eq!(return_altitude_in_band(60.0, 70.0, 120.0), 70.0);
        assert_eq!(land_speed_mps(0.5), 0.5);
        assert_eq!(land_speed_mps(2.5), LAND_SPEED_MPS);
    }
}
