//! Autopilot profiles: how PX4 and ArduPilot encode modes, parameters and commands.
//!
//! A profile is picked from the autopilot's own HEARTBEAT (or forced by config) and never
//! guessed from behaviour.

pub mod ardupilot;
pub mod failsafe_param;
pub mod px4;

pub use ardupilot::copter_mode;
pub use failsafe_param::{FailsafeParam, OffWhen};
pub use px4::{px4_custom_mode, px4_mode};

use crate::dialect::mav::MavAutopilot;
use crate::error::HilError;
use crate::param::ParamEncoding;
use alpha3_core::config::AutopilotKind;
use alpha3_core::snapshot::FlightMode;

/// The autopilot firmware family on the other end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    Px4,
    /// ArduPilot Copter (the mode numbers are Copter's).
    ArduPilot,
}

impl Profile {
    /// The profile announced by a HEARTBEAT's `autopilot` field.
    pub fn from_autopilot(autopilot: MavAutopilot) -> Option<Profile> {
        match autopilot {
            MavAutopilot::MAV_AUTOPILOT_PX4 => Some(Profile::Px4),
            MavAutopilot::MAV_AUTOPILOT_ARDUPILOTMEGA => Some(Profile::ArduPilot),
            _ => None,
        }
    }

    /// The profile to use, given the configured kind and what the autopilot announced.
    pub fn resolve(configured: AutopilotKind, seen: MavAutopilot) -> Result<Profile, HilError> {
        let announced = Profile::from_autopilot(seen);
        let wanted = match configured {
            AutopilotKind::Auto => None,
            AutopilotKind::Px4 => Some(Profile::Px4),
            AutopilotKind::Ardupilot => Some(Profile::ArduPilot),
        };
        match (wanted, announced) {
            (Some(w), Some(a)) if w != a => Err(HilError::Config(format!(
                "configured for {} but the autopilot announces {}",
                w.name(),
                a.name()
            ))),
            (Some(w), _) => Ok(w),
            (None, Some(a)) => Ok(a),
            (None, None) => Err(HilError::Config(format!(
                "unknown autopilot {seen:?}: set link.autopilot to px4 or ardupilot"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Px4 => "px4",
            Profile::ArduPilot => "ardupilot",
        }
    }

    /// Maps the HEARTBEAT's `custom_mode` to our flight mode.
    pub fn flight_mode(self, custom_mode: u32) -> FlightMode {
        match self {
            Profile::Px4 => px4::px4_mode(custom_mode),
            Profile::ArduPilot => ardupilot::copter_mode(custom_mode),
        }
    }

    /// How integer parameters travel in PARAM_VALUE's float field.
    pub fn param_encoding(self) -> ParamEncoding {
        match self {
            Profile::Px4 => ParamEncoding::Bytewise,
            Profile::ArduPilot => ParamEncoding::CCast,
        }
    }

    /// The autopilot's own failsafe parameters, read and reported before flight.
    pub fn failsafes(self) -> &'static [FailsafeParam] {
        match self {
            Profile::Px4 => px4::FAILSAFES,
            Profile::ArduPilot => ardupilot::FAILSAFES,
        }
    }

    /// Telemetry to request with SET_MESSAGE_INTERVAL: (message id, interval µs).
    pub fn stream_requests(self) -> &'static [(u32, u32)] {
        match self {
            Profile::Px4 => px4::STREAMS,
            Profile::ArduPilot => ardupilot::STREAMS,
        }
    }

    /// Streams the autopilot sends unasked faster than the snapshot needs, with the interval
    /// to ask for instead (µs).
    pub fn slowed_streams(self) -> &'static [(u32, u32)] {
        match self {
            Profile::Px4 => px4::SLOWED,
            Profile::ArduPilot => &[],
        }
    }

    /// Streams the autopilot sends unasked that nothing here reads, to switch off.
    pub fn silenced_streams(self) -> &'static [u32] {
        match self {
            Profile::Px4 => px4::SILENCED,
            Profile::ArduPilot => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heartbeat_decides_unless_config_forces_a_match() {
        use MavAutopilot::*;
        let px4 = MAV_AUTOPILOT_PX4;
        let apm = MAV_AUTOPILOT_ARDUPILOTMEGA;
        assert_eq!(
            Profile::resolve(AutopilotKind::Auto, px4).unwrap(),
            Profile::Px4
        );
        assert_eq!(
            Profile::resolve(AutopilotKind::Auto, apm).unwrap(),
            Profile::ArduPilot
        );
        assert!(Profile::resolve(AutopilotKind::Px4, apm).is_err());
        assert!(Profile::resolve(AutopilotKind::Auto, MAV_AUTOPILOT_GENERIC).is_err());
        assert_eq!(
            Profile::resolve(AutopilotKind::Ardupilot, MAV_AUTOPILOT_GENERIC).unwrap(),
            Profile::ArduPilot
        );
    }
}
