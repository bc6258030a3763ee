//! Scripted autopilots for the mission protocol's tests (feature `test-support`): the server
//! side of PX4 and ArduPilot as `shared/MISSION-FACTS.md` describes them, each rule with its
//! source key, and a lossy link that runs a [`MissionClient`](super::MissionClient) against
//! one. Not a model of either firmware beyond the mission service.

mod ardupilot;
mod link;
mod noise;
mod px4;
mod sample;

pub use ardupilot::FakeArduPilot;
pub use link::{Dir, Link};
pub use noise::{Rng, random_message};
pub use px4::FakePx4;
pub use sample::{ZURICH_HOME, sample_plan};

use super::item::MissionItem;
use super::kind::MissionKind;
use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use mav::{MavMissionResult, MavMissionType};

/// The autopilot side, driven like the client: messages and time in, frames out.
pub trait FakeAutopilot {
    fn handle(&mut self, message: &MavMessage, now_us: u64);
    fn poll_transmit(&mut self) -> Option<MavMessage>;
    fn poll_timeout(&self) -> Option<u64>;
    fn handle_timeout(&mut self, now_us: u64);
    /// The plan of `kind` as stored (ArduPilot's mission with its home at 0).
    fn plan(&self, kind: MissionKind) -> &[MissionItem];
}

/// A mission-protocol message's `mission_type`, when it names one plan and is for `me`.
#[allow(deprecated)]
fn addressed(message: &MavMessage, me: Target) -> Option<MissionKind> {
    let (t, system, component) = match message {
        MavMessage::MISSION_REQUEST_LIST(m) => {
            (m.mission_type, m.target_system, m.target_component)
        }
        MavMessage::MISSION_REQUEST_INT(m) => (m.mission_type, m.target_system, m.target_component),
        MavMessage::MISSION_REQUEST(m) => (m.mission_type, m.target_system, m.target_component),
        MavMessage::MISSION_COUNT(m) => (m.mission_type, m.target_system, m.target_component),
        MavMessage::MISSION_ITEM_INT(m) => (m.mission_type, m.target_system, m.target_component),
        MavMessage::MISSION_ACK(m) => (m.mission_type, m.target_system, m.target_component),
        MavMessage::MISSION_CLEAR_ALL(m) => (m.mission_type, m.target_system, m.target_component),
        _ => return None,
    };
    if system != me.system || component != me.component {
        return None;
    }
    MissionKind::from_mav(t)
}

fn count(to: Target, kind: MissionKind, count: usize, opaque_id: u32) -> MavMessage {
    MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
        count: u16::try_from(count).unwrap_or(u16::MAX),
        target_system: to.system,
        target_component: to.component,
        mission_type: kind.to_mav(),
        opaque_id,
    })
}

fn ack(to: Target, t: MavMissionType, result: MavMissionResult, opaque_id: u32) -> MavMessage {
    MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
        target_system: to.system,
        target_component: to.component,
        mavtype: result,
        mission_type: t,
        opaque_id,
    })
}

/// A stand-in for PX4's CRC32 over the items (MM:1896-1915): nonzero for a plan, 0 when
/// empty, and equal for equal plans.
pub fn plan_id(items: &[MissionItem]) -> u32 {
    if items.is_empty() {
        return 0;
    }
    let mut h: u32 = 0x811c_9dc5;
    for i in items {
        for v in [
            i.command as u32,
            i.frame as u32,
            i.x as u32,
            i.y as u32,
            i.z.to_bits(),
            i.param1.to_bits(),
        ] {
            h = (h ^ v).wrapping_mul(0x0100_0193);
        }
    }
    h | 1
}
