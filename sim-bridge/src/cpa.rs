//! Closest point of approach between two plans, exactly: both are linear between breakpoints,
//! so within each interval the squared distance is a quadratic in time with a closed-form
//! minimum.

use crate::traffic::FlightPlan;
use crate::vec3::{self, V3};

/// Where two plans come closest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Approach {
    /// Scenario time of the closest approach, seconds.
    pub t_s: f64,
    pub distance_m: f64,
    /// Positions of the two at that time.
    pub ours: V3,
    pub theirs: V3,
}

/// The closest approach of `a` and `b` over [t0, t1].
pub fn closest_approach(a: &FlightPlan, b: &FlightPlan, t0: f64, t1: f64) -> Approach {
    let mut times = a.breakpoints(t0, t1);
    times.extend(b.breakpoints(t0, t1));
    times.sort_by(f64::total_cmp);
    times.dedup();
    let at = |t: f64| {
        let (pa, pb) = (a.position_at(t), b.position_at(t));
        Approach {
            t_s: t,
            distance_m: vec3::distance(pa, pb),
            ours: pa,
            theirs: pb,
        }
    };
    let mut best = at(t0);
    for w in times.windows(2) {
        let (ta, tb) = (w[0], w[1]);
        if tb <= ta {
            continue;
        }
        // Relative position r(t) = r0 + v·(t − ta) on this interval.
        let r0 = vec3::sub(a.position_at(ta), b.position_at(ta));
        let r1 = vec3::sub(a.position_at(tb), b.position_at(tb));
        let v = vec3::scale(vec3::sub(r1, r0), 1.0 / (tb - ta));
        let vv = vec3::dot(v, v);
        let tau = if vv > 0.0 {
            (-vec3::dot(r0, v) / vv).clamp(0.0, tb - ta)
        } else {
            0.0
        };
        for t in [ta + tau, tb] {
            let c = at(t);
            if c.distance_m < best.distance_m {
                best = c;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_on_tracks_meet_in_the_middle() {
        let a = FlightPlan::along(&[[0.0, 0.0, 50.0], [1000.0, 0.0, 50.0]], 10.0, 0.0);
        let b = FlightPlan::along(&[[1000.0, 30.0, 50.0], [0.0, 30.0, 50.0]], 10.0, 0.0);
        let c = closest_approach(&a, &b, 0.0, 200.0);
        assert!((c.t_s - 50.0).abs() < 1e-9, "{c:?}");
        assert!((c.distance_m - 30.0).abs() < 1e-9);
    }

    #[test]
    fn crossing_tracks_with_a_bounce() {
        let ours = FlightPlan::along(&[[100.0, 0.0, 40.0], [100.0, 600.0, 40.0]], 10.0, 0.0);
        let theirs = FlightPlan::Bounce {
            start: [150.0, 300.0, 40.0],
            velocity: [-10.0, 0.0, 0.0],
            bounds: [0.0, 0.0, 800.0, 600.0],
        };
        // They pass x = 100 at t = 5 s (we are at y = 50) and again after bouncing off x = 0
        // at t = 25 s (we are at y = 250, 50 m short of their y = 300).
        let c = closest_approach(&ours, &theirs, 0.0, 60.0);
        assert!(c.distance_m < 50.0 && c.t_s > 20.0 && c.t_s < 35.0, "{c:?}");
        // Brute force agrees.
        let brute = (0..60_000)
            .map(|i| {
                let t = i as f64 * 0.001;
                vec3::distance(ours.position_at(t), theirs.position_at(t))
            })
            .fold(f64::INFINITY, f64::min);
        assert!((brute - c.distance_m).abs() < 1e-3, "{brute} vs {c:?}");
    }
}
