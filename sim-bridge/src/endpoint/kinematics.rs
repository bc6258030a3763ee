//! Attitude and acceleration, derived from the world's velocity: the world is a point mass, and
//! PX4 reports both.

use alpha3_core::frames::Enu;

/// Gravity for the attitude the accelerations imply, m/s².
const G: f64 = 9.81;
/// Smoothing of the acceleration estimate, seconds.
const ACCEL_TAU_S: f64 = 0.1;

/// Attitude and acceleration estimated from the world's velocity (the world is a point mass).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Kinematics {
    pub roll_rad: f64,
    pub pitch_rad: f64,
    pub yaw_rad: f64,
    pub yaw_rate_rps: f64,
    /// Smoothed acceleration, ENU, m/s².
    pub accel: Enu,
    last_velocity: Option<(Enu, u64)>,
    last_yaw_deg: Option<f64>,
}

impl Kinematics {
    pub(super) fn update(&mut self, now_us: u64, velocity: Enu, yaw_deg: f64) {
        if let Some((v0, t0)) = self.last_velocity
            && now_us > t0
        {
            let dt = (now_us - t0) as f64 / 1e6;
            let k = (dt / ACCEL_TAU_S).min(1.0);
            let a = |new: f64, old: f64, lp: f64| lp + k * ((new - old) / dt - lp);
            self.accel = Enu::new(
                a(velocity.x, v0.x, self.accel.x),
                a(velocity.y, v0.y, self.accel.y),
                a(velocity.z, v0.z, self.accel.z),
            );
            if let Some(y0) = self.last_yaw_deg {
                let d = (yaw_deg - y0 + 540.0).rem_euclid(360.0) - 180.0;
                self.yaw_rate_rps = d.to_radians() / dt;
            }
        }
        self.last_velocity = Some((velocity, now_us));
        self.last_yaw_deg = Some(yaw_deg);
        let psi = yaw_deg.to_radians();
        let (a_n, a_e) = (self.accel.y, self.accel.x);
        let forward = a_n * psi.cos() + a_e * psi.sin();
        let right = -a_n * psi.sin() + a_e * psi.cos();
        self.pitch_rad = -(forward / G).atan();
        self.roll_rad = (right / G).atan();
        self.yaw_rad =
            (psi + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    }
}
