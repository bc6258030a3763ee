//! Which plan a transfer is about: the `mission_type` of every mission-protocol message.

use crate::dialect::mav::MavMissionType;

/// The three plans an autopilot stores (MAV_MISSION_TYPE 0, 1, 2). `ALL` (255) is left out on
/// purpose: every transfer here names one plan, so its ACK can be matched to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MissionKind {
    Mission,
    Fence,
    Rally,
}

impl MissionKind {
    pub const ALL: [MissionKind; 3] =
        [MissionKind::Mission, MissionKind::Fence, MissionKind::Rally];

    /// The most items a plan of this kind may hold here: the larger of PX4's and ArduPilot's
    /// capacity, so neither autopilot's real plan is refused, while a hostile MISSION_COUNT
    /// (65535) cannot make us hold more than this.
    ///
    /// PX4 SITL: mission 10,000, fence 64, rally 32 (dataman.h:71-75, Kconfig, sitl board);
    /// ArduCopter SITL: ≈650 mission items incl. home, ≤70 fence items, 46 rally points
    /// (StorageManager arithmetic, unverified on a wire). See `shared/MISSION-FACTS.md`.
    pub fn cap(self) -> u16 {
        match self {
            MissionKind::Mission => 10_000,
            MissionKind::Fence => 70,
            MissionKind::Rally => 46,
        }
    }

    pub fn to_mav(self) -> MavMissionType {
        match self {
            MissionKind::Mission => MavMissionType::MAV_MISSION_TYPE_MISSION,
            MissionKind::Fence => MavMissionType::MAV_MISSION_TYPE_FENCE,
            MissionKind::Rally => MavMissionType::MAV_MISSION_TYPE_RALLY,
        }
    }

    /// `None` for MAV_MISSION_TYPE_ALL, which no single transfer answers to.
    pub fn from_mav(t: MavMissionType) -> Option<MissionKind> {
        match t {
            MavMissionType::MAV_MISSION_TYPE_MISSION => Some(MissionKind::Mission),
            MavMissionType::MAV_MISSION_TYPE_FENCE => Some(MissionKind::Fence),
            MavMissionType::MAV_MISSION_TYPE_RALLY => Some(MissionKind::Rally),
            MavMissionType::MAV_MISSION_TYPE_ALL => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MissionKind::Mission => "mission",
            MissionKind::Fence => "fence",
            MissionKind::Rally => "rally",
        }
    }

    /// 0, 1, 2: an index for per-kind tables.
    pub fn index(self) -> usize {
        match self {
            MissionKind::Mission => 0,
            MissionKind::Fence => 1,
            MissionKind::Rally => 2,
        }
    }
}

impl std::fmt::Display for MissionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
