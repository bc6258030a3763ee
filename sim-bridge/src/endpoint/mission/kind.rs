//! Which of the three plans a message is about: its `mission_type` (MAV_MISSION_TYPE 0, 1, 2).

use crate::endpoint::codec::mav::MavMissionType;

/// A plan the autopilot stores. `ALL` (255) is no plan: only MISSION_CLEAR_ALL names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanKind {
    Mission,
    Fence,
    Rally,
}

impl PlanKind {
    pub const ALL: [PlanKind; 3] = [PlanKind::Mission, PlanKind::Fence, PlanKind::Rally];

    /// `None` for MAV_MISSION_TYPE_ALL.
    pub fn from_mav(t: MavMissionType) -> Option<Self> {
        match t {
            MavMissionType::MAV_MISSION_TYPE_MISSION => Some(PlanKind::Mission),
            MavMissionType::MAV_MISSION_TYPE_FENCE => Some(PlanKind::Fence),
            MavMissionType::MAV_MISSION_TYPE_RALLY => Some(PlanKind::Rally),
            MavMissionType::MAV_MISSION_TYPE_ALL => None,
        }
    }

    pub fn to_mav(self) -> MavMissionType {
        match self {
            PlanKind::Mission => MavMissionType::MAV_MISSION_TYPE_MISSION,
            PlanKind::Fence => MavMissionType::MAV_MISSION_TYPE_FENCE,
            PlanKind::Rally => MavMissionType::MAV_MISSION_TYPE_RALLY,
        }
    }

    /// 0, 1, 2: an index into per-plan tables.
    pub(super) fn index(self) -> usize {
        match self {
            PlanKind::Mission => 0,
            PlanKind::Fence => 1,
            PlanKind::Rally => 2,
        }
    }

    /// The word ArduPilot's texts use ("Mission upload timeout").
    pub fn title(self) -> &'static str {
        match self {
            PlanKind::Mission => "Mission",
            PlanKind::Fence => "Fence",
            PlanKind::Rally => "Rally",
        }
    }
}
