//! The swarm's flight as its autopilots broadcast it, on one clock: every vehicle's position
//! sampled every [`SAMPLE_S`] in the swarm's common frame. The hub keeps it beside the
//! separation in truth; the swarm's review page draws it (every vehicle on one map under one
//! time slider) with the closest pair over time. Time is an argument.

use crate::frames::Enu;
use serde::{Deserialize, Serialize};

/// How often a vehicle's position is kept, s.
pub const SAMPLE_S: f64 = 0.5;
/// Samples kept per vehicle at most (about 2.8 h at [`SAMPLE_S`]): later ones are dropped.
pub const MAX_SAMPLES: usize = 20_000;
/// A vehicle this high above the common origin or more counts as airborne for the closest
/// pair, m (as the hub's separation in truth).
pub const AIRBORNE_M: f64 = 1.0;

/// One vehicle's track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VehicleTrack {
    pub name: String,
    pub system_id: u8,
    /// Swarm time, s.
    pub t: Vec<f64>,
    /// East, north and up of the common origin, m.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    /// Whether it was airborne (its autopilot's relative altitude over [`AIRBORNE_M`]).
    pub airborne: Vec<bool>,
    /// Samples dropped past [`MAX_SAMPLES`].
    pub dropped: u64,
}

/// Every vehicle's track, and the separation they were held to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwarmTrack {
    pub min_separation_m: f64,
    pub vehicles: Vec<VehicleTrack>,
}

/// The closest airborne pair at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Closest {
    pub t: f64,
    pub distance_m: f64,
    pub a: u8,
    pub b: u8,
}

impl SwarmTrack {
    /// Tracks for these vehicles (name, system id), empty.
    pub fn new(min_separation_m: f64, vehicles: impl IntoIterator<Item = (String, u8)>) -> Self {
        Self {
            min_separation_m,
            vehicles: vehicles
                .into_iter()
                .map(|(name, system_id)| VehicleTrack {
                    name,
                    system_id,
                    t: Vec::new(),
                    x: Vec::new(),
                    y: Vec::new(),
                    z: Vec::new(),
                    airborne: Vec::new(),
                    dropped: 0,
                })
                .collect(),
        }
    }

    /// Vehicle `system` reported `position` at `t_s`; kept when [`SAMPLE_S`] has passed since
    /// its last kept sample. Unknown systems, non-finite values and time going back are ignored.
    pub fn observe(&mut self, system: u8, t_s: f64, position: Enu, airborne: bool) {
        let finite = t_s.is_finite() && position.x.is_finite() && position.y.is_finite();
        let Some(v) = self
            .vehicles
            .iter_mut()
            .find(|v| v.system_id == system)
            .filter(|_| finite && position.z.is_finite())
        else {
            return;
        };
        if v.t.last().is_some_and(|last| t_s < last + SAMPLE_S) {
            return;
        }
        if v.t.len() >= MAX_SAMPLES {
            v.dropped += 1;
            return;
        }
        v.t.push(t_s);
        v.x.push(position.x);
        v.y.push(position.y);
        v.z.push(position.z);
        v.airborne.push(airborne);
    }

    /// Where vehicle `k` was at `t` (linear between samples), and whether airborne; `None`
    /// outside its track or over a gap longer than two samples (it was not heard).
    pub fn at(&self, k: usize, t: f64) -> Option<(Enu, bool)> {
        let v = self.vehicles.get(k)?;
        let i = v.t.partition_point(|s| *s <= t);
        let (a, b) = (i.checked_sub(1)?, i.min(v.t.len() - 1));
        if b == a {
            return (t - v.t[a] <= SAMPLE_S)
                .then(|| (Enu::new(v.x[a], v.y[a], v.z[a]), v.airborne[a]));
        }
        let span = v.t[b] - v.t[a];
        if span > 2.0 * SAMPLE_S + 1e-9 {
            return None;
        }
        let f = if span > 0.0 { (t - v.t[a]) / span } else { 0.0 };
        let lerp = |p: f64, q: f64| p + (q - p) * f;
        Some((
            Enu::new(
                lerp(v.x[a], v.x[b]),
                lerp(v.y[a], v.y[b]),
                lerp(v.z[a], v.z[b]),
            ),
            v.airborne[a] || v.airborne[b],
        ))
    }

    /// The closest pair with at least one airborne, every [`SAMPLE_S`] over the whole flight
    /// (instants with no such pair are left out).
    pub fn closest_over_time(&self) -> Vec<Closest> {
        let start = self.vehicles.iter().filter_map(|v| v.t.first()).copied();
        let end = self.vehicles.iter().filter_map(|v| v.t.last()).copied();
        let (Some(t0), Some(t1)) = (start.reduce(f64::min), end.reduce(f64::max)) else {
            return Vec::new();
        };
        let steps = ((t1 - t0) / SAMPLE_S).floor() as usize;
        let mut out = Vec::new();
        for i in 0..=steps {
            let t = t0 + i as f64 * SAMPLE_S;
            let here: Vec<(u8, Enu, bool)> = (0..self.vehicles.len())
                .filter_map(|k| {
                    self.at(k, t)
                        .map(|(p, air)| (self.vehicles[k].system_id, p, air))
                })
                .collect();
            let mut best: Option<Closest> = None;
            for (i, (a, pa, aa)) in here.iter().enumerate() {
                for (b, pb, ab) in &here[i + 1..] {
                    if !(aa | ab) {
                        continue;
                    }
                    let d = pa.distance(*pb);
                    if best.is_none_or(|c| d < c.distance_m) {
                        best = Some(Closest {
                            t,
                            distance_m: d,
                            a: *a,
                            b: *b,
                        });
                    }
                }
            }
            out.extend(best);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> SwarmTrack {
        SwarmTrack::new(25.0, [("uav-1".to_string(), 1), ("uav-2".to_string(), 2)])
    }

    #[test]
    fn samples_are_kept_every_half_second_and_junk_is_not() {
        let mut t = two();
        for i in 0..50 {
            let s = f64::from(i) * 0.1;
            t.observe(1, s, Enu::new(s, 0.0, 10.0), true);
        }
        assert_eq!(
            t.vehicles[0].t,
            vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]
        );
        t.observe(1, f64::NAN, Enu::default(), true);
        t.observe(1, 10.0, Enu::new(f64::INFINITY, 0.0, 0.0), true);
        t.observe(9, 10.0, Enu::default(), true);
        t.observe(1, 1.0, Enu::default(), true);
        assert_eq!(t.vehicles[0].t.len(), 10);
        assert!(t.vehicles[1].t.is_empty());
    }

    #[test]
    fn the_closest_pair_follows_two_vehicles_crossing() {
        let mut t = two();
        // uav-1 east along y = 0, uav-2 north along x = 50; they are closest at t = 5 s.
        for i in 0..=20 {
            let s = f64::from(i) * 0.5;
            t.observe(1, s, Enu::new(10.0 * s, 0.0, 30.0), true);
            t.observe(2, s, Enu::new(50.0, -50.0 + 10.0 * s, 30.0), true);
        }
        let c = t.closest_over_time();
        assert_eq!(c.len(), 21);
        let min = c
            .iter()
            .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
            .unwrap();
        assert_eq!((min.t, min.a, min.b), (5.0, 1, 2));
        assert!(min.distance_m < 1e-9);
        // Between samples: linear.
        let (p, _) = t.at(0, 1.25).unwrap();
        assert!((p.x - 12.5).abs() < 1e-9);
        assert!(t.at(0, 11.0).is_none(), "after its last sample");
    }

    #[test]
    fn two_on_the_ground_are_no_pair_and_a_gap_is_not_bridged() {
        let mut t = two();
        t.observe(1, 0.0, Enu::new(0.0, 0.0, 0.0), false);
        t.observe(2, 0.0, Enu::new(5.0, 0.0, 0.0), false);
        assert!(t.closest_over_time().is_empty());
        t.observe(1, 10.0, Enu::new(0.0, 0.0, 20.0), true);
        assert!(t.at(0, 5.0).is_none(), "unheard for 10 s");
    }
}
