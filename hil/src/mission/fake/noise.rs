//! Random inbound traffic for the client's no-panic, bounded-state tests: every mission
//! message with seqs and counts at and past the caps (65535 included), wrong plan types,
//! wrong targets, every ACK result.

use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use crate::mission::{MissionItem, MissionKind};
use mav::{MavFrame, MavMissionResult, MavMissionType};

/// SplitMix64: seeded and dependency-free, so a failing seed replays exactly.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-enough in 0..`n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }

    /// A seq or count at the edges that matter: small, at the caps, past them.
    fn seq(&mut self) -> u16 {
        self.pick(&[0, 1, 2, 3, 9, 45, 46, 69, 70, 9_999, 10_000, u16::MAX])
    }
}

const TYPES: [MavMissionType; 4] = [
    MavMissionType::MAV_MISSION_TYPE_MISSION,
    MavMissionType::MAV_MISSION_TYPE_FENCE,
    MavMissionType::MAV_MISSION_TYPE_RALLY,
    MavMissionType::MAV_MISSION_TYPE_ALL,
];

const RESULTS: [MavMissionResult; 10] = [
    MavMissionResult::MAV_MISSION_ACCEPTED,
    MavMissionResult::MAV_MISSION_ERROR,
    MavMissionResult::MAV_MISSION_UNSUPPORTED_FRAME,
    MavMissionResult::MAV_MISSION_UNSUPPORTED,
    MavMissionResult::MAV_MISSION_NO_SPACE,
    MavMissionResult::MAV_MISSION_INVALID,
    MavMissionResult::MAV_MISSION_INVALID_PARAM5_X,
    MavMissionResult::MAV_MISSION_INVALID_SEQUENCE,
    MavMissionResult::MAV_MISSION_DENIED,
    MavMissionResult::MAV_MISSION_OPERATION_CANCELLED,
];

/// One hostile or confused frame for a client speaking as `us` (1 in 8 for someone else).
#[allow(deprecated)]
pub fn random_message(r: &mut Rng, us: Target) -> MavMessage {
    let to = if r.below(8) == 0 {
        Target {
            system: 9,
            component: 9,
        }
    } else {
        us
    };
    let (target_system, target_component) = (to.system, to.component);
    let mission_type = r.pick(&TYPES);
    match r.below(8) {
        0 => MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
            count: r.seq(),
            target_system,
            target_component,
            mission_type,
            opaque_id: r.below(4) as u32,
        }),
        1 => {
            let kind = MissionKind::from_mav(mission_type).unwrap_or(MissionKind::Mission);
            let mut it = MissionItem::waypoint(
                kind,
                MavFrame::MAV_FRAME_GLOBAL,
                r.next_u64() as i32,
                0,
                f32::NAN,
            );
            it.seq = r.seq();
            let mut wire = it.to_wire(to);
            wire.mission_type = mission_type;
            MavMessage::MISSION_ITEM_INT(wire)
        }
        2 => MavMessage::MISSION_REQUEST_INT(mav::MISSION_REQUEST_INT_DATA {
            seq: r.seq(),
            target_system,
            target_component,
            mission_type,
        }),
        3 => MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
            seq: r.seq(),
            target_system,
            target_component,
            mission_type,
        }),
        4 => MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
            target_system,
            target_component,
            mavtype: r.pick(&RESULTS),
            mission_type,
            opaque_id: r.below(4) as u32,
        }),
        5 => MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
            seq: r.seq(),
            total: r.seq(),
            mission_id: r.below(3) as u32,
            fence_id: r.below(3) as u32,
            rally_points_id: r.below(3) as u32,
            ..Default::default()
        }),
        6 => MavMessage::MISSION_ITEM_REACHED(mav::MISSION_ITEM_REACHED_DATA { seq: r.seq() }),
        _ => MavMessage::MISSION_CLEAR_ALL(mav::MISSION_CLEAR_ALL_DATA {
            target_system,
            target_component,
            mission_type,
        }),
    }
}
