//! The one MAVLink dialect `hil` speaks, and the ids it uses.
//!
//! `ardupilotmega` includes `common`, so PX4 and ArduPilot traffic decode into one message type
//! and ArduPilot-only frames are not mistaken for lost ones.

pub use mavlink::dialects::ardupilotmega as mav;
pub use mavlink::{MavHeader, MavlinkVersion, Message};

/// Every message `hil` sends or receives.
pub type MavMessage = mav::MavMessage;

/// `MAV_COMP_ID_AUTOPILOT1`: where PX4 and ArduPilot answer commands.
pub const COMP_AUTOPILOT: u8 = 1;
/// `MAV_COMP_ID_MISSIONPLANNER`: the component our GCS-type heartbeat comes from.
pub const COMP_GCS: u8 = 190;
/// `MAV_COMP_ID_ONBOARD_COMPUTER`.
pub const COMP_ONBOARD: u8 = 191;

/// Message ids named where a number is needed (message-interval requests, sequence stats).
pub mod id {
    pub const HEARTBEAT: u32 = 0;
    pub const SYS_STATUS: u32 = 1;
    pub const GPS_RAW_INT: u32 = 24;
    pub const ATTITUDE: u32 = 30;
    pub const LOCAL_POSITION_NED: u32 = 32;
    pub const GLOBAL_POSITION_INT: u32 = 33;
    pub const AUTOPILOT_VERSION: u32 = 148;
    pub const BATTERY_STATUS: u32 = 147;
    pub const EKF_STATUS_REPORT: u32 = 193;
    pub const EXTENDED_SYS_STATE: u32 = 245;
    pub const HOME_POSITION: u32 = 242;
}

/// The 16-byte, NUL-padded name field of the PARAM messages as text.
pub fn param_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}
