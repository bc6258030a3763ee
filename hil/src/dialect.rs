//! The MAVLink dialect `hil` speaks and the ids it names (`alpha3_wire::dialect`, shared with
//! the world's endpoint), with the `mavlink` types it uses beside them.

pub use alpha3_wire::dialect::{COMP_AUTOPILOT, COMP_GCS, COMP_ONBOARD, MavMessage, id, mav};
pub use mavlink::{MavHeader, MavlinkVersion, Message};

/// The 16-byte, NUL-padded name field of the PARAM messages as text.
pub fn param_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}
