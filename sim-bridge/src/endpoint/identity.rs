//! Who the vehicle says it is on the wire.

use super::options::Autopilot;

/// The imitated autopilot and its MAVLink system id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    /// Which autopilot this imitates; ArduCopter's own behaviour is in `copter`.
    pub autopilot: Autopilot,
    pub system_id: u8,
}
