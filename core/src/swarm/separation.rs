//! Separation in truth between the vehicles of a swarm, from their autopilots' own positions
//! (never from any runtime's view of them): each report is compared with every other
//! vehicle's latest, carried forward to the report's time along its velocity. A pair is in
//! violation while both are known within [`FRESH_S`] and at least one is airborne, and their
//! distance is below the minimum. Time is an argument.

use crate::frames::Enu;
use serde::Serialize;
use std::collections::BTreeMap;

/// How old another vehicle's last report may be to be compared, s.
pub const FRESH_S: f64 = 1.0;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Report {
    t_s: f64,
    position: Enu,
    velocity: Enu,
    airborne: bool,
}

/// One pair's closest approach and violations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairSeparation {
    pub a: u8,
    pub b: u8,
    /// Closest 3-D distance while either was airborne, m (`None`: never compared).
    pub min_m: Option<f64>,
    /// When it was closest, s on the monitor's clock.
    pub min_at_s: Option<f64>,
    /// Times the pair came closer than the minimum (entries, not samples).
    pub violations: u32,
    /// Time spent closer than the minimum, s.
    pub violation_s: f64,
}

/// Pairwise separation over a whole swarm flight.
#[derive(Debug, Clone)]
pub struct SeparationMonitor {
    min_separation_m: f64,
    latest: BTreeMap<u8, Report>,
    pairs: BTreeMap<(u8, u8), (PairSeparation, Option<f64>)>,
}

impl SeparationMonitor {
    pub fn new(min_separation_m: f64) -> Self {
        Self {
            min_separation_m,
            latest: BTreeMap::new(),
            pairs: BTreeMap::new(),
        }
    }

    pub fn min_separation_m(&self) -> f64 {
        self.min_separation_m
    }

    /// Vehicle `system` was at `position` (a frame common to the swarm) at `t_s`.
    pub fn observe(&mut self, system: u8, t_s: f64, position: Enu, velocity: Enu, airborne: bool) {
        let finite = |p: Enu| p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
        if !(t_s.is_finite() && finite(position) && finite(velocity)) {
            return;
        }
        let report = Report {
            t_s,
            position,
            velocity,
            airborne,
        };
        self.latest.insert(system, report);
        let others: Vec<(u8, Report)> = self
            .latest
            .iter()
            .filter(|(s, _)| **s != system)
            .map(|(s, r)| (*s, *r))
            .collect();
        for (other, r) in others {
            let key = (system.min(other), system.max(other));
            let entry = self.pairs.entry(key).or_insert_with(|| {
                (
                    PairSeparation {
                        a: key.0,
                        b: key.1,
                        min_m: None,
                        min_at_s: None,
                        violations: 0,
                        violation_s: 0.0,
                    },
                    None,
                )
            });
            let age = t_s - r.t_s;
            if !(0.0..=FRESH_S).contains(&age) || !(airborne || r.airborne) {
                entry.1 = None;
                continue;
            }
            let there = Enu::from_vector(&(r.position.to_vector() + r.velocity.to_vector() * age));
            let d = position.distance(there);
            let (pair, below_since) = entry;
            if pair.min_m.is_none_or(|m| d < m) {
                pair.min_m = Some(d);
                pair.min_at_s = Some(t_s);
            }
            if d < self.min_separation_m {
                match *below_since {
                    Some(since) => {
                        pair.violation_s += (t_s - since).max(0.0);
                        *below_since = Some(t_s);
                    }
                    None => {
                        pair.violations += 1;
                        *below_since = Some(t_s);
                    }
                }
            } else {
                *below_since = None;
            }
        }
    }

    /// Every pair compared so far, in system-id order.
    pub fn pairs(&self) -> Vec<PairSeparation> {
        self.pairs.values().map(|(p, _)| p.clone()).collect()
    }

    /// The closest any pair came, m.
    pub fn min_m(&self) -> Option<f64> {
        self.pairs
            .values()
            .filter_map(|(p, _)| p.min_m)
            .min_by(f64::total_cmp)
    }

    pub fn violations(&self) -> u32 {
        self.pairs.values().map(|(p, _)| p.violations).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64) -> Enu {
        Enu::new(x, 0.0, 30.0)
    }

    #[test]
    fn a_crossing_counts_its_closest_approach_and_one_violation() {
        let mut m = SeparationMonitor::new(25.0);
        let still = Enu::default();
        for i in 0..=40 {
            let t = f64::from(i) * 0.5;
            // One flies through x = 0 at 5 m/s, the other hovers at the origin 10 m up.
            m.observe(1, t, at(-50.0 + 5.0 * t), Enu::new(5.0, 0.0, 0.0), true);
            m.observe(2, t + 0.01, Enu::new(0.0, 0.0, 40.0), still, true);
        }
        let p = &m.pairs()[0];
        assert_eq!((p.a, p.b), (1, 2));
        assert!((p.min_m.unwrap() - 10.0).abs() < 0.1, "{p:?}");
        assert_eq!(p.violations, 1);
        // Below 25 m while |x| < ~22.9 m: ~9.2 s.
        assert!((p.violation_s - 9.0).abs() < 1.0, "{p:?}");
        assert_eq!(m.violations(), 1);
    }

    #[test]
    fn stale_reports_and_two_vehicles_on_the_ground_are_not_compared() {
        let mut m = SeparationMonitor::new(25.0);
        m.observe(1, 0.0, at(0.0), Enu::default(), true);
        m.observe(2, 5.0, at(1.0), Enu::default(), true);
        assert_eq!(m.min_m(), None);
        m.observe(3, 5.1, at(2.0), Enu::default(), false);
        m.observe(4, 5.2, at(3.0), Enu::default(), false);
        // 2–3 compared (2 airborne), 3–4 not (both on the ground).
        let compared: Vec<(u8, u8)> = m
            .pairs()
            .iter()
            .filter(|p| p.min_m.is_some())
            .map(|p| (p.a, p.b))
            .collect();
        assert_eq!(compared, vec![(2, 3), (2, 4)]);
        assert_eq!(m.violations(), 2);
    }
}
