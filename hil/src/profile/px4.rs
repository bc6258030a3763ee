//! PX4: custom_mode = main << 16 | sub << 24, INT32 parameters byte-wise, its failsafes.

use super::failsafe_param::{FailsafeParam, OffWhen};
use crate::dialect::id;
use alpha3_core::snapshot::FlightMode;

pub use alpha3_core::px4_modes::*;

/// Packs PX4's main and sub mode into a HEARTBEAT custom_mode.
pub const fn px4_custom_mode(main: u8, sub: u8) -> u32 {
    ((main as u32) << 16) | ((sub as u32) << 24)
}

/// Unpacks a PX4 custom_mode.
pub fn px4_mode(custom_mode: u32) -> FlightMode {
    let main = ((custom_mode >> 16) & 0xff) as u8;
    let sub = ((custom_mode >> 24) & 0xff) as u8;
    match (main, sub) {
        (MAIN_MANUAL, _) => FlightMode::Manual,
        (MAIN_STABILIZED, _) => FlightMode::Stabilized,
        (MAIN_ALTCTL, _) => FlightMode::AltitudeHold,
        (MAIN_POSCTL, _) => FlightMode::PositionHold,
        (MAIN_OFFBOARD, _) => FlightMode::Offboard,
        (MAIN_AUTO, SUB_TAKEOFF) => FlightMode::Takeoff,
        (MAIN_AUTO, SUB_LOITER | SUB_READY) => FlightMode::Hold,
        (MAIN_AUTO, SUB_MISSION) => FlightMode::Mission,
        (MAIN_AUTO, SUB_RTL) => FlightMode::Return,
        (MAIN_AUTO, SUB_LAND | SUB_PRECLAND) => FlightMode::Land,
        _ => FlightMode::Other(custom_mode),
    }
}

pub(super) const FAILSAFES: &[FailsafeParam] = &[
    FailsafeParam::new("NAV_DLL_ACT", "data-link loss action", OffWhen::Zero),
    FailsafeParam::new("NAV_RCL_ACT", "RC loss action", OffWhen::Zero),
    FailsafeParam::new("COM_LOW_BAT_ACT", "low-battery action", OffWhen::Zero),
    FailsafeParam::new("COM_OBL_RC_ACT", "offboard-loss action", OffWhen::Never),
    FailsafeParam::new("GF_ACTION", "geofence breach action", OffWhen::AtMost(1)),
    FailsafeParam::new("GF_MAX_HOR_DIST", "geofence radius, m", OffWhen::Zero),
    FailsafeParam::new("GF_MAX_VER_DIST", "geofence height, m", OffWhen::Zero),
    FailsafeParam::new("RTL_RETURN_ALT", "return altitude, m", OffWhen::Never),
];

/// PX4's onboard link already streams position and attitude (faster than the snapshot needs:
/// ~300 messages/s in real time, five times that at `PX4_SIM_SPEED_FACTOR=5`; see
/// [`SLOWED`] and [`SILENCED`]); ask for what it may not send.
pub(super) const STREAMS: &[(u32, u32)] = &[
    (id::HOME_POSITION, 2_000_000),
    (id::EXTENDED_SYS_STATE, 200_000),
    (id::GPS_RAW_INT, 500_000),
    (id::BATTERY_STATUS, 1_000_000),
];

/// The onboard link's position and attitude streams, slowed to what the gate and the twin use
/// (PX4 sends them at 100, 50 and 30 Hz).
pub(super) const SLOWED: &[(u32, u32)] = &[
    (id::ATTITUDE, 50_000),
    (id::GLOBAL_POSITION_INT, 50_000),
    (id::LOCAL_POSITION_NED, 200_000),
];

/// The onboard link's other high-rate streams, which nothing here reads: switched off on our
/// link only (PX4 keeps a stream set per MAVLink instance). Measured at 5× speed, they were
/// 60 % of 1,300 messages/s, and 15 % of all frames (COMMAND_ACKs among them) were lost.
pub(super) const SILENCED: &[u32] = &[
    31,  // ATTITUDE_QUATERNION
    36,  // SERVO_OUTPUT_RAW
    74,  // VFR_HUD
    83,  // ATTITUDE_TARGET
    85,  // POSITION_TARGET_LOCAL_NED
    87,  // POSITION_TARGET_GLOBAL_INT
    105, // HIGHRES_IMU
    132, // DISTANCE_SENSOR
    141, // ALTITUDE
    331, // ODOMETRY
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_through_custom_mode() {
        // Hold as PX4 reports it: AUTO (4) / LOITER (3).
        assert_eq!(px4_custom_mode(4, 3), 0x0304_0000);
        for (main, sub, mode) in [
            (MAIN_AUTO, SUB_LOITER, FlightMode::Hold),
            (MAIN_AUTO, SUB_TAKEOFF, FlightMode::Takeoff),
            (MAIN_AUTO, SUB_RTL, FlightMode::Return),
            (MAIN_AUTO, SUB_LAND, FlightMode::Land),
            (MAIN_AUTO, SUB_MISSION, FlightMode::Mission),
            (MAIN_OFFBOARD, 0, FlightMode::Offboard),
            (MAIN_POSCTL, 0, FlightMode::PositionHold),
            (MAIN_ALTCTL, 0, FlightMode::AltitudeHold),
            (MAIN_MANUAL, 0, FlightMode::Manual),
            (MAIN_STABILIZED, 0, FlightMode::Stabilized),
        ] {
            assert_eq!(px4_mode(px4_custom_mode(main, sub)), mode, "{main}/{sub}");
        }
        assert_eq!(
            px4_mode(px4_custom_mode(MAIN_ACRO, 0)),
            FlightMode::Other(0x0005_0000)
        );
    }
}
