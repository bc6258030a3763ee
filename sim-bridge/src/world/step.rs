//! Advancing the world: faults, wind, sensors, the flight controller, dynamics, ground contact,
//! battery, traffic, and the evaluator, in that order, once per step.

use super::World;
use crate::dynamics::heading_of;
use crate::evaluator::{TruthSample, ViolationKind};
use crate::faults::FaultKind;
use crate::flight_controller::{CRASH_SINK_MPS, Mode};
use crate::vec3::{self, V3};
use alpha3_core::snapshot::LandedState;
use std::time::Duration;

/// Motor-failure severity from which the vehicle cannot hold altitude.
const LOSS_OF_CONTROL_SEVERITY: f64 = 0.95;
/// Horizontal distance from an authorised site within which take-off and landing are exempt
/// from the altitude band, metres.
pub(super) const SITE_RADIUS_M: f64 = 15.0;

impl World {
    /// Advances the world by `dt` (one physics step).
    pub fn step(&mut self, dt: Duration) {
        let dt_s = dt.as_secs_f64();
        if dt_s <= 0.0 {
            return;
        }
        self.time_us += dt.as_micros() as u64;
        self.steps += 1;
        let t_s = self.now_s();
        self.apply_faults(t_s);
        self.sensors.step(dt_s);
        if crate::peers::keep_clear(
            &mut self.traffic,
            self.body.position,
            self.body.ground_velocity,
            self.fc.landed != LandedState::OnGround,
            t_s - dt_s,
            t_s,
            self.safety.limits().separation_m,
        ) {
            self.traffic_revision += 1;
        }
        for (a, p) in self
            .traffic
            .aircraft
            .iter()
            .zip(self.traffic_positions.iter_mut())
        {
            *p = a.plan.position_at(t_s);
        }
        self.obstacle_positions.clear();
        self.obstacle_positions.extend(
            self.obstacles
                .iter()
                .map(|o| (crate::vec3::from_enu(o.center_at(t_s)), o.radius_m)),
        );
        if self.fc.landed == LandedState::OnGround {
            self.body.stop();
            self.battery.drain(0.0, dt_s);
        } else {
            self.fly(t_s, dt_s);
        }
        self.evaluate();
    }

    /// Steps with the scenario's `dt` until `until_ms` (a last, shorter step lands on it).
    pub fn advance_to_ms(&mut self, until_ms: u64) {
        let until_us = until_ms.saturating_mul(1000);
        let dt_us = self.dt.as_micros() as u64;
        while self.time_us + dt_us <= until_us {
            self.step(self.dt);
        }
        if until_us > self.time_us {
            self.step(Duration::from_micros(until_us - self.time_us));
        }
    }

    /// Steps until the current command is done or `max_ms` have passed; true when done.
    pub fn advance_until_settled(&mut self, max_ms: u64) -> bool {
        let end_us = self.time_us.saturating_add(max_ms.saturating_mul(1000));
        while self.time_us < end_us {
            if self.is_settled() {
                return true;
            }
            self.step(self.dt);
        }
        self.is_settled()
    }

    fn apply_faults(&mut self, t_s: f64) {
        for tr in self.faults.update(t_s) {
            let f = &tr.fault;
            if tr.started {
                match f.kind {
                    FaultKind::BatterySag => self.battery.sag(0.25 * f.severity, 0.3 * f.severity),
                    FaultKind::MotorFailure => {
                        self.battery.scale_power(1.0 + 0.5 * f.severity);
                        if f.severity >= LOSS_OF_CONTROL_SEVERITY
                            && self.fc.landed != LandedState::OnGround
                        {
                            self.fc.lose_control();
                        }
                    }
                    _ => {}
                }
            }
            self.fault_log
                .push((self.now_ms(), f.kind.name().to_string(), tr.started));
            self.limits = self
                .base_limits
                .degraded(self.faults.effects().motor_severity);
        }
    }

    fn fly(&mut self, t_s: f64, dt_s: f64) {
        let wind = self.wind.step(t_s, dt_s, self.body.position[2]);
        let jammed = self.faults.effects().gnss_jammed;
        if jammed {
            let bias = self.sensors.accel_bias();
            self.dr_velocity_error[0] += bias[0] * dt_s;
            self.dr_velocity_error[1] += bias[1] * dt_s;
            let v = self.body.air_velocity;
            self.estimate[0] += (v[0] + self.dr_velocity_error[0]) * dt_s;
            self.estimate[1] += (v[1] + self.dr_velocity_error[1]) * dt_s;
            self.estimate[2] = self.body.position[2] + self.sensors.baro_error();
        } else {
            self.dr_velocity_error = [0.0; 2];
            self.estimate = vec3::add(self.body.position, self.sensors.position_error());
        }
        let limits = self.limits;
        let want = self.fc.demand(self.estimate, &limits);
        // The controller knows the wind while it has a fix; without one it cannot see it.
        let mean = self.wind.mean_at(self.body.position[2]);
        let wind_estimate = self.body.wind_estimate(wind, mean, !jammed, dt_s);
        let mut air = vec3::clamp_xy(vec3::sub(want, wind_estimate), limits.max_speed_mps);
        let sink = if self.fc.mode == Mode::Uncontrolled {
            f64::INFINITY
        } else {
            limits.max_descent_mps
        };
        air[2] = air[2].clamp(-sink, limits.max_climb_mps);
        self.body.integrate(air, wind, &limits, dt_s);
        let yaw = match self.fc.yaw_target {
            Some(y) => Some(y),
            None if vec3::norm_xy(want) > 1.0 => Some(heading_of(want)),
            None => None,
        };
        if let Some(y) = yaw {
            self.body.turn_toward(y, limits.max_yaw_rate_dps, dt_s);
        }
        if self.body.position[2] <= 0.0 {
            if self.fc.landed == LandedState::TakingOff
                && matches!(self.fc.mode, Mode::Takeoff { .. })
            {
                // Still on the ground while the motors spool up: a downdraft there cannot
                // push it into the ground, and it has not landed.
                self.body.position[2] = 0.0;
                self.body.ground_velocity[2] = self.body.ground_velocity[2].max(0.0);
            } else {
                self.contact_ground();
            }
        }
        let power = self.battery.flight_power_w(
            vec3::norm(self.body.air_velocity),
            vec3::norm(self.body.accel),
            self.payloads.active_power_w(),
        );
        self.battery.drain(power, dt_s);
        if self.battery.is_empty()
            && self.fc.mode != Mode::Uncontrolled
            && self.fc.landed != LandedState::OnGround
        {
            self.fc.lose_control();
            self.safety.record(
                ViolationKind::BatteryDepleted,
                self.now_ms(),
                "battery empty in flight".into(),
            );
        }
    }

    fn contact_ground(&mut self) {
        let sink = -self.body.ground_velocity[2];
        self.body.position[2] = 0.0;
        self.estimate[2] = 0.0;
        if sink > CRASH_SINK_MPS || self.fc.mode == Mode::Uncontrolled {
            self.crashed = true;
            let detail = format!("hit the ground at {sink:.1} m/s");
            self.safety
                .record(ViolationKind::Crash, self.now_ms(), detail);
        }
        self.fc.touch_down();
        self.body.stop();
    }

    /// Whether the vehicle is near an authorised landing site (horizontally).
    fn near_site(&self, p: V3) -> bool {
        self.sites
            .iter()
            .any(|s| vec3::hypot(p[0] - s[0], p[1] - s[1]) <= SITE_RADIUS_M)
    }

    fn evaluate(&mut self) {
        let p = self.body.position;
        let airborne = self.fc.landed != LandedState::OnGround;
        let exempt = match self.fc.mode {
            Mode::Takeoff { .. } => self.near_site(p),
            Mode::Land { .. } => self.fc.landed == LandedState::Landing && self.near_site(p),
            _ => false,
        };
        let t_s = self.now_s();
        self.objectives
            .observe(t_s, p, vec3::norm_xy(self.body.ground_velocity));
        let sample = TruthSample {
            t_ms: self.now_ms(),
            position: p,
            airborne,
            band_exempt: exempt,
            battery_fraction: self.battery.fraction(),
            traffic: &self.traffic_positions,
            traffic_ids: &self.traffic_ids,
            obstacles: &self.obstacle_positions,
        };
        self.safety.observe(&sample);
    }
}
