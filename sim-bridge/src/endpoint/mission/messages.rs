//! The frames the server sends, addressed to one peer.

use super::kind::PlanKind;
use super::peer::Peer;
use crate::endpoint::codec::MavMessage;
use crate::endpoint::codec::mav::{self, MavMissionResult, MavMissionType};

/// MISSION_ACK; `mission_type` raw, since an ACK may answer MAV_MISSION_TYPE_ALL.
pub fn ack(
    to: Peer,
    mission_type: MavMissionType,
    result: MavMissionResult,
    opaque_id: u32,
) -> MavMessage {
    MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
        target_system: to.system,
        target_component: to.component,
        mavtype: result,
        mission_type,
        opaque_id,
    })
}

pub fn count(to: Peer, kind: PlanKind, count: u16, opaque_id: u32) -> MavMessage {
    MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
        count,
        target_system: to.system,
        target_component: to.component,
        mission_type: kind.to_mav(),
        opaque_id,
    })
}

/// The request for item `seq`: MISSION_REQUEST_INT, or the deprecated MISSION_REQUEST (40)
/// when `float` (ArduPilot always; PX4 once its peer sent a float MISSION_ITEM).
#[allow(deprecated)] // MISSION_REQUEST is deprecated, and still what ArduPilot sends
pub fn request(to: Peer, kind: PlanKind, seq: u16, float: bool) -> MavMessage {
    if float {
        MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
            seq,
            target_system: to.system,
            target_component: to.component,
            mission_type: kind.to_mav(),
        })
    } else {
        MavMessage::MISSION_REQUEST_INT(mav::MISSION_REQUEST_INT_DATA {
            seq,
            target_system: to.system,
            target_component: to.component,
            mission_type: kind.to_mav(),
        })
    }
}

/// MISSION_ITEM_REACHED, to every link.
pub fn reached(seq: u16) -> MavMessage {
    MavMessage::MISSION_ITEM_REACHED(mav::MISSION_ITEM_REACHED_DATA { seq })
}
