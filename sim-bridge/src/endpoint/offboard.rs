//! The offboard setpoint stream as PX4 last heard it.

use alpha3_core::frames::Enu;

/// The newest offboard setpoint and when a setpoint last came.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Offboard {
    /// Newest position setpoint, world frame.
    pub setpoint: Option<Enu>,
    /// When any setpoint last came, microseconds since boot.
    pub at_us: Option<u64>,
}
