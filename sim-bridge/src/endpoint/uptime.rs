//! The vehicle's time since boot ("boot": the endpoint's start), with the moments the imitated
//! autopilot becomes ready counted on it.

use super::options::BootTiming;

/// Time since boot and the boot milestones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Uptime {
    /// When the imitated autopilot speaks, knows home, and may arm.
    pub boot: BootTiming,
    /// The world's clock at boot, microseconds: the world runs on from where it stood then.
    pub world_start_us: u64,
    /// Microseconds since boot.
    pub now_us: u64,
}
