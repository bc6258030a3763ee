//! The radio's condition as a continuous-time Markov chain good ⇄ degraded ⇄ hard, with
//! exponential holding times whose means depend on the scenario's network stress. It runs on
//! its own random stream, so how often the link is measured never changes when it degrades.

use crate::rng::SimRng;
use serde::Serialize;

/// The radio link's condition (the world's truth; the runtime only sees samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RadioState {
    Good,
    Degraded,
    Hard,
    /// Inside a scenario loss window: nothing gets through.
    Lost,
}

/// How stressed the network is, from the scenario's signal strength and interference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StressLevel {
    /// No transitions at all: the good state forever (calibration).
    None,
    Low,
    Moderate,
    High,
    Severe,
}

/// Mean holding times and branch probability of one stress level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainRates {
    pub good_hold_s: f64,
    pub degraded_hold_s: f64,
    pub hard_hold_s: f64,
    /// Probability that leaving `degraded` goes to `hard` (else back to `good`).
    pub to_hard: f64,
}

impl StressLevel {
    pub fn rates(self) -> Option<ChainRates> {
        let (good_hold_s, to_hard) = match self {
            StressLevel::None => return None,
            StressLevel::Low => (300.0, 0.1),
            StressLevel::Moderate => (120.0, 0.2),
            StressLevel::High => (60.0, 0.35),
            StressLevel::Severe => (30.0, 0.5),
        };
        Some(ChainRates {
            good_hold_s,
            degraded_hold_s: 20.0,
            hard_hold_s: 8.0,
            to_hard,
        })
    }

    /// Long-run share of time in (good, degraded, hard).
    pub fn stationary(self) -> (f64, f64, f64) {
        let Some(r) = self.rates() else {
            return (1.0, 0.0, 0.0);
        };
        // Per visit to good: 1/(1−q) visits to degraded and q/(1−q) to hard.
        let g = r.good_hold_s;
        let d = r.degraded_hold_s / (1.0 - r.to_hard);
        let h = r.hard_hold_s * r.to_hard / (1.0 - r.to_hard);
        let sum = g + d + h;
        (g / sum, d / sum, h / sum)
    }
}

#[derive(Debug, Clone)]
pub struct LinkChain {
    rates: Option<ChainRates>,
    state: RadioState,
    next_change_s: f64,
    rng: SimRng,
}

impl LinkChain {
    pub fn new(level: StressLevel, seed: u64) -> Self {
        let mut rng = SimRng::stream(seed, "network.state");
        let rates = level.rates();
        let next_change_s = rates.map_or(f64::INFINITY, |r| rng.exponential(r.good_hold_s));
        Self {
            rates,
            state: RadioState::Good,
            next_change_s,
            rng,
        }
    }

    /// The condition at `t_s` (times must not go backwards).
    pub fn advance_to(&mut self, t_s: f64) -> RadioState {
        let Some(r) = self.rates else {
            return self.state;
        };
        while t_s >= self.next_change_s {
            let (next, hold) = match self.state {
                RadioState::Good => (RadioState::Degraded, r.degraded_hold_s),
                RadioState::Degraded if self.rng.chance(r.to_hard) => {
                    (RadioState::Hard, r.hard_hold_s)
                }
                RadioState::Degraded => (RadioState::Good, r.good_hold_s),
                RadioState::Hard | RadioState::Lost => (RadioState::Degraded, r.degraded_hold_s),
            };
            self.state = next;
            self.next_change_s += self.rng.exponential(hold);
        }
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_shares_match_the_stationary_distribution() {
        for level in [StressLevel::Moderate, StressLevel::Severe] {
            let mut c = LinkChain::new(level, 9);
            let mut counts = [0u32; 3];
            let n = 2_000_000;
            for i in 0..n {
                match c.advance_to(i as f64 * 0.5) {
                    RadioState::Good => counts[0] += 1,
                    RadioState::Degraded => counts[1] += 1,
                    _ => counts[2] += 1,
                }
            }
            let (g, d, h) = level.stationary();
            let share = |k: u32| f64::from(k) / n as f64;
            assert!(
                (share(counts[0]) - g).abs() < 0.03,
                "{level:?} good {counts:?}"
            );
            assert!(
                (share(counts[1]) - d).abs() < 0.03,
                "{level:?} degraded {counts:?}"
            );
            assert!(
                (share(counts[2]) - h).abs() < 0.02,
                "{level:?} hard {counts:?}"
            );
        }
    }

    #[test]
    fn no_stress_stays_good() {
        let mut c = LinkChain::new(StressLevel::None, 1);
        assert_eq!(c.advance_to(1e9), RadioState::Good);
    }
}
