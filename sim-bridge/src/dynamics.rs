//! Multicopter point-mass dynamics: the vehicle flies an air velocity that follows the flight
//! controller's demand within acceleration limits; the ground moves under it with the wind.
//! Vertically the demand is a climb rate over the ground: the vertical-velocity loop (barometer
//! and accelerometers, which need no position fix) learns the vertical wind and flies against
//! it. Horizontally the velocity loop flies against the mean wind plus the gusts it has learned
//! while it has a fix ([`Body::wind_estimate`]). Yaw turns at a limited rate.

use crate::vec3::{self, V3};
use alpha3_core::scenario::Airframe;
use serde_json::Value;

/// Standard gravity, m/s².
pub const G: f64 = 9.80665;

/// What the airframe can do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlightLimits {
    /// Horizontal airspeed limit.
    pub max_speed_mps: f64,
    pub max_climb_mps: f64,
    pub max_descent_mps: f64,
    /// Horizontal acceleration limit: g·tan(max tilt).
    pub max_accel_h_mps2: f64,
    pub max_accel_v_mps2: f64,
    pub max_yaw_rate_dps: f64,
    /// Final descent speed of a landing (below [`LAND_SLOW_BELOW_M`]).
    pub land_speed_mps: f64,
    /// Cruise speed until a command sets one.
    pub cruise_speed_mps: f64,
}

/// Height below which a landing descends at `land_speed_mps` (the autopilot model the gate
/// plans with).
pub const LAND_SLOW_BELOW_M: f64 = alpha3_core::gate::autopilot::LAND_SLOW_BELOW_M;

/// Time constant with which the vertical-velocity loop learns the vertical wind, seconds
/// (PX4's vertical velocity loop has an integrator; turbulence varies over ~8 s).
const VERTICAL_WIND_TAU_S: f64 = 0.5;
/// Time constant with which the horizontal velocity loop learns the wind's variation from its
/// mean (gusts, turbulence), seconds. PX4's horizontal velocity loop has an integrator too
/// (MPC_XY_VEL_I_ACC) and measures ground velocity with a fix.
const HORIZONTAL_GUST_TAU_S: f64 = 0.5;

impl FlightLimits {
    /// Limits from the scenario's airframe; what it leaves out gets PX4-like defaults
    /// (climb 3 m/s, descent half the climb, tilt 30°, vertical acceleration 4 m/s²).
    pub fn from_airframe(uav: &Airframe) -> Self {
        let climb = uav
            .rotorcraft
            .as_ref()
            .and_then(|r| r.max_climb_mps)
            .unwrap_or(3.0);
        let tilt_deg = uav
            .extra
            .get("max_tilt_deg")
            .and_then(Value::as_f64)
            .unwrap_or(30.0)
            .clamp(5.0, 45.0);
        let descent = climb * 0.5;
        Self {
            max_speed_mps: uav.max_speed_mps,
            max_climb_mps: climb,
            max_descent_mps: descent,
            max_accel_h_mps2: G * libm::tan(tilt_deg.to_radians()),
            max_accel_v_mps2: 4.0,
            max_yaw_rate_dps: 90.0,
            land_speed_mps: alpha3_core::gate::autopilot::land_speed_mps(descent),
            cruise_speed_mps: uav.max_speed_mps * 0.6,
        }
    }

    /// The limits left by a motor failure of `severity` (0..1): less thrust margin for speed,
    /// climb and acceleration.
    pub fn degraded(&self, severity: f64) -> Self {
        let s = severity.clamp(0.0, 1.0);
        Self {
            max_speed_mps: self.max_speed_mps * (1.0 - 0.5 * s),
            max_climb_mps: self.max_climb_mps * (1.0 - 0.8 * s),
            max_accel_h_mps2: self.max_accel_h_mps2 * (1.0 - 0.6 * s),
            max_accel_v_mps2: self.max_accel_v_mps2 * (1.0 - 0.6 * s),
            max_yaw_rate_dps: self.max_yaw_rate_dps * (1.0 - 0.5 * s),
            ..*self
        }
    }
}

/// The vehicle as a point mass with a heading.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Body {
    /// True position, ENU metres.
    pub position: V3,
    /// Velocity relative to the air.
    pub air_velocity: V3,
    /// Acceleration applied in the last step.
    pub accel: V3,
    /// Heading, degrees clockwise from north, [0, 360).
    pub yaw_deg: f64,
    /// Ground velocity in the last step (air velocity + wind).
    pub ground_velocity: V3,
    /// The vertical wind as the vertical-velocity loop has learned it, m/s.
    pub vertical_wind_mps: f64,
    /// The horizontal wind's variation from its mean as the velocity loop has learned it, m/s.
    pub gust_estimate_mps: [f64; 2],
}

impl Body {
    /// Follows `demand` (an air velocity horizontally, a climb rate over the ground vertically)
    /// within the acceleration limits for `dt_s`, then moves with the air plus `wind`.
    ///
    /// Without the vertical loop a landing flew its 0.7 m/s through the air, and a downdraft of
    /// turbulence put it on the ground at over 2 m/s: a crash the autopilot caused.
    pub fn integrate(&mut self, demand: V3, wind: V3, limits: &FlightLimits, dt_s: f64) {
        let learn = (dt_s / VERTICAL_WIND_TAU_S).min(1.0);
        self.vertical_wind_mps += (wind[2] - self.vertical_wind_mps) * learn;
        let air_demand = [demand[0], demand[1], demand[2] - self.vertical_wind_mps];
        let dv = vec3::sub(air_demand, self.air_velocity);
        let inv = 1.0 / dt_s;
        let a = vec3::clamp_xy([dv[0] * inv, dv[1] * inv, 0.0], limits.max_accel_h_mps2);
        let az = (dv[2] * inv).clamp(-limits.max_accel_v_mps2, limits.max_accel_v_mps2);
        self.accel = [a[0], a[1], az];
        self.air_velocity = vec3::add(self.air_velocity, vec3::scale(self.accel, dt_s));
        self.ground_velocity = vec3::add(self.air_velocity, wind);
        self.position = vec3::add(self.position, vec3::scale(self.ground_velocity, dt_s));
    }

    /// The velocity loop's view of the horizontal wind for `dt_s`: the mean, plus the
    /// variation `wind − mean` learned with the time constant `HORIZONTAL_GUST_TAU_S`, when
    /// the vehicle sees its ground velocity (a position fix); without one it sees no wind.
    ///
    /// With the mean alone every gust would go straight into the ground velocity, and over a
    /// long leg turbulence puts the vehicle metres behind the timeline the gate checked.
    pub fn wind_estimate(&mut self, wind: V3, mean: V3, fix: bool, dt_s: f64) -> V3 {
        if !fix {
            self.gust_estimate_mps = [0.0; 2];
            return [0.0; 3];
        }
        let learn = (dt_s / HORIZONTAL_GUST_TAU_S).min(1.0);
        for (axis, g) in self.gust_estimate_mps.iter_mut().enumerate() {
            *g += (wind[axis] - mean[axis] - *g) * learn;
        }
        [
            mean[0] + self.gust_estimate_mps[0],
            mean[1] + self.gust_estimate_mps[1],
            mean[2],
        ]
    }

    /// Turns toward `target_deg` at most `rate_dps` for `dt_s`, the short way round.
    pub fn turn_toward(&mut self, target_deg: f64, rate_dps: f64, dt_s: f64) {
        let diff = (target_deg - self.yaw_deg + 540.0).rem_euclid(360.0) - 180.0;
        let step = rate_dps * dt_s;
        self.yaw_deg = (self.yaw_deg + diff.clamp(-step, step)).rem_euclid(360.0);
    }

    /// Stops all motion (on the ground).
    pub fn stop(&mut self) {
        self.vertical_wind_mps = 0.0;
        self.gust_estimate_mps = [0.0; 2];
        self.air_velocity = [0.0; 3];
        self.accel = [0.0; 3];
        self.ground_velocity = [0.0; 3];
    }
}

/// Compass heading of a horizontal velocity, degrees clockwise from north.
pub fn heading_of(v: V3) -> f64 {
    libm::atan2(v[0], v[1]).to_degrees().rem_euclid(360.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> FlightLimits {
        FlightLimits {
            max_speed_mps: 10.0,
            max_climb_mps: 3.0,
            max_descent_mps: 1.5,
            max_accel_h_mps2: 5.0,
            max_accel_v_mps2: 4.0,
            max_yaw_rate_dps: 90.0,
            land_speed_mps: 0.7,
            cruise_speed_mps: 6.0,
        }
    }

    #[test]
    fn acceleration_is_limited() {
        let mut b = Body::default();
        b.integrate([10.0, 0.0, 3.0], [0.0; 3], &limits(), 0.1);
        assert!((b.air_velocity[0] - 0.5).abs() < 1e-12);
        assert!((b.air_velocity[2] - 0.4).abs() < 1e-12);
    }

    #[test]
    fn wind_moves_a_body_that_holds_still_in_the_air() {
        let mut b = Body::default();
        for _ in 0..100 {
            b.integrate([0.0; 3], [2.0, -1.0, 0.0], &limits(), 0.1);
        }
        assert!((b.position[0] - 20.0).abs() < 1e-9 && (b.position[1] + 10.0).abs() < 1e-9);
    }

    #[test]
    fn yaw_turns_the_short_way_at_the_rate_limit() {
        let mut b = Body {
            yaw_deg: 350.0,
            ..Body::default()
        };
        b.turn_toward(10.0, 90.0, 0.1);
        assert!((b.yaw_deg - 359.0).abs() < 1e-9, "{}", b.yaw_deg);
        assert!((heading_of([1.0, 0.0, 0.0]) - 90.0).abs() < 1e-9);
    }
}
