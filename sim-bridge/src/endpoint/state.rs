//! The vehicle's sub-states: what `Px4Vehicle` keeps for each of its behaviours, with the small
//! pure functions over them. The navigation state (the mode and where a return is), the armed
//! state and its timers, the offboard setpoint, what the failsafes remember and the reactions
//! they choose from, ArduCopter's own mode and the texts it says instead of PX4's. The
//! behaviour itself is in `mode_change`, `arming`, `offboard`, `failsafe` and `copter`; nothing
//! here knows the vehicle.

use super::mission::{Item as PlanItem, Progress};
use super::modes::Px4Mode;
use alpha3_core::frames::Enu;

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

/// The newest offboard setpoint and when a setpoint last came.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Offboard {
    /// Newest position setpoint, world frame.
    pub setpoint: Option<Enu>,
    /// When any setpoint last came, microseconds since boot.
    pub at_us: Option<u64>,
}

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

/// The uploaded mission as the vehicle flies it (`mission_flight`, MISSION-FACTS §5).
#[derive(Debug, Clone, Default)]
pub(super) struct MissionRun {
    /// The MISSION plan as the mission server stores it (ArduPilot's without its home).
    pub items: Vec<PlanItem>,
    /// The current item as the mission server numbers it (ArduPilot: seq 0 is home).
    pub seq: u16,
    pub progress: Progress,
    /// What the current item is doing in the world, once begun.
    pub leg: Option<Leg>,
    /// Disarmed since the mission completed (PX4 then starts it again from item 0).
    pub disarmed_since_complete: bool,
    /// ArduCopter's `auto_armed`: an AUTO take-off from the ground waits for MISSION_START.
    pub auto_armed: bool,
    /// ArduCopter's DO_PAUSE_CONTINUE pause: stopped on the track.
    pub paused: bool,
    /// News for the mission server, oldest first.
    pub events: Vec<MissionEvent>,
}

/// What the current mission item does in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Leg {
    /// PX4 on the ground without a take-off item: straight up to `z` first (world frame).
    Climb { z: f64 },
    /// Up to `z` (world frame).
    Takeoff { z: f64 },
    /// To `target`; once there, `hold_s` more (`None`: for ever, LOITER_UNLIM).
    Fly {
        target: Enu,
        hold_s: Option<f64>,
        arrived_us: Option<u64>,
    },
    /// Down at the item's position (or where it is).
    Land,
    /// ArduCopter's RTL inside AUTO: home, then down.
    Return,
}

/// What the mission server must hear of the flight (as it numbers items).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MissionEvent {
    /// The current item moved to `seq`.
    Current(u16),
    /// Item `seq` was reached.
    Reached(u16),
}

/// ArduCopter's own mode and its pre-arm text timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CopterState {
    /// ArduCopter's mode number (its HEARTBEAT custom_mode); the navigation mode then holds the
    /// PX4 mode that flies the world the same way.
    pub mode: u32,
    /// When ArduCopter next repeats its pre-arm failure on its own.
    pub prearm_text_us: u64,
}

/// What ArduCopter says where the shared vehicle code says PX4's words: its own text, nothing
/// (PX4-only notices), or the text unchanged.
pub(super) fn text_for(px4: &str) -> Option<String> {
    match px4 {
        "Landing detected" | "Takeoff complete, holding" => None,
        t if t.starts_with("Disarmed by") => Some("Disarming motors".into()),
        t => Some(t.to_string()),
    }
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
