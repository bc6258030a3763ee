//! Speed profiles: how a leg's trapezoid (accelerate, cruise, brake) maps to the straight-line
//! timeline of `plan`, and how much ground speed the wind leaves.

use super::geometry::V2;

/// The largest ground speed along unit direction `d` with wind `w` and at most `air_max`
/// airspeed (0 when the wind wins).
pub(crate) fn headway(d: V2, w: V2, air_max: f64) -> f64 {
    let b = d.dot(&w);
    let disc = b * b - w.dot(&w) + air_max * air_max;
    if disc < 0.0 {
        return 0.0;
    }
    (b + disc.sqrt()).max(0.0)
}

/// The wait `t_d` before the straight-line model starts, and its largest along-track error
/// `ε` against a trapezoid that starts at along-track speed `v_a` and cruises at `v_e`.
pub(crate) fn start_profile(v_a: f64, v_e: f64, a: f64) -> (f64, f64) {
    if v_e <= 0.0 {
        return (0.0, 0.0);
    }
    if v_a >= v_e {
        // Already faster: it brakes to v_e and stays ahead by the distance that took.
        return (0.0, (v_a - v_e).powi(2) / (2.0 * a));
    }
    let t_d = (v_e - v_a).powi(2) / (2.0 * a * v_e);
    let t1 = (v_e - v_a) / a;
    let real = |t: f64| {
        if t <= t1 {
            v_a * t + 0.5 * a * t * t
        } else {
            v_e * (t - t_d)
        }
    };
    let model = |t: f64| (v_e * (t - t_d)).max(0.0);
    let eps = [t_d, t1, (-v_a / a).max(0.0)]
        .into_iter()
        .map(|t| (real(t) - model(t)).abs())
        .fold(0.0, f64::max);
    (t_d, eps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_rest_the_model_waits_v_over_2a_and_errs_by_v2_over_8a() {
        let (t_d, eps) = start_profile(0.0, 10.0, 2.5);
        assert!((t_d - 2.0).abs() < 1e-12);
        assert!((eps - 5.0).abs() < 1e-12);
    }

    #[test]
    fn moving_backwards_the_model_waits_longer_and_errs_by_the_backward_excursion() {
        // v_a = −5, v_e = 5, a = 5: t_d = 100/50 = 2 s, t1 = 2 s; real(2) = −10 + 10 = 0.
        // The backward excursion peaks at t = 1: −2.5 m.
        let (t_d, eps) = start_profile(-5.0, 5.0, 5.0);
        assert!((t_d - 2.0).abs() < 1e-12);
        assert!((eps - 2.5).abs() < 1e-12, "{eps}");
    }

    #[test]
    fn headway_against_wind() {
        let east = V2::new(1.0, 0.0);
        // 10 m/s airspeed, 6 m/s wind from the east (blowing west): 4 m/s headway.
        assert!((headway(east, V2::new(-6.0, 0.0), 10.0) - 4.0).abs() < 1e-12);
        // Crosswind 6 m/s: 8 m/s along track.
        assert!((headway(east, V2::new(0.0, 6.0), 10.0) - 8.0).abs() < 1e-12);
        assert_eq!(headway(east, V2::new(-12.0, 0.0), 10.0), 0.0);
    }
}
