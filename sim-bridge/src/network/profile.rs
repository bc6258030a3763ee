//! Per-slice distributions, calibrated from core's [`SliceProfile`]s.
//!
//! A sample is one probe: latency is log-normal with the profile's median; jitter is the
//! inter-packet delay variation |Lₜ − Lₜ₋₁| between consecutive probes, so the log-normal's
//! spread σ is solved from the profile's mean jitter: for independent log-normal latencies
//! E|L₁ − L₂| = 2·m·e^{σ²/2}·erf(σ/2). Loss is counted over a 1,000-packet probe window
//! (Poisson), throughput is log-normal around its mean, edge load mean-reverts around its mean.

use alpha3_core::config::{SliceProfile, SliceProfiles};
use alpha3_core::link::{HardThresholds, Slice};

/// Packets per loss-measurement window.
pub const PROBE_PACKETS: f64 = 1000.0;
/// Log-normal spread of throughput.
pub const THROUGHPUT_SIGMA: f64 = 0.15;

/// Mean |L₁ − L₂| of two independent log-normal latencies with median `median` and spread σ.
pub fn mean_jitter(median: f64, sigma: f64) -> f64 {
    2.0 * median * libm::exp(sigma * sigma / 2.0) * libm::erf(sigma / 2.0)
}

/// The log-normal σ whose consecutive-probe jitter has mean `jitter_mean` (bisection).
pub fn sigma_for_jitter(median: f64, jitter_mean: f64) -> f64 {
    if median <= 0.0 || jitter_mean <= 0.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0f64, 4.0f64);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if mean_jitter(median, mid) < jitter_mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A slice's sampling parameters in one link state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliceDistribution {
    pub latency_median_ms: f64,
    pub latency_sigma: f64,
    /// Mean loss, percent.
    pub loss_pct: f64,
    /// Loss never below this (percent): the hard state guarantees a hard sample.
    pub loss_floor_pct: f64,
    pub throughput_mean_mbps: f64,
    pub edge_load_mean: f64,
}

impl SliceDistribution {
    /// The good state: exactly the profile.
    pub fn good(p: &SliceProfile) -> Self {
        Self {
            latency_median_ms: p.latency_median_ms,
            latency_sigma: sigma_for_jitter(p.latency_median_ms, p.jitter_mean_ms),
            loss_pct: p.loss_pct,
            loss_floor_pct: 0.0,
            throughput_mean_mbps: p.throughput_mbps,
            edge_load_mean: p.edge_load_mean,
        }
    }

    /// Congestion or weak signal: slower, more variable, lossier, narrower, busier.
    pub fn degraded(p: &SliceProfile) -> Self {
        let g = Self::good(p);
        Self {
            latency_median_ms: g.latency_median_ms * 2.5,
            latency_sigma: g.latency_sigma * 1.5,
            loss_pct: g.loss_pct * 4.0,
            throughput_mean_mbps: g.throughput_mean_mbps * 0.5,
            edge_load_mean: (g.edge_load_mean + 0.25).min(0.78),
            ..g
        }
    }

    /// Hard: every sample crosses at least the loss threshold of `hard`.
    pub fn hard(p: &SliceProfile, hard: &HardThresholds) -> Self {
        let g = Self::good(p);
        Self {
            latency_median_ms: (g.latency_median_ms * 6.0).max(hard.max_latency_ms * 1.1),
            latency_sigma: g.latency_sigma * 2.0,
            loss_pct: 3.0,
            loss_floor_pct: hard.max_loss_pct,
            throughput_mean_mbps: g.throughput_mean_mbps * 0.15,
            edge_load_mean: 0.85,
        }
    }
}

/// The three states' distributions of one slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliceModel {
    pub good: SliceDistribution,
    pub degraded: SliceDistribution,
    pub hard: SliceDistribution,
}

impl SliceModel {
    pub fn new(p: &SliceProfile, hard: &HardThresholds) -> Self {
        Self {
            good: SliceDistribution::good(p),
            degraded: SliceDistribution::degraded(p),
            hard: SliceDistribution::hard(p, hard),
        }
    }
}

/// The profile of `slice` in `profiles`.
pub fn profile_of(profiles: &SliceProfiles, slice: Slice) -> &SliceProfile {
    match slice {
        Slice::Urllc => &profiles.urllc,
        Slice::Embb => &profiles.embb,
        Slice::Mmtc => &profiles.mmtc,
    }
}

/// The shipped profiles (`configs/slices/6g-default.toml`): good-state URLLC calibrated to the
/// published α3-Bench figures, median latency 7 ms and mean jitter 1.1 ms.
pub fn default_slice_profiles() -> SliceProfiles {
    let p = |latency_median_ms, jitter_mean_ms, loss_pct, throughput_mbps, edge_load_mean| {
        SliceProfile {
            latency_median_ms,
            jitter_mean_ms,
            loss_pct,
            throughput_mbps,
            edge_load_mean,
        }
    };
    SliceProfiles {
        hard: HardThresholds::default(),
        switch_delay_ms: 50,
        urllc: p(7.0, 1.1, 0.1, 50.0, 0.3),
        embb: p(18.0, 4.0, 0.3, 300.0, 0.45),
        mmtc: p(60.0, 12.0, 0.5, 2.0, 0.35),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigma_solves_the_jitter_equation() {
        let s = sigma_for_jitter(7.0, 1.1);
        assert!((mean_jitter(7.0, s) - 1.1).abs() < 1e-9);
        // Small-σ approximation: E|ΔL| ≈ 2·m·σ/√π.
        assert!(
            (s - 1.1 * std::f64::consts::PI.sqrt() / 14.0).abs() < 0.002,
            "{s}"
        );
    }

    #[test]
    fn hard_distributions_cross_a_threshold() {
        let d = default_slice_profiles();
        let h = SliceDistribution::hard(&d.urllc, &d.hard);
        assert!(h.loss_floor_pct >= d.hard.max_loss_pct);
        assert!(h.latency_median_ms > d.hard.max_latency_ms);
    }
}
