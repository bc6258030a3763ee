//! Navigation sensors as the flight controller sees them: GNSS position error (a slow
//! Gauss–Markov walk, larger with multipath and jamming), barometric altitude error, IMU
//! accelerometer bias (what dead reckoning drifts on) and velocity noise. Updated at 10 Hz, as
//! a GNSS receiver reports.

use crate::rng::SimRng;
use crate::scenario::EmitterFlags;
use crate::vec3::V3;
use alpha3_core::snapshot::{FixType, Gnss};

const UPDATE_S: f64 = 0.1;
const GNSS_TAU_S: f64 = 30.0;
const BARO_TAU_S: f64 = 60.0;
const GNSS_SIGMA_M: f64 = 0.6;
const BARO_SIGMA_M: f64 = 0.4;
const VELOCITY_SIGMA_MPS: f64 = 0.05;
const ACCEL_BIAS_SIGMA_MPS2: f64 = 0.01;

#[derive(Debug, Clone)]
pub struct SensorModel {
    enabled: bool,
    sigma_h_m: f64,
    gnss_err: [f64; 2],
    baro_err: f64,
    velocity_noise: V3,
    accel_bias: [f64; 2],
    satellites: u8,
    since_update_s: f64,
    rng: SimRng,
}

impl SensorModel {
    /// `enabled` false gives perfect sensors (for hand-computed tests).
    pub fn new(flags: &EmitterFlags, seed: u64, enabled: bool) -> Self {
        let mut rng = SimRng::stream(seed, "sensors");
        let mut sigma_h_m = GNSS_SIGMA_M;
        if flags.gnss_multipath {
            sigma_h_m *= 2.5;
        }
        if let Some(jam) = flags.gnss_jam_dbm {
            // A jammer louder than −120 dBm raises the noise floor: +50 % per 10 dB.
            sigma_h_m *= 1.0 + ((jam + 120.0) / 10.0).max(0.0) * 0.5;
        }
        let satellites = rng.int_in(10, 16) as u8;
        let accel_bias = if enabled {
            [
                rng.gaussian(0.0, ACCEL_BIAS_SIGMA_MPS2),
                rng.gaussian(0.0, ACCEL_BIAS_SIGMA_MPS2),
            ]
        } else {
            [0.0; 2]
        };
        Self {
            enabled,
            sigma_h_m,
            gnss_err: [0.0; 2],
            baro_err: 0.0,
            velocity_noise: [0.0; 3],
            accel_bias,
            satellites,
            since_update_s: UPDATE_S,
            rng,
        }
    }

    /// Advances the error processes by `dt_s`.
    pub fn step(&mut self, dt_s: f64) {
        if !self.enabled {
            return;
        }
        self.since_update_s += dt_s;
        if self.since_update_s < UPDATE_S {
            return;
        }
        let dt = self.since_update_s;
        self.since_update_s = 0.0;
        let phi_g = libm::exp(-dt / GNSS_TAU_S);
        let gain_g = (1.0 - phi_g * phi_g).sqrt() * self.sigma_h_m;
        for e in &mut self.gnss_err {
            *e = phi_g * *e + gain_g * self.rng.normal();
        }
        let phi_b = libm::exp(-dt / BARO_TAU_S);
        self.baro_err =
            phi_b * self.baro_err + (1.0 - phi_b * phi_b).sqrt() * BARO_SIGMA_M * self.rng.normal();
        for v in &mut self.velocity_noise {
            *v = VELOCITY_SIGMA_MPS * self.rng.normal();
        }
    }

    /// Error of the position estimate with a fix: GNSS horizontally, barometer vertically.
    pub fn position_error(&self) -> V3 {
        [self.gnss_err[0], self.gnss_err[1], self.baro_err]
    }

    /// Error of the barometric altitude alone (used without a fix).
    pub fn baro_error(&self) -> f64 {
        self.baro_err
    }

    pub fn velocity_noise(&self) -> V3 {
        self.velocity_noise
    }

    /// Accelerometer bias in the horizontal plane, m/s² (dead reckoning integrates it).
    pub fn accel_bias(&self) -> [f64; 2] {
        self.accel_bias
    }

    /// The GNSS report: no fix while jammed; otherwise a 3-D fix with the 1-sigma error.
    pub fn gnss(&self, jammed: bool) -> Gnss {
        if jammed {
            Gnss {
                fix: FixType::None,
                satellites: 0,
                eph_m: 99.99,
            }
        } else {
            Gnss {
                fix: FixType::Fix3d,
                satellites: self.satellites,
                eph_m: if self.enabled { self.sigma_h_m } else { 0.0 },
            }
        }
    }
}
