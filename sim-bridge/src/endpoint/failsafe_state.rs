//! What PX4's failsafes remember between steps, and the reactions they choose from.

use super::modes::Px4Mode;

/// What PX4 does about a failure (its `failsafe_action_t`, in order of severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Reaction {
    Warn,
    Hold,
    Return,
    Land,
    /// Terminate or lockdown: the world cannot drop the vehicle, so it lands (at once, as
    /// PX4 allows no take-over for these).
    Terminate,
}

impl Reaction {
    pub(super) fn mode(self) -> Px4Mode {
        match self {
            Reaction::Warn | Reaction::Hold => Px4Mode::HOLD,
            Reaction::Return => Px4Mode::RTL,
            Reaction::Land | Reaction::Terminate => Px4Mode::LAND,
        }
    }

    /// GF_ACTION.
    pub(super) fn geofence(action: i64) -> Option<Self> {
        match action {
            0 => None,
            2 => Some(Reaction::Hold),
            3 => Some(Reaction::Return),
            4 => Some(Reaction::Terminate),
            5 => Some(Reaction::Land),
            _ => Some(Reaction::Warn),
        }
    }

    /// NAV_DLL_ACT.
    pub(super) fn datalink(action: i64) -> Option<Self> {
        match action {
            1 => Some(Reaction::Hold),
            2 => Some(Reaction::Return),
            3 => Some(Reaction::Land),
            a if a > 3 => Some(Reaction::Terminate),
            _ => None,
        }
    }

    /// COM_LOW_BAT_ACT at a warning level (0 warn, 1 return, 2 land, 3 return at critical and
    /// land at emergency).
    pub(super) fn battery(action: i64, level: BatteryLevel) -> Self {
        match (action, level) {
            (_, BatteryLevel::Low) => Reaction::Warn,
            (1, _) | (3, BatteryLevel::Critical) => Reaction::Return,
            (2, _) | (3, BatteryLevel::Emergency) => Reaction::Land,
            _ => Reaction::Warn,
        }
    }
}

/// PX4's battery warning levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum BatteryLevel {
    Ok,
    Low,
    Critical,
    Emergency,
}

/// What the failsafes remember between steps.
#[derive(Debug, Clone, Default)]
pub(super) struct FailsafeState {
    pub fence_breached: bool,
    /// When a ground station's heartbeat last came (data-link loss needs one first).
    pub gcs_heartbeat_us: Option<u64>,
    pub datalink_lost: bool,
    /// A Return or Land waiting out COM_FAIL_ACT_T in Hold: the action and when it starts.
    pub delayed: Option<(Reaction, u64)>,
    /// An injected battery failure: when, and the warning level announced so far.
    pub battery: Option<(u64, BatteryLevel)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reactions_follow_px4s_parameters_and_order() {
        assert_eq!(Reaction::geofence(0), None);
        assert_eq!(Reaction::geofence(1), Some(Reaction::Warn));
        assert_eq!(Reaction::geofence(3), Some(Reaction::Return));
        assert_eq!(Reaction::datalink(0), None);
        assert_eq!(Reaction::datalink(6), Some(Reaction::Terminate));
        // SITL's COM_LOW_BAT_ACT 3: return at critical, land at emergency.
        assert_eq!(
            Reaction::battery(3, BatteryLevel::Critical),
            Reaction::Return
        );
        assert_eq!(
            Reaction::battery(3, BatteryLevel::Emergency),
            Reaction::Land
        );
        assert_eq!(
            Reaction::battery(0, BatteryLevel::Emergency),
            Reaction::Warn
        );
        assert!(Reaction::Land > Reaction::Return && Reaction::Return > Reaction::Hold);
    }
}
