//! What the gate knows besides the vehicle: other aircraft, peers' plans, the wind, and the
//! tuning of its path model. Plain values; [`GateContext`](super::GateContext) checks them when
//! they are added.

use super::geometry::V2;
use crate::frames::Enu;
use serde::{Deserialize, Serialize};

/// Another aircraft seen by detect-and-avoid (or scripted by a scenario), flying straight at
/// constant velocity from `position` at `time_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// Runtime clock of the observation, milliseconds.
    pub time_ms: u64,
    pub position: Enu,
    pub velocity: Enu,
}

impl Track {
    pub(crate) fn is_finite(&self) -> bool {
        finite(self.position) && finite(self.velocity)
    }
}

/// One point of a peer's shared plan: where it will be at `time_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlanKnot {
    pub time_ms: u64,
    pub position: Enu,
}

/// A peer's planned path as shared over A2A (`collision_avoidance`): straight between knots,
/// holding at the first knot before it and at the last one after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeerPlan {
    pub peer: String,
    /// Strictly increasing in time, at least one.
    pub knots: Vec<PlanKnot>,
    /// The other's own size, m: separation counts from its surface (a moving obstacle's
    /// radius; 0 for an aircraft, whose size the separation minimum already allows for).
    #[serde(default)]
    pub radius_m: f64,
}

impl PeerPlan {
    /// Why this plan cannot be used, if it cannot.
    pub(crate) fn problem(&self) -> Option<&'static str> {
        if self.knots.is_empty() {
            return Some("needs at least one knot");
        }
        if self.knots.iter().any(|k| !finite(k.position)) {
            return Some("positions must be finite");
        }
        if self.knots.windows(2).any(|w| w[0].time_ms >= w[1].time_ms) {
            return Some("knot times must increase strictly");
        }
        if !(self.radius_m.is_finite() && self.radius_m >= 0.0) {
            return Some("radius must be finite and not negative");
        }
        None
    }
}

/// Wind at one altitude: speed and the direction it blows from (degrees clockwise from north).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindLayer {
    pub alt_m: f64,
    pub speed_mps: f64,
    pub from_deg: f64,
}

/// Wind by altitude (linear between layers, constant beyond them) plus a gust that the energy
/// and headway estimates add to the airspeed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Wind {
    /// Sorted by altitude when built through [`Wind::layered`].
    layers: Vec<WindLayer>,
    gust_mps: f64,
}

impl Wind {
    pub fn calm() -> Self {
        Self::default()
    }

    pub fn uniform(speed_mps: f64, from_deg: f64, gust_mps: f64) -> Self {
        Self::layered(
            vec![WindLayer {
                alt_m: 0.0,
                speed_mps,
                from_deg,
            }],
            gust_mps,
        )
    }

    pub fn layered(mut layers: Vec<WindLayer>, gust_mps: f64) -> Self {
        layers.sort_by(|a, b| a.alt_m.total_cmp(&b.alt_m));
        Self { layers, gust_mps }
    }

    pub(crate) fn problem(&self) -> Option<&'static str> {
        let bad = |x: f64| !(x.is_finite() && x >= 0.0);
        if bad(self.gust_mps) {
            return Some("gust_mps must be finite and non-negative");
        }
        let layer_bad = |l: &WindLayer| bad(l.speed_mps) || !l.alt_m.is_finite();
        if self.layers.iter().any(layer_bad) || self.layers.iter().any(|l| !l.from_deg.is_finite())
        {
            return Some("layers must be finite with non-negative speed");
        }
        None
    }

    pub fn gust_mps(&self) -> f64 {
        self.gust_mps
    }

    /// Altitudes where the wind between `a` and `b` can be at its extremes: the two ends and
    /// the layers in between (the wind is linear between layers).
    pub(crate) fn extremes(&self, a: f64, b: f64) -> impl Iterator<Item = f64> + '_ {
        let (lo, hi) = (a.min(b), a.max(b));
        let inner = self.layers.iter().map(|l| l.alt_m);
        [a, b]
            .into_iter()
            .chain(inner.filter(move |z| *z > lo && *z < hi))
    }

    /// The wind vector (where the air moves to, m/s) at altitude `z_m`.
    pub(crate) fn at(&self, z_m: f64) -> V2 {
        let vector = |l: &WindLayer| {
            let rad = l.from_deg.to_radians();
            -V2::new(libm::sin(rad), libm::cos(rad)) * l.speed_mps
        };
        let (Some(first), Some(last)) = (self.layers.first(), self.layers.last()) else {
            return V2::zeros();
        };
        if z_m <= first.alt_m {
            return vector(first);
        }
        if z_m >= last.alt_m {
            return vector(last);
        }
        for w in self.layers.windows(2) {
            let (lo, hi) = (&w[0], &w[1]);
            if z_m <= hi.alt_m {
                let span = hi.alt_m - lo.alt_m;
                let f = if span > 0.0 {
                    (z_m - lo.alt_m) / span
                } else {
                    1.0
                };
                return vector(lo) * (1.0 - f) + vector(hi) * f;
            }
        }
        vector(last)
    }
}

/// The gate's path model: numbers that are not policy (not in [`Limits`](crate::config::Limits))
/// but shape how conservative the prediction is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// Take-off and landing count as "at" home or a site within this horizontal distance.
    pub site_radius_m: f64,
    /// After arriving, the vehicle is assumed to hold at the target at least this long (until
    /// the next decision), so a moving zone or traffic arriving then is a conflict too. The
    /// gate checks the longer of this and the escape horizon (see
    /// [`GateContext::hover_horizon_s`](super::GateContext::hover_horizon_s)).
    pub hold_horizon_s: f64,
    /// How far ahead [`time_to_breach`](super::time_to_breach) looks.
    pub breach_horizon_s: f64,
    /// Telemetry older than this denies every command but `hold`.
    pub max_snapshot_age_ms: u64,
    /// Below this ground speed against the wind a leg counts as not flyable.
    pub min_ground_speed_mps: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            site_radius_m: 5.0,
            hold_horizon_s: 10.0,
            breach_horizon_s: 60.0,
            max_snapshot_age_ms: 1_000,
            min_ground_speed_mps: 0.5,
        }
    }
}

impl Tuning {
    pub(crate) fn problem(&self) -> Option<&'static str> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !(ok(self.site_radius_m)
            && ok(self.hold_horizon_s)
            && ok(self.breach_horizon_s)
            && ok(self.min_ground_speed_mps))
        {
            return Some("tuning values must be finite and non-negative");
        }
        (self.min_ground_speed_mps == 0.0).then_some("min_ground_speed_mps must be positive")
    }
}

pub(crate) fn finite(p: Enu) -> bool {
    p.x.is_finite() && p.y.is_finite() && p.z.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_from_the_west_blows_east_and_interpolates_between_layers() {
        let w = Wind::layered(
            vec![
                WindLayer {
                    alt_m: 100.0,
                    speed_mps: 8.0,
                    from_deg: 270.0,
                },
                WindLayer {
                    alt_m: 0.0,
                    speed_mps: 4.0,
                    from_deg: 270.0,
                },
            ],
            0.0,
        );
        let at = |z| w.at(z);
        assert!((at(-5.0).x - 4.0).abs() < 1e-9 && at(-5.0).y.abs() < 1e-9);
        assert!((at(50.0).x - 6.0).abs() < 1e-9);
        assert!((at(500.0).x - 8.0).abs() < 1e-9);
        assert_eq!(Wind::calm().at(10.0), V2::zeros());
    }

    #[test]
    fn peer_plans_must_move_forward_in_time() {
        let k = |t| PlanKnot {
            time_ms: t,
            position: Enu::default(),
        };
        let plan = PeerPlan {
            peer: "uav-2".into(),
            knots: vec![k(10), k(10)],
            radius_m: 0.0,
        };
        assert!(plan.problem().is_some());
        let plan = PeerPlan {
            peer: "uav-2".into(),
            knots: vec![k(10), k(20)],
            radius_m: 0.0,
        };
        assert!(plan.problem().is_none());
        let wide = PeerPlan {
            radius_m: 7.5,
            ..plan.clone()
        };
        assert!(wide.problem().is_none());
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let plan = PeerPlan {
                radius_m: bad,
                ..plan.clone()
            };
            assert!(plan.problem().is_some(), "{bad}");
        }
    }
}
