//! ArduPilot Copter (4.7): plain mode numbers in custom_mode, GUIDED for companion control,
//! parameters as C-cast floats under 4.7's names (older names read as fallbacks), and nothing
//! streamed to a new link until asked.

use super::failsafe_param::{FailsafeParam, OffWhen};
use crate::dialect::id;
use alpha3_core::snapshot::FlightMode;

pub use alpha3_core::copter_modes::*;

/// Maps an ArduCopter mode number.
pub fn copter_mode(custom_mode: u32) -> FlightMode {
    match custom_mode {
        STABILIZE => FlightMode::Stabilized,
        ALT_HOLD => FlightMode::AltitudeHold,
        AUTO => FlightMode::Mission,
        GUIDED => FlightMode::Offboard,
        LOITER | BRAKE => FlightMode::Hold,
        POSHOLD => FlightMode::PositionHold,
        RTL | SMART_RTL | AUTO_RTL => FlightMode::Return,
        LAND => FlightMode::Land,
        other => FlightMode::Other(other),
    }
}

/// Stock ArduCopter SITL has every one of these off (`FS_GCS_ENABLE`, battery actions and
/// `FENCE_ENABLE` 0); `FS_THR_ENABLE` is on but cannot trigger (SITL fakes the throttle).
pub(super) const FAILSAFES: &[FailsafeParam] = &[
    FailsafeParam::new("FS_GCS_ENABLE", "GCS (data-link) failsafe", OffWhen::Zero),
    FailsafeParam::new("FS_GCS_TIMEOUT", "GCS failsafe timeout, s", OffWhen::Never),
    FailsafeParam::new(
        "MAV_GCS_SYSID",
        "ground station the GCS failsafe watches",
        OffWhen::Never,
    )
    .formerly("SYSID_MYGCS"),
    FailsafeParam::new("FS_THR_ENABLE", "RC/throttle failsafe", OffWhen::Zero),
    FailsafeParam::new("FS_EKF_ACTION", "EKF failsafe action", OffWhen::Zero),
    FailsafeParam::new("BATT_FS_LOW_ACT", "low-battery action", OffWhen::Zero),
    FailsafeParam::new("BATT_FS_CRT_ACT", "critical-battery action", OffWhen::Zero),
    FailsafeParam::new("FENCE_ENABLE", "geofence", OffWhen::Zero),
    FailsafeParam::new("FENCE_ACTION", "geofence breach action", OffWhen::Zero),
    FailsafeParam::new("FENCE_RADIUS", "geofence radius, m", OffWhen::Never),
    FailsafeParam::new("FENCE_ALT_MAX", "geofence height, m", OffWhen::Never),
    FailsafeParam::new("RTL_ALT", "return altitude, cm", OffWhen::Never),
];

/// ArduPilot streams nothing to a new link unless asked (its `MAV<n>_*` rates are 0 on the
/// companion's link); EKF_STATUS_REPORT tells when it has a position estimate, and
/// MISSION_CURRENT where a mission flown in AUTO is (MISSION_ITEM_REACHED alone says nothing
/// of the item under way).
pub(super) const STREAMS: &[(u32, u32)] = &[
    (id::GLOBAL_POSITION_INT, 100_000),
    (id::ATTITUDE, 100_000),
    (id::SYS_STATUS, 1_000_000),
    (id::BATTERY_STATUS, 1_000_000),
    (id::HOME_POSITION, 2_000_000),
    (id::EXTENDED_SYS_STATE, 500_000),
    (id::GPS_RAW_INT, 500_000),
    (id::EKF_STATUS_REPORT, 1_000_000),
    (id::MISSION_CURRENT, 1_000_000),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copter_modes_map_to_ours() {
        assert_eq!(copter_mode(GUIDED), FlightMode::Offboard);
        assert_eq!(copter_mode(LOITER), FlightMode::Hold);
        assert_eq!(copter_mode(RTL), FlightMode::Return);
        assert_eq!(copter_mode(LAND), FlightMode::Land);
        assert_eq!(copter_mode(13), FlightMode::Other(13));
    }
}
