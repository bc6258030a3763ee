//! The 6G link as the world runs it: which slice carries traffic, the radio's condition, the
//! scenario's loss windows, and one measurement per call of [`NetworkModel::sample`].

use super::markov::{LinkChain, RadioState, StressLevel};
use super::profile::{PROBE_PACKETS, SliceDistribution, SliceModel, THROUGHPUT_SIGMA, profile_of};
use crate::rng::SimRng;
use alpha3_core::config::SliceProfiles;
use alpha3_core::link::{HardThresholds, LinkSample, Slice};
use alpha3_core::scenario::Scenario;

/// Correlation time of edge-server load, seconds.
const EDGE_TAU_S: f64 = 30.0;
/// Stationary spread of edge-server load.
const EDGE_SIGMA: f64 = 0.05;
/// Latency reported inside a loss window (a probe that timed out), ms.
const LOST_LATENCY_MS: f64 = 1000.0;

/// What the scenario says about the network.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkConditions {
    pub stress: StressLevel,
    /// [start, end) seconds where nothing gets through.
    pub loss_windows: Vec<[f64; 2]>,
}

impl NetworkConditions {
    /// From the scenario: the weakest signal sets the stress (interference adds a level); its
    /// `comms.loss_windows` are kept.
    pub fn of(s: &Scenario) -> Self {
        let flags = crate::scenario::emitter_flags(s);
        let mut stress = match flags.rssi_dbm_min {
            None => StressLevel::Low,
            Some(r) if r >= -80.0 => StressLevel::Low,
            Some(r) if r >= -92.0 => StressLevel::Moderate,
            Some(r) if r >= -102.0 => StressLevel::High,
            Some(_) => StressLevel::Severe,
        };
        if flags.em_interference {
            stress = match stress {
                StressLevel::None | StressLevel::Low => StressLevel::Moderate,
                StressLevel::Moderate => StressLevel::High,
                StressLevel::High | StressLevel::Severe => StressLevel::Severe,
            };
        }
        Self {
            stress,
            loss_windows: s
                .comms
                .as_ref()
                .map(|c| c.loss_windows.clone())
                .unwrap_or_default(),
        }
    }

    /// Always good, never lost: the configured distributions alone.
    pub fn ideal() -> Self {
        Self {
            stress: StressLevel::None,
            loss_windows: Vec::new(),
        }
    }

    fn lost_at(&self, t_s: f64) -> Option<f64> {
        self.loss_windows
            .iter()
            .find(|w| t_s >= w[0] && t_s < w[1])
            .map(|w| w[1])
    }
}

/// Result of asking for another slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliceSwitch {
    pub slice: Slice,
    /// When it takes effect, milliseconds from the request.
    pub effective_after_ms: u64,
}

#[derive(Debug, Clone)]
pub struct NetworkModel {
    models: [SliceModel; 3],
    hard: HardThresholds,
    switch_delay_ms: u64,
    conditions: NetworkConditions,
    chain: LinkChain,
    slice: Slice,
    pending: Option<(Slice, f64)>,
    last_latency_ms: [Option<f64>; 3],
    edge_load: f64,
    last_sample_s: f64,
    rng: SimRng,
}

fn index(slice: Slice) -> usize {
    match slice {
        Slice::Urllc => 0,
        Slice::Embb => 1,
        Slice::Mmtc => 2,
    }
}

impl NetworkModel {
    /// Starts on URLLC in the good state at time 0.
    pub fn new(profiles: &SliceProfiles, conditions: NetworkConditions, seed: u64) -> Self {
        let models = Slice::ALL.map(|s| SliceModel::new(profile_of(profiles, s), &profiles.hard));
        Self {
            edge_load: models[0].good.edge_load_mean,
            models,
            hard: profiles.hard,
            switch_delay_ms: profiles.switch_delay_ms,
            chain: LinkChain::new(conditions.stress, seed),
            conditions,
            slice: Slice::Urllc,
            pending: None,
            last_latency_ms: [None; 3],
            last_sample_s: 0.0,
            rng: SimRng::stream(seed, "network.noise"),
        }
    }

    /// The slice carrying traffic at `t_s` (a pending switch applies once due).
    pub fn slice_at(&mut self, t_s: f64) -> Slice {
        if let Some((s, due)) = self.pending
            && t_s >= due
        {
            self.slice = s;
            self.pending = None;
        }
        self.slice
    }

    /// The radio's condition at `t_s`.
    pub fn radio_state(&mut self, t_s: f64) -> RadioState {
        let state = self.chain.advance_to(t_s);
        if self.conditions.lost_at(t_s).is_some() {
            RadioState::Lost
        } else {
            state
        }
    }

    /// Asks for `slice` at `t_s`. The switch is signalled over the current link: it takes the
    /// configured delay, twice that when degraded, four times when hard, and waits for the end
    /// of a loss window.
    pub fn request_switch(&mut self, slice: Slice, t_s: f64) -> SliceSwitch {
        let current = self.slice_at(t_s);
        if current == slice && self.pending.is_none() {
            return SliceSwitch {
                slice,
                effective_after_ms: 0,
            };
        }
        let base = self.switch_delay_ms as f64 / 1000.0;
        let state = self.radio_state(t_s);
        let delay = match state {
            RadioState::Good => base,
            RadioState::Degraded => 2.0 * base,
            RadioState::Hard => 4.0 * base,
            RadioState::Lost => self.conditions.lost_at(t_s).unwrap_or(t_s) - t_s + base,
        };
        self.pending = Some((slice, t_s + delay));
        SliceSwitch {
            slice,
            effective_after_ms: (delay * 1000.0).round() as u64,
        }
    }

    /// One measurement at `t_s` on the current slice.
    pub fn sample(&mut self, t_s: f64) -> LinkSample {
        let slice = self.slice_at(t_s);
        let state = self.radio_state(t_s);
        let m = self.models[index(slice)];
        let d: SliceDistribution = match state {
            RadioState::Good => m.good,
            RadioState::Degraded => m.degraded,
            RadioState::Hard | RadioState::Lost => m.hard,
        };
        // Edge load: exact Ornstein–Uhlenbeck step over the time since the last sample.
        let dt = (t_s - self.last_sample_s).max(0.0);
        self.last_sample_s = t_s;
        let phi = libm::exp(-dt / EDGE_TAU_S);
        self.edge_load = d.edge_load_mean
            + (self.edge_load - d.edge_load_mean) * phi
            + EDGE_SIGMA * (1.0 - phi * phi).sqrt() * self.rng.normal();
        let edge_load = self.edge_load.clamp(0.0, 1.0);
        if state == RadioState::Lost {
            return LinkSample {
                slice,
                lat_ms: LOST_LATENCY_MS,
                jitter_ms: 0.0,
                loss_pct: 100.0,
                throughput_mbps: 0.0,
                edge_load,
            };
        }
        let latency = d.latency_median_ms * libm::exp(d.latency_sigma * self.rng.normal());
        let previous = self.last_latency_ms[index(slice)].replace(latency);
        let previous = match previous {
            Some(p) => p,
            None => d.latency_median_ms * libm::exp(d.latency_sigma * self.rng.normal()),
        };
        let lost = self.rng.poisson(PROBE_PACKETS * d.loss_pct / 100.0) as f64;
        let loss_pct = (100.0 * lost / PROBE_PACKETS).max(d.loss_floor_pct);
        let z = self.rng.normal();
        let throughput = d.throughput_mean_mbps
            * libm::exp(THROUGHPUT_SIGMA * z - THROUGHPUT_SIGMA * THROUGHPUT_SIGMA / 2.0);
        LinkSample {
            slice,
            lat_ms: latency,
            jitter_ms: (latency - previous).abs(),
            loss_pct,
            throughput_mbps: throughput,
            edge_load,
        }
    }

    pub fn hard_thresholds(&self) -> &HardThresholds {
        &self.hard
    }

    pub fn conditions(&self) -> &NetworkConditions {
        &self.conditions
    }
}
