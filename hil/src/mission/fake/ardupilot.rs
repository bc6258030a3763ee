//! ArduPilot's mission service (`MissionItemProtocol*.cpp`, keys MIP/MIPW/MIPF/MIPR/APM/GCSC
//! in MISSION-FACTS.md), ArduCopter 4.7.

use super::{FakeAutopilot, ack, addressed, count};
use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use crate::mission::{MissionItem, MissionKind};
use mav::{MavFrame, MavMissionResult};
use std::collections::VecDeque;

/// ArduPilot re-sends a request every 1000 ms (MIP:406-411) and cancels an upload after 8 s
/// without an item, with ACK 15 (MIPh:95, MIP:389-405).
const RESEND_US: u64 = 1_000_000;
const GIVE_UP_US: u64 = 8_000_000;

#[derive(Debug, Clone)]
struct Receiving {
    kind: MissionKind,
    count: u16,
    next: u16,
    /// The fence is buffered and written at the end (MIPF:145-199); mission and rally live.
    fence: Vec<MissionItem>,
    last_item_us: u64,
    resend_us: u64,
}

/// What the fake did, for the tests to check.
#[derive(Debug, Clone, Default)]
pub struct ArduPilotStats {
    /// MISSION_REQUEST (40) sent: ArduPilot never sends 51 (MIP:357-377).
    pub requests_sent: u32,
    pub acks_sent: Vec<MavMissionResult>,
    /// Final ACKs from the GCS it ignored (GCSC:4685-4687).
    pub gcs_acks_ignored: u32,
}

#[derive(Debug, Clone)]
pub struct FakeArduPilot {
    me: Target,
    gcs: Target,
    /// plans[Mission][0] is home (APM:529-533).
    plans: [Vec<MissionItem>; 3],
    receiving: Option<Receiving>,
    out: VecDeque<MavMessage>,
    /// Armed with the mission running: MISSION_CLEAR_ALL of the mission is refused with 1.
    pub mission_running: bool,
    pub stats: ArduPilotStats,
}

impl FakeArduPilot {
    /// A copter whose home is at (`lat`, `lon`) × 1e7, `alt` m AMSL.
    pub fn new(me: Target, gcs: Target, home: (i32, i32, f32)) -> Self {
        let home = MissionItem::waypoint(
            MissionKind::Mission,
            MavFrame::MAV_FRAME_GLOBAL,
            home.0,
            home.1,
            home.2,
        );
        Self {
            me,
            gcs,
            plans: [vec![home], Vec::new(), Vec::new()],
            receiving: None,
            out: VecDeque::new(),
            mission_running: false,
            stats: ArduPilotStats::default(),
        }
    }

    /// Stores `items` as the plan (for the mission: after home, renumbered from 1).
    pub fn with_plan(mut self, kind: MissionKind, items: Vec<MissionItem>) -> Self {
        let plan = &mut self.plans[kind.index()];
        plan.truncate(usize::from(kind == MissionKind::Mission));
        plan.extend(items);
        for (seq, item) in (0u16..).zip(plan.iter_mut()) {
            item.seq = seq;
        }
        self
    }

    /// SITL copter capacity, home included: ≈650 mission items, 70 fence, 46 rally
    /// (StorageManager arithmetic, unverified).
    pub fn cap(kind: MissionKind) -> u16 {
        match kind {
            MissionKind::Mission => 650,
            MissionKind::Fence => 70,
            MissionKind::Rally => 46,
        }
    }

    /// MISSION_CURRENT: its dialect has no plan ids, they decode as 0 (AX:4602-4609).
    pub fn mission_current(&self) -> MavMessage {
        let n = self.plans[MissionKind::Mission.index()].len();
        MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
            seq: 1,
            total: u16::try_from(n.saturating_sub(1)).unwrap_or(u16::MAX),
            ..Default::default()
        })
    }

    fn send_ack(&mut self, kind: MissionKind, result: MavMissionResult) {
        self.stats.acks_sent.push(result);
        self.out.push_back(ack(self.gcs, kind.to_mav(), result, 0));
    }

    #[allow(deprecated)]
    fn request(&mut self, kind: MissionKind, seq: u16) {
        self.stats.requests_sent += 1;
        self.out
            .push_back(MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
                seq,
                target_system: self.gcs.system,
                target_component: self.gcs.component,
                mission_type: kind.to_mav(),
            }));
    }

    /// Stateless random access to the stored plan (MIP:142-180): a bad seq gets the COUNT
    /// again and ACK 13 (MIPW:67-72).
    fn serve(&mut self, kind: MissionKind, seq: u16) {
        let plan = &self.plans[kind.index()];
        match plan.get(usize::from(seq)) {
            Some(item) => self
                .out
                .push_back(MavMessage::MISSION_ITEM_INT(item.to_wire(self.gcs))),
            None => {
                self.out.push_back(count(self.gcs, kind, plan.len(), 0));
                self.send_ack(kind, MavMissionResult::MAV_MISSION_INVALID_SEQUENCE);
            }
        }
    }

    fn take_item(&mut self, d: &mav::MISSION_ITEM_INT_DATA, kind: MissionKind, now_us: u64) {
        let Some(rx) = self.receiving.as_mut().filter(|r| r.kind == kind) else {
            // Not receiving: ACK 1 (GCSC:1017-1019).
            self.send_ack(kind, MavMissionResult::MAV_MISSION_ERROR);
            return;
        };
        // Out of sequence: ACK 13, and the transfer goes on (MIP:272-275).
        if d.seq != rx.next {
            self.send_ack(kind, MavMissionResult::MAV_MISSION_INVALID_SEQUENCE);
            return;
        }
        // Latitude out of range: ACK 10, earlier items stay stored (APM:1466-1474).
        if d.x.unsigned_abs() > 900_000_000 {
            self.receiving = None;
            self.send_ack(kind, MavMissionResult::MAV_MISSION_INVALID_PARAM5_X);
            return;
        }
        let Some(item) = MissionItem::from_wire(d) else {
            return;
        };
        rx.last_item_us = now_us;
        rx.next += 1;
        let (next, done) = (rx.next, rx.next >= rx.count);
        let plan = &mut self.plans[kind.index()];
        match kind {
            MissionKind::Fence => rx.fence.push(item),
            // Seq 0 of the mission is home: accepted, not written (APM:529-533).
            MissionKind::Mission if d.seq == 0 => {}
            _ => {
                let seq = usize::from(d.seq);
                if seq < plan.len() {
                    plan[seq] = item;
                } else {
                    plan.push(item);
                }
            }
        }
        if done {
            if let Some(rx) = self.receiving.take()
                && kind == MissionKind::Fence
            {
                self.plans[kind.index()] = rx.fence;
            }
            self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED);
        } else {
            if let Some(rx) = self.receiving.as_mut() {
                rx.resend_us = now_us + RESEND_US;
            }
            self.request(kind, next);
        }
    }
}

impl FakeAutopilot for FakeArduPilot {
    fn handle(&mut self, message: &MavMessage, now_us: u64) {
        let Some(kind) = addressed(message, self.me) else {
            return;
        };
        match message {
            MavMessage::MISSION_REQUEST_LIST(_) => {
                // While receiving: ACK 14 DENIED (MIP:125-130).
                if self.receiving.is_some() {
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_DENIED);
                    return;
                }
                let n = self.plans[kind.index()].len();
                self.out.push_back(count(self.gcs, kind, n, 0));
            }
            MavMessage::MISSION_REQUEST_INT(r) => self.serve(kind, r.seq),
            MavMessage::MISSION_ACK(_) => self.stats.gcs_acks_ignored += 1,
            MavMessage::MISSION_COUNT(c) => {
                if c.count > Self::cap(kind) {
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_NO_SPACE);
                    return;
                }
                // COUNT truncates the live plan to `count` (MIP:104, MIPW:128-132).
                let keep = usize::from(c.count).max(usize::from(kind == MissionKind::Mission));
                if kind != MissionKind::Fence {
                    self.plans[kind.index()].truncate(keep);
                }
                if c.count == 0 {
                    self.receiving = None;
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED);
                    return;
                }
                self.receiving = Some(Receiving {
                    kind,
                    count: c.count,
                    next: 0,
                    fence: Vec::new(),
                    last_item_us: now_us,
                    resend_us: now_us + RESEND_US,
                });
                self.request(kind, 0);
            }
            MavMessage::MISSION_ITEM_INT(d) => self.take_item(d, kind, now_us),
            MavMessage::MISSION_CLEAR_ALL(_) => {
                // Refused while armed and flying the mission (APM:278-283).
                if kind == MissionKind::Mission && self.mission_running {
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_ERROR);
                    return;
                }
                self.receiving = None;
                self.plans[kind.index()].truncate(usize::from(kind == MissionKind::Mission));
                self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED);
            }
            _ => {}
        }
    }

    fn poll_transmit(&mut self) -> Option<MavMessage> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<u64> {
        let rx = self.receiving.as_ref()?;
        Some(rx.resend_us.min(rx.last_item_us + GIVE_UP_US))
    }

    fn handle_timeout(&mut self, now_us: u64) {
        let Some(rx) = self.receiving.as_mut() else {
            return;
        };
        let (kind, next) = (rx.kind, rx.next);
        if now_us >= rx.last_item_us + GIVE_UP_US {
            self.receiving = None;
            self.send_ack(kind, MavMissionResult::MAV_MISSION_OPERATION_CANCELLED);
        } else if now_us >= rx.resend_us {
            rx.resend_us = now_us + RESEND_US;
            self.request(kind, next);
        }
    }

    fn plan(&self, kind: MissionKind) -> &[MissionItem] {
        &self.plans[kind.index()]
    }
}
