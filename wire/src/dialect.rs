//! The one MAVLink dialect both ends speak, and the ids they name.
//!
//! `ardupilotmega` includes `common` (PX4's dialect), so PX4 and ArduPilot traffic decode into
//! one message type and ArduPilot-only frames are not mistaken for lost ones.

pub use mavlink::dialects::ardupilotmega as mav;

/// Every message either end sends or understands.
pub type MavMessage = mav::MavMessage;

/// `MAV_COMP_ID_AUTOPILOT1`: where PX4 and ArduPilot answer commands.
pub const COMP_AUTOPILOT: u8 = 1;
/// `MAV_COMP_ID_MISSIONPLANNER`: the component a GCS-type heartbeat comes from.
pub const COMP_GCS: u8 = 190;
/// `MAV_COMP_ID_ONBOARD_COMPUTER`.
pub const COMP_ONBOARD: u8 = 191;

/// Message ids named where a number is needed (message-interval requests, stream tables,
/// sequence stats), taken from the dialect's own definitions.
pub mod id {
    use super::mav;
    use mavlink::MessageData;

    pub const HEARTBEAT: u32 = mav::HEARTBEAT_DATA::ID;
    pub const SYS_STATUS: u32 = mav::SYS_STATUS_DATA::ID;
    pub const GPS_RAW_INT: u32 = mav::GPS_RAW_INT_DATA::ID;
    pub const ATTITUDE: u32 = mav::ATTITUDE_DATA::ID;
    pub const LOCAL_POSITION_NED: u32 = mav::LOCAL_POSITION_NED_DATA::ID;
    pub const GLOBAL_POSITION_INT: u32 = mav::GLOBAL_POSITION_INT_DATA::ID;
    pub const VFR_HUD: u32 = mav::VFR_HUD_DATA::ID;
    pub const HIGHRES_IMU: u32 = mav::HIGHRES_IMU_DATA::ID;
    pub const BATTERY_STATUS: u32 = mav::BATTERY_STATUS_DATA::ID;
    pub const AUTOPILOT_VERSION: u32 = mav::AUTOPILOT_VERSION_DATA::ID;
    pub const EKF_STATUS_REPORT: u32 = mav::EKF_STATUS_REPORT_DATA::ID;
    pub const HOME_POSITION: u32 = mav::HOME_POSITION_DATA::ID;
    pub const EXTENDED_SYS_STATE: u32 = mav::EXTENDED_SYS_STATE_DATA::ID;
    pub const ODOMETRY: u32 = mav::ODOMETRY_DATA::ID;
    pub const MISSION_CURRENT: u32 = mav::MISSION_CURRENT_DATA::ID;
}

#[cfg(test)]
mod tests {
    use super::id;

    #[test]
    fn ids_are_the_published_numbers() {
        let published = [
            (id::HEARTBEAT, 0),
            (id::SYS_STATUS, 1),
            (id::GPS_RAW_INT, 24),
            (id::ATTITUDE, 30),
            (id::LOCAL_POSITION_NED, 32),
            (id::GLOBAL_POSITION_INT, 33),
            (id::VFR_HUD, 74),
            (id::HIGHRES_IMU, 105),
            (id::BATTERY_STATUS, 147),
            (id::AUTOPILOT_VERSION, 148),
            (id::EKF_STATUS_REPORT, 193),
            (id::HOME_POSITION, 242),
            (id::EXTENDED_SYS_STATE, 245),
            (id::ODOMETRY, 331),
            (id::MISSION_CURRENT, 42),
        ];
        for (ours, number) in published {
            assert_eq!(ours, number);
        }
    }
}
