//! Where positions are counted from: PX4's local frame and home in it.

use alpha3_core::frames::{Enu, LocalFrame};

/// The local frame and home.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frames {
    /// PX4's local frame: the EKF origin, here the scenario origin.
    pub local: LocalFrame,
    /// Home, in the world frame; known from `boot.home_ms`, moved at every arming.
    pub home: Option<Enu>,
    /// Home was set or moved since the links last heard (PX4 sends HOME_POSITION on change).
    pub home_changed: bool,
}
