//! What ArduCopter keeps on top of the PX4 state that flies the world.

/// ArduCopter's own mode and its pre-arm text timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CopterState {
    /// ArduCopter's mode number (its HEARTBEAT custom_mode); the navigation mode then holds the
    /// PX4 mode that flies the world the same way.
    pub mode: u32,
    /// When ArduCopter next repeats its pre-arm failure on its own.
    pub prearm_text_us: u64,
}
