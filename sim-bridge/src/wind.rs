//! Wind: the scenario's mean wind and profile by altitude, discrete gusts, and turbulence as a
//! seeded Gauss–Markov (Ornstein–Uhlenbeck) process.
//!
//! Every part of the variation scales with the scenario's `gust_mps`, so a scenario without
//! gusts has a perfectly steady wind (what the drift tests rely on).

use crate::rng::SimRng;
use crate::vec3::{self, V3};
use alpha3_core::scenario::Environment;

/// Correlation time of turbulence, seconds (Dryden length ~100 m at ~10 m/s).
const TURBULENCE_TAU_S: f64 = 8.0;
/// Mean time between discrete gusts, seconds.
const GUST_INTERVAL_S: f64 = 20.0;

/// The wind vector a compass direction "from" and a speed give, in ENU (x east, y north).
pub fn wind_vector(speed_mps: f64, from_deg: f64) -> [f64; 2] {
    let r = from_deg.to_radians();
    // Blowing *from* `from_deg` means moving toward the opposite bearing.
    [-speed_mps * libm::sin(r), -speed_mps * libm::cos(r)]
}

#[derive(Debug, Clone, Copy)]
struct Gust {
    start_s: f64,
    duration_s: f64,
    amplitude_mps: f64,
}

/// The wind field at the vehicle.
#[derive(Debug, Clone)]
pub struct WindField {
    /// (altitude, east, north) of each profile layer, by altitude.
    layers: Vec<(f64, f64, f64)>,
    gust_mps: f64,
    sigma_h: f64,
    sigma_v: f64,
    turbulence: V3,
    gust: Option<Gust>,
    next_gust_s: f64,
    /// Cached decay factor and noise gain for the last `dt`.
    cached_dt: f64,
    phi: f64,
    gain: f64,
    rng: SimRng,
}

impl WindField {
    pub fn new(env: &Environment, seed: u64) -> Self {
        let w = &env.weather;
        let mut layers: Vec<(f64, f64, f64)> = env
            .wind_profile
            .iter()
            .map(|l| {
                let v = wind_vector(l.wind_mps, l.dir_deg);
                (l.alt_m, v[0], v[1])
            })
            .collect();
        if layers.is_empty() {
            let v = wind_vector(w.wind_mps, w.wind_dir_deg);
            layers.push((0.0, v[0], v[1]));
        }
        layers.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut rng = SimRng::stream(seed, "wind");
        let gust_mps = w.gust_mps.max(0.0);
        let next_gust_s = if gust_mps > 0.0 {
            rng.exponential(GUST_INTERVAL_S)
        } else {
            f64::INFINITY
        };
        Self {
            layers,
            gust_mps,
            sigma_h: 0.25 * gust_mps,
            sigma_v: 0.1 * gust_mps,
            turbulence: [0.0; 3],
            gust: None,
            next_gust_s,
            cached_dt: f64::NAN,
            phi: 0.0,
            gain: 0.0,
            rng,
        }
    }

    /// Mean wind at altitude `z` (linear between profile layers, constant beyond), ENU m/s.
    pub fn mean_at(&self, z: f64) -> V3 {
        let first = self.layers[0];
        let last = self.layers[self.layers.len() - 1];
        if z <= first.0 {
            return [first.1, first.2, 0.0];
        }
        if z >= last.0 {
            return [last.1, last.2, 0.0];
        }
        for w in self.layers.windows(2) {
            let (a, b) = (w[0], w[1]);
            if z <= b.0 {
                let f = if b.0 > a.0 {
                    (z - a.0) / (b.0 - a.0)
                } else {
                    0.0
                };
                return [a.1 + f * (b.1 - a.1), a.2 + f * (b.2 - a.2), 0.0];
            }
        }
        [last.1, last.2, 0.0]
    }

    /// Advances the random parts by `dt_s` to time `t_s` and returns the wind at altitude `z`.
    pub fn step(&mut self, t_s: f64, dt_s: f64, z: f64) -> V3 {
        let mean = self.mean_at(z);
        if self.gust_mps <= 0.0 {
            return mean;
        }
        if dt_s != self.cached_dt {
            self.cached_dt = dt_s;
            self.phi = libm::exp(-dt_s / TURBULENCE_TAU_S);
            self.gain = (1.0 - self.phi * self.phi).sqrt();
        }
        let (phi, gain) = (self.phi, self.gain);
        let sigma = [self.sigma_h, self.sigma_h, self.sigma_v];
        for (axis, s) in sigma.iter().enumerate() {
            self.turbulence[axis] = phi * self.turbulence[axis] + s * gain * self.rng.normal();
        }
        if t_s >= self.next_gust_s {
            self.gust = Some(Gust {
                start_s: t_s,
                duration_s: self.rng.range(2.0, 5.0),
                amplitude_mps: self.gust_mps * self.rng.range(0.5, 1.0),
            });
            self.next_gust_s = t_s + self.rng.exponential(GUST_INTERVAL_S);
        }
        let mut total = vec3::add(mean, self.turbulence);
        if let Some(g) = self.gust {
            let age = t_s - g.start_s;
            if age > g.duration_s {
                self.gust = None;
            } else {
                // A "1 − cos" gust along the mean wind (or east in calm air).
                let shape = 0.5 * (1.0 - libm::cos(std::f64::consts::TAU * age / g.duration_s));
                let n = vec3::norm_xy(mean);
                let dir = if n > 0.0 {
                    [mean[0] / n, mean[1] / n, 0.0]
                } else {
                    [1.0, 0.0, 0.0]
                };
                total = vec3::add(total, vec3::scale(dir, g.amplitude_mps * shape));
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::scenario::{Weather, WindLayer};
    use serde_json::Map;

    fn env(gust: f64, profile: &[(f64, f64, f64)]) -> Environment {
        Environment {
            airspace: None,
            weather: Weather {
                wind_mps: 5.0,
                wind_dir_deg: 270.0,
                gust_mps: gust,
                extra: Map::new(),
            },
            wind_profile: profile
                .iter()
                .map(|&(alt_m, wind_mps, dir_deg)| WindLayer {
                    alt_m,
                    wind_mps,
                    dir_deg,
                    extra: Map::new(),
                })
                .collect(),
            extra: Map::new(),
        }
    }

    #[test]
    fn wind_from_the_west_blows_east() {
        let v = wind_vector(5.0, 270.0);
        assert!((v[0] - 5.0).abs() < 1e-12 && v[1].abs() < 1e-12, "{v:?}");
        let n = wind_vector(3.0, 0.0);
        assert!((n[1] + 3.0).abs() < 1e-12, "from the north blows south");
    }

    #[test]
    fn the_profile_interpolates_by_altitude() {
        let w = WindField::new(&env(0.0, &[(0.0, 4.0, 270.0), (100.0, 8.0, 270.0)]), 1);
        assert!((w.mean_at(50.0)[0] - 6.0).abs() < 1e-9);
        assert!((w.mean_at(500.0)[0] - 8.0).abs() < 1e-9);
        assert!((w.mean_at(-5.0)[0] - 4.0).abs() < 1e-9);
    }

    #[test]
    fn no_gust_means_steady_wind_and_gusts_vary_it() {
        let mut calm = WindField::new(&env(0.0, &[]), 1);
        let mut gusty = WindField::new(&env(4.0, &[]), 1);
        let mut spread = 0.0f64;
        for i in 0..5000 {
            let t = i as f64 * 0.02;
            assert_eq!(
                calm.step(t, 0.02, 30.0),
                [5.0, wind_vector(5.0, 270.0)[1], 0.0]
            );
            spread = spread.max((gusty.step(t, 0.02, 30.0)[0] - 5.0).abs());
        }
        assert!(spread > 0.5, "{spread}");
    }
}
