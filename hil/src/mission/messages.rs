//! The frames the client sends, and whether an inbound frame is addressed to it.

use super::kind::MissionKind;
use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use mav::MavMissionResult;

/// Who talks: the autopilot the plans live on, and this client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ends {
    pub(super) autopilot: Target,
    pub(super) us: Target,
}

impl Ends {
    /// A frame's target fields name us (0 = broadcast, as ArduPilot fills some of them).
    pub(super) fn for_us(&self, system: u8, component: u8) -> bool {
        (system == 0 || system == self.us.system)
            && (component == 0 || component == self.us.component)
    }

    pub(super) fn request_list(&self, kind: MissionKind) -> MavMessage {
        MavMessage::MISSION_REQUEST_LIST(mav::MISSION_REQUEST_LIST_DATA {
            target_system: self.autopilot.system,
            target_component: self.autopilot.component,
            mission_type: kind.to_mav(),
        })
    }

    pub(super) fn count(&self, kind: MissionKind, count: u16) -> MavMessage {
        MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
            count,
            target_system: self.autopilot.system,
            target_component: self.autopilot.component,
            mission_type: kind.to_mav(),
            opaque_id: 0,
        })
    }

    pub(super) fn request_int(&self, kind: MissionKind, seq: u16) -> MavMessage {
        MavMessage::MISSION_REQUEST_INT(mav::MISSION_REQUEST_INT_DATA {
            seq,
            target_system: self.autopilot.system,
            target_component: self.autopilot.component,
            mission_type: kind.to_mav(),
        })
    }

    pub(super) fn ack(&self, kind: MissionKind, result: MavMissionResult) -> MavMessage {
        MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
            target_system: self.autopilot.system,
            target_component: self.autopilot.component,
            mavtype: result,
            mission_type: kind.to_mav(),
            opaque_id: 0,
        })
    }

    pub(super) fn clear_all(&self, kind: MissionKind) -> MavMessage {
        MavMessage::MISSION_CLEAR_ALL(mav::MISSION_CLEAR_ALL_DATA {
            target_system: self.autopilot.system,
            target_component: self.autopilot.component,
            mission_type: kind.to_mav(),
        })
    }
}
