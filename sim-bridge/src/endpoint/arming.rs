//! PX4's armed state and the timers that disarm it.

/// Armed or not, and when PX4 disarms by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Arming {
    /// PX4's armed state (the world disarms at touch-down; PX4 a little later).
    pub armed: bool,
    /// When the landing-disarm delay (COM_DISARM_LAND) runs out.
    pub disarm_at_us: Option<u64>,
    /// Armed on the ground and not yet taken off since (COM_DISARM_PRFLT).
    pub idle_since_us: Option<u64>,
    /// The world was in the air at the last step (take-off and landing are its edges).
    pub was_airborne: bool,
}
