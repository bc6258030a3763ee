//! The link monitor: folds link samples into a [`LinkState`] with hysteresis, so one good
//! sample does not end a hard spell and the slice policy does not flap.

use super::sample::{HardThresholds, LinkSample, Slice};
use serde::{Deserialize, Serialize};

/// How the monitor judges the link.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonitorSettings {
    pub hard: HardThresholds,
    /// Consecutive good samples needed to leave the hard state.
    pub recover_after_samples: u32,
    /// No sample for this long means the link is lost.
    pub lost_after_ms: u64,
    /// Loss at or above this means the link is below the operational threshold.
    pub lost_loss_pct: f64,
}

impl Default for MonitorSettings {
    fn default() -> Self {
        Self {
            hard: HardThresholds::default(),
            recover_after_samples: 3,
            lost_after_ms: 3_000,
            lost_loss_pct: 50.0,
        }
    }
}

/// The link as the slice policy and the watchdog see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkCondition {
    Good,
    /// In the α3 hard state (latency, loss, throughput or edge load beyond the limits).
    Hard,
    /// Below the operational threshold: no sample recently, or loss too high to command.
    Lost,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkState {
    pub condition: LinkCondition,
    /// The slice the link is on now.
    pub slice: Slice,
    /// The newest sample, if any.
    pub last: Option<LinkSample>,
    pub last_at_ms: Option<u64>,
}

/// Folds samples into a state. Pure: time comes in as an argument.
#[derive(Debug, Clone)]
pub struct LinkMonitor {
    settings: MonitorSettings,
    hard: bool,
    good_run: u32,
    last: Option<LinkSample>,
    last_at_ms: Option<u64>,
    slice: Slice,
}

impl LinkMonitor {
    pub fn new(settings: MonitorSettings, slice: Slice) -> Self {
        Self {
            settings,
            hard: false,
            good_run: 0,
            last: None,
            last_at_ms: None,
            slice,
        }
    }

    /// Takes one measurement made at `now_ms`.
    pub fn observe(&mut self, sample: LinkSample, now_ms: u64) {
        self.slice = sample.slice;
        if sample.is_hard(&self.settings.hard) {
            self.hard = true;
            self.good_run = 0;
        } else if self.hard {
            self.good_run += 1;
            if self.good_run >= self.settings.recover_after_samples {
                self.hard = false;
                self.good_run = 0;
            }
        }
        self.last = Some(sample);
        self.last_at_ms = Some(now_ms);
    }

    /// The state at `now_ms`.
    pub fn state(&self, now_ms: u64) -> LinkState {
        let stale = self
            .last_at_ms
            .is_none_or(|t| now_ms.saturating_sub(t) > self.settings.lost_after_ms);
        let lossy = self
            .last
            .is_some_and(|s| s.loss_pct >= self.settings.lost_loss_pct);
        let condition = if stale || lossy {
            LinkCondition::Lost
        } else if self.hard {
            LinkCondition::Hard
        } else {
            LinkCondition::Good
        };
        LinkState {
            condition,
            slice: self.slice,
            last: self.last,
            last_at_ms: self.last_at_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(lat_ms: f64, loss_pct: f64) -> LinkSample {
        LinkSample {
            slice: Slice::Urllc,
            lat_ms,
            jitter_ms: 1.0,
            loss_pct,
            throughput_mbps: 50.0,
            edge_load: 0.3,
        }
    }

    #[test]
    fn hard_is_entered_at_once_and_left_after_three_good_samples() {
        let mut m = LinkMonitor::new(MonitorSettings::default(), Slice::Urllc);
        m.observe(sample(7.0, 0.1), 0);
        assert_eq!(m.state(0).condition, LinkCondition::Good);
        m.observe(sample(80.0, 0.1), 100);
        assert_eq!(m.state(100).condition, LinkCondition::Hard);
        for (i, t) in [200, 300].into_iter().enumerate() {
            m.observe(sample(7.0, 0.1), t);
            assert_eq!(
                m.state(t).condition,
                LinkCondition::Hard,
                "good sample {}",
                i + 1
            );
        }
        m.observe(sample(7.0, 0.1), 400);
        assert_eq!(m.state(400).condition, LinkCondition::Good);
    }

    #[test]
    fn silence_or_heavy_loss_is_lost() {
        let mut m = LinkMonitor::new(MonitorSettings::default(), Slice::Urllc);
        assert_eq!(m.state(0).condition, LinkCondition::Lost, "no sample yet");
        m.observe(sample(7.0, 0.1), 1_000);
        assert_eq!(m.state(4_000).condition, LinkCondition::Good);
        assert_eq!(m.state(4_001).condition, LinkCondition::Lost);
        m.observe(sample(7.0, 60.0), 5_000);
        assert_eq!(m.state(5_000).condition, LinkCondition::Lost);
    }
}
