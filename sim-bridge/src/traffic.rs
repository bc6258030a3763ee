//! Other aircraft and their plans. Scenario traffic flies straight at its speed and heading and
//! turns back at the edges of the fenced area (a patrol, so it stays relevant all mission long);
//! swarm members fly our own mission offset sideways. Every plan is piecewise linear in time,
//! so a peer can compute an exact closest point of approach against it.

use crate::geometry::bounding_box;
use crate::scenario::swarm;
use crate::vec3::{self, V3};
use alpha3_core::frames::heading_to_enu_angle_rad;
use alpha3_core::scenario::Scenario;

/// A flight plan: a trajectory over time (another aircraft's, or ours as a peer reads it).
#[derive(Debug, Clone, PartialEq)]
pub enum FlightPlan {
    /// Constant velocity, reflected off the walls of `bounds` (`[min_x, min_y, max_x, max_y]`).
    Bounce {
        start: V3,
        velocity: V3,
        bounds: [f64; 4],
    },
    /// Linear between `(time, position)` knots; before the first and after the last it holds.
    Knots(Vec<(f64, V3)>),
}

/// Folds `u` into [lo, hi] as a ball bouncing between two walls would.
fn fold(u: f64, lo: f64, hi: f64) -> f64 {
    let len = hi - lo;
    if len <= 0.0 {
        return lo;
    }
    let m = (u - lo).rem_euclid(2.0 * len);
    if m <= len { lo + m } else { lo + 2.0 * len - m }
}

impl FlightPlan {
    pub fn position_at(&self, t_s: f64) -> V3 {
        match self {
            FlightPlan::Bounce {
                start,
                velocity,
                bounds,
            } => [
                fold(start[0] + velocity[0] * t_s, bounds[0], bounds[2]),
                fold(start[1] + velocity[1] * t_s, bounds[1], bounds[3]),
                start[2] + velocity[2] * t_s,
            ],
            FlightPlan::Knots(knots) => {
                let i = knots.partition_point(|k| k.0 <= t_s);
                match (i.checked_sub(1).and_then(|j| knots.get(j)), knots.get(i)) {
                    (Some(a), Some(b)) if b.0 > a.0 => {
                        let f = (t_s - a.0) / (b.0 - a.0);
                        vec3::add(a.1, vec3::scale(vec3::sub(b.1, a.1), f))
                    }
                    (Some(a), _) => a.1,
                    (None, Some(b)) => b.1,
                    (None, None) => [0.0; 3],
                }
            }
        }
    }

    /// The times in (t0, t1) where the motion changes direction, plus t0 and t1, in order.
    pub fn breakpoints(&self, t0: f64, t1: f64) -> Vec<f64> {
        let mut ts = vec![t0];
        match self {
            FlightPlan::Bounce {
                start,
                velocity,
                bounds,
            } => {
                for axis in 0..2 {
                    let (lo, hi, v) = (bounds[axis], bounds[axis + 2], velocity[axis]);
                    let len = hi - lo;
                    if len <= 0.0 || v == 0.0 {
                        continue;
                    }
                    // Walls are hit where start − lo + v·t is a multiple of len.
                    let at = |t: f64| (start[axis] - lo + v * t) / len;
                    let (a, b) = (at(t0), at(t1));
                    let (k0, k1) = (a.min(b).floor() as i64 + 1, a.max(b).ceil() as i64 - 1);
                    for k in k0..=k1.min(k0 + 10_000) {
                        ts.push((k as f64 * len - (start[axis] - lo)) / v);
                    }
                }
            }
            FlightPlan::Knots(knots) => {
                ts.extend(knots.iter().map(|k| k.0).filter(|&t| t > t0 && t < t1));
            }
        }
        ts.push(t1);
        ts.retain(|t| *t >= t0 && *t <= t1);
        ts.sort_by(f64::total_cmp);
        ts.dedup();
        ts
    }

    /// A plan through `points` at `speed_mps` starting at `t0_s` (and holding at the end).
    pub fn along(points: &[V3], speed_mps: f64, t0_s: f64) -> Self {
        let mut t = t0_s;
        let mut knots = Vec::with_capacity(points.len());
        for (i, p) in points.iter().enumerate() {
            if i > 0 {
                t += vec3::distance(points[i - 1], *p) / speed_mps.max(0.1);
            }
            knots.push((t, *p));
        }
        FlightPlan::Knots(knots)
    }
}

/// Another aircraft.
#[derive(Debug, Clone, PartialEq)]
pub struct Aircraft {
    /// `uav-1`, `helicopter-1`, `swarm-1`, …: the A2A address of cooperative ones.
    pub id: String,
    pub kind: String,
    pub plan: FlightPlan,
    /// Answers A2A tasks (UAVs and swarm members do; helicopters and planes do not).
    pub cooperative: bool,
}

/// All other aircraft of a scenario.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Traffic {
    pub aircraft: Vec<Aircraft>,
}

impl Traffic {
    pub fn new(s: &Scenario, cruise_mps: f64) -> Self {
        let bounds = bounding_box(&s.airspace.geofence).unwrap_or_else(|| {
            let p = s.spawn.xyz;
            [p[0] - 1000.0, p[1] - 1000.0, p[0] + 1000.0, p[1] + 1000.0]
        });
        let mut aircraft = Vec::new();
        let mut counts: Vec<(String, usize)> = Vec::new();
        for t in &s.traffic {
            let n = match counts.iter_mut().find(|c| c.0 == t.kind) {
                Some(c) => {
                    c.1 += 1;
                    c.1
                }
                None => {
                    counts.push((t.kind.clone(), 1));
                    1
                }
            };
            let a = heading_to_enu_angle_rad(t.heading_deg);
            aircraft.push(Aircraft {
                id: format!("{}-{n}", t.kind),
                kind: t.kind.clone(),
                plan: FlightPlan::Bounce {
                    start: t.spawn,
                    velocity: [t.speed_mps * libm::cos(a), t.speed_mps * libm::sin(a), 0.0],
                    bounds,
                },
                cooperative: t.kind == "uav",
            });
        }
        let sw = swarm(s);
        if sw.enabled {
            for i in 1..sw.size {
                let off = 2.0 * sw.separation_min_m * i as f64;
                let points: Vec<V3> = std::iter::once(s.spawn.xyz)
                    .chain(s.mission.waypoints.iter().copied())
                    .map(|p| [p[0], p[1] + off, p[2]])
                    .collect();
                aircraft.push(Aircraft {
                    id: format!("swarm-{i}"),
                    kind: "uav".into(),
                    plan: FlightPlan::along(&points, cruise_mps, 0.0),
                    cooperative: true,
                });
            }
        }
        Self { aircraft }
    }

    pub fn find(&self, id: &str) -> Option<&Aircraft> {
        self.aircraft.iter().find(|a| a.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bouncing_tracks_turn_back_at_the_walls() {
        let p = FlightPlan::Bounce {
            start: [750.0, 550.0, 40.0],
            velocity: [-12.0, 0.0, 0.0],
            bounds: [0.0, 0.0, 800.0, 600.0],
        };
        assert_eq!(p.position_at(10.0), [630.0, 550.0, 40.0]);
        let heading_west = Traffic::new(&crate::scenario::suite_scenario(0), 8.0);
        assert!(heading_west.aircraft.iter().all(|a| !a.id.is_empty()));
        // 750 m to the west wall takes 62.5 s; 10 s later it is 120 m back east.
        let q = p.position_at(72.5);
        assert!((q[0] - 120.0).abs() < 1e-9, "{q:?}");
        let b = p.breakpoints(0.0, 100.0);
        assert_eq!(b.len(), 3);
        assert!((b[1] - 62.5).abs() < 1e-9, "{b:?}");
    }

    #[test]
    fn knot_plans_interpolate_and_hold() {
        let p = FlightPlan::along(&[[0.0; 3], [100.0, 0.0, 0.0]], 10.0, 5.0);
        assert_eq!(p.position_at(0.0), [0.0; 3]);
        assert_eq!(p.position_at(10.0), [50.0, 0.0, 0.0]);
        assert_eq!(p.position_at(99.0), [100.0, 0.0, 0.0]);
        assert_eq!(p.breakpoints(0.0, 30.0), vec![0.0, 5.0, 15.0, 30.0]);
    }
}
