//! The flight mode PX4 is in, the one it goes back to when it disarms, and where a return is.

use super::modes::Px4Mode;

/// Where a return is in its sequence (PX4: climb to RTL_RETURN_ALT, fly home, land).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RtlPhase {
    Climb {
        altitude_z: f64,
    },
    /// Flying home at altitude (the world's land-at-site, in transit).
    Home,
    /// Descending at home.
    Land,
}

/// PX4's navigation state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Navigation {
    pub mode: Px4Mode,
    /// The mode PX4 returns to when it disarms: the last one the user chose that allows
    /// arming (not Return or Land; PX4's `_nav_state_after_disarming`).
    pub mode_after_disarm: Px4Mode,
    pub rtl: Option<RtlPhase>,
}
