//! The 6G network model: slices URLLC, eMBB and mMTC with their own latency, jitter, loss,
//! throughput and edge-load distributions (calibrated from the slice profiles), a seeded
//! Markov chain of radio conditions good ⇄ degraded ⇄ hard, the scenario's loss windows, and
//! slice switches that take effect after a delay.

mod markov;
mod model;
mod profile;

pub use markov::{ChainRates, RadioState, StressLevel};
pub use model::{NetworkConditions, NetworkModel, SliceSwitch};
pub use profile::{
    PROBE_PACKETS, SliceDistribution, SliceModel, THROUGHPUT_SIGMA, default_slice_profiles,
    mean_jitter, sigma_for_jitter,
};
