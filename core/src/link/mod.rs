//! Network slices, link measurements, the link monitor and the slice policy.

mod monitor;
mod sample;
mod slice_policy;

pub use monitor::{LinkCondition, LinkMonitor, LinkState, MonitorSettings};
pub use sample::{HardThresholds, LinkSample, Slice};
pub use slice_policy::{
    SliceDecision, TelemetryProfile, UnknownSliceDecision, decide, telemetry_profile,
};
