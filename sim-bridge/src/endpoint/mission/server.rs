//! [`MissionServer`]: the stored plans and the protocol that serves them, PX4's or
//! ArduPilot's, behind one sans-IO interface: a message or the time in, [`Output`]s out.

use super::ardupilot::{self, ArduPilotProtocol};
use super::item::Item;
use super::kind::PlanKind;
use super::outbox::{Outbox, Output};
use super::peer::Peer;
use super::plans::Plans;
use super::px4::{self, Px4Protocol};
use crate::endpoint::codec::MavMessage;
use crate::endpoint::options::Autopilot;
use alpha3_core::frames::Geo;
use alpha3_core::mission_file::MissionItem;
use mavlink::MavHeader;

/// What the server needs to know of the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Situation {
    /// Home, once known (ArduPilot serves it as mission item 0).
    pub home: Option<Geo>,
    /// The vehicle is in a mode that flies the mission (PX4: Mission, Takeoff, Land;
    /// ArduPilot: AUTO): MISSION_CURRENT's `mission_mode`.
    pub mission_mode: bool,
    /// How far the vehicle has flown the mission: MISSION_CURRENT's `mission_state`.
    pub progress: Progress,
}

/// Where the vehicle stands in flying the stored mission (MISSION-FACTS §1 MISSION_CURRENT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Progress {
    /// Not started since it was uploaded.
    #[default]
    Idle,
    /// Being flown.
    Active,
    /// Left part-way (PX4: another mode; ArduPilot: AUTO left, the mission stopped).
    Paused,
    /// Its last item is done.
    Complete,
}

#[derive(Debug, Clone)]
enum Protocol {
    Px4(Px4Protocol),
    ArduPilot(ArduPilotProtocol),
}

/// The autopilot's mission, fence and rally plans and the protocol that moves them.
#[derive(Debug, Clone)]
pub struct MissionServer {
    plans: Plans,
    protocol: Protocol,
    out: Outbox,
}

impl MissionServer {
    /// The server of `autopilot` with system id `system_id`, on `links` links.
    pub fn new(autopilot: Autopilot, system_id: u8, links: usize) -> Self {
        let protocol = match autopilot {
            Autopilot::Px4 => Protocol::Px4(Px4Protocol::new(system_id, links)),
            Autopilot::ArduCopter => Protocol::ArduPilot(ArduPilotProtocol::new(system_id)),
        };
        Self {
            plans: Plans::default(),
            protocol,
            out: Outbox::default(),
        }
    }

    /// Whether `message` belongs to the mission protocol (the machine hands those here).
    #[allow(deprecated)] // MISSION_ITEM and MISSION_REQUEST are deprecated, and still spoken
    pub fn takes(message: &MavMessage) -> bool {
        matches!(
            message,
            MavMessage::MISSION_COUNT(_)
                | MavMessage::MISSION_ITEM(_)
                | MavMessage::MISSION_ITEM_INT(_)
                | MavMessage::MISSION_REQUEST(_)
                | MavMessage::MISSION_REQUEST_INT(_)
                | MavMessage::MISSION_REQUEST_LIST(_)
                | MavMessage::MISSION_ACK(_)
                | MavMessage::MISSION_CLEAR_ALL(_)
                | MavMessage::MISSION_SET_CURRENT(_)
        )
    }

    /// A message that came in on `link` at `now_us`; anything but the mission protocol's is
    /// ignored.
    pub fn handle(
        &mut self,
        link: usize,
        header: &MavHeader,
        message: &MavMessage,
        situation: &Situation,
        now_us: u64,
    ) {
        if !Self::takes(message) {
            return;
        }
        let from = Peer::from_header(header);
        match &mut self.protocol {
            Protocol::Px4(p) => p.handle(
                link,
                from,
                message,
                px4::Ctx {
                    plans: &mut self.plans,
                    out: &mut self.out,
                    now_us,
                },
            ),
            Protocol::ArduPilot(p) => p.handle(
                link,
                from,
                message,
                ardupilot::Ctx {
                    plans: &mut self.plans,
                    out: &mut self.out,
                    situation,
                    now_us,
                },
            ),
        }
    }

    /// The time is `now_us`: requests re-sent, silent transfers ended, MISSION_CURRENT (PX4).
    pub fn step(&mut self, situation: &Situation, now_us: u64) {
        match &mut self.protocol {
            Protocol::Px4(p) => p.step(
                situation,
                px4::Ctx {
                    plans: &mut self.plans,
                    out: &mut self.out,
                    now_us,
                },
            ),
            Protocol::ArduPilot(p) => p.step(ardupilot::Ctx {
                plans: &mut self.plans,
                out: &mut self.out,
                situation,
                now_us,
            }),
        }
    }

    /// The next thing for the vehicle to do.
    pub fn poll(&mut self) -> Option<Output> {
        self.out.pop()
    }

    /// When [`Self::step`] next has something to do.
    pub fn next_deadline_us(&self) -> Option<u64> {
        match &self.protocol {
            Protocol::Px4(p) => p.next_deadline_us(),
            Protocol::ArduPilot(p) => p.next_deadline_us(),
        }
    }

    /// MISSION_CURRENT now (PX4 sends it itself at 1 Hz; ArduPilot when streamed or asked).
    pub fn mission_current(&self, situation: &Situation) -> MavMessage {
        match &self.protocol {
            Protocol::Px4(p) => p.mission_current(&self.plans, situation),
            Protocol::ArduPilot(p) => p.mission_current(&self.plans, situation),
        }
    }

    /// The mission's current item as MISSION_CURRENT numbers it (ArduPilot: seq 0 is home).
    pub fn current_seq(&self) -> u16 {
        self.plans.current_seq()
    }

    /// The vehicle moved on to mission item `seq` (PX4 then sends MISSION_CURRENT at once).
    pub fn set_current(&mut self, seq: u16) {
        self.plans.set_current_seq(seq);
        if let Protocol::Px4(p) = &mut self.protocol {
            p.current_moved();
        }
    }

    /// The vehicle reached mission item `seq`: MISSION_ITEM_REACHED to every link (PX4 repeats
    /// it with MISSION_CURRENT, MM:524-557).
    pub fn reached(&mut self, seq: u16) {
        match &mut self.protocol {
            Protocol::Px4(p) => p.reached(seq, &mut self.out),
            Protocol::ArduPilot(_) => self.out.broadcast(super::messages::reached(seq)),
        }
    }

    /// The stored items of `kind` (ArduPilot's mission without its home).
    pub fn items(&self, kind: PlanKind) -> &[Item] {
        self.plans.items(kind)
    }

    /// The stored items of `kind` as `core`'s plan-file items, numbered from 0.
    pub fn file_items(&self, kind: PlanKind) -> Vec<MissionItem> {
        self.plans
            .items(kind)
            .iter()
            .zip(0u16..)
            .map(|(item, seq)| item.to_file(seq, kind))
            .collect()
    }

    /// The plan's id: PX4's CRC32 of its items, 0 when empty (always 0 on ArduPilot).
    pub fn plan_id(&self, kind: PlanKind) -> u32 {
        self.plans.id(kind)
    }
}
