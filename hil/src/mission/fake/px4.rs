//! PX4's mission service (`mavlink_mission.cpp`, keys MM/MMh in MISSION-FACTS.md).

use super::{FakeAutopilot, ack, addressed, count, plan_id};
use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use crate::mission::{MissionItem, MissionKind};
use mav::{MavCmd, MavMissionResult};
use std::collections::VecDeque;

/// PX4 re-sends a request every 250 ms (MMh:81) and drops a transfer after 5 s without a
/// message, without an ACK (MMh:80, MM:567-579).
const RESEND_US: u64 = 250_000;
const GIVE_UP_US: u64 = 5_000_000;

#[derive(Debug, Clone)]
enum State {
    Idle,
    /// Serving a download: the next seq it expects to be asked for.
    Sending {
        kind: MissionKind,
        next: u16,
        last_rx_us: u64,
    },
    /// Taking an upload into the inactive buffer (MM:970-991).
    Receiving {
        kind: MissionKind,
        count: u16,
        buffer: Vec<MissionItem>,
        last_rx_us: u64,
        resend_us: u64,
    },
}

/// What the fake did, for the tests to check.
#[derive(Debug, Clone, Default)]
pub struct Px4Stats {
    pub requests_int_sent: u32,
    pub acks_sent: Vec<MavMissionResult>,
    /// Downloads the GCS's final ACK closed (MM:641-655).
    pub downloads_closed_by_ack: u32,
    /// Transfers it dropped silently after 5 s.
    pub silent_give_ups: u32,
}

#[derive(Debug, Clone)]
pub struct FakePx4 {
    me: Target,
    gcs: Target,
    plans: [Vec<MissionItem>; 3],
    state: State,
    out: VecDeque<MavMessage>,
    /// The last completed upload (kind, count, id), to re-ACK a duplicated last item.
    last_upload: Option<(MissionKind, u16, u32)>,
    /// A command it refuses with ACK 3 UNSUPPORTED (PX4 has no LOITER_TURNS, MM:1541-1545).
    pub unsupported: Option<MavCmd>,
    pub stats: Px4Stats,
}

impl FakePx4 {
    pub fn new(me: Target, gcs: Target) -> Self {
        Self {
            me,
            gcs,
            plans: Default::default(),
            state: State::Idle,
            out: VecDeque::new(),
            last_upload: None,
            unsupported: Some(MavCmd::MAV_CMD_NAV_LOITER_TURNS),
            stats: Px4Stats::default(),
        }
    }

    pub fn with_plan(mut self, kind: MissionKind, items: Vec<MissionItem>) -> Self {
        self.plans[kind.index()] = items;
        self
    }

    /// Capacity in PX4 SITL: mission 10,000, fence 64, rally 32 (dataman.h:71-75).
    pub fn cap(kind: MissionKind) -> u16 {
        match kind {
            MissionKind::Mission => 10_000,
            MissionKind::Fence => 64,
            MissionKind::Rally => 32,
        }
    }

    /// MISSION_CURRENT as PX4 sends it at 1 Hz: the plans' ids (MM:279-295).
    pub fn mission_current(&self) -> MavMessage {
        let mission = &self.plans[MissionKind::Mission.index()];
        MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
            seq: 0,
            total: u16::try_from(mission.len())
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or(u16::MAX),
            mission_id: plan_id(mission),
            fence_id: plan_id(&self.plans[MissionKind::Fence.index()]),
            rally_points_id: plan_id(&self.plans[MissionKind::Rally.index()]),
            ..Default::default()
        })
    }

    /// Someone else (QGC on another link) replaced a plan.
    pub fn replace_plan(&mut self, kind: MissionKind, items: Vec<MissionItem>) {
        self.plans[kind.index()] = items;
    }

    fn send_ack(&mut self, kind: MissionKind, result: MavMissionResult, opaque_id: u32) {
        self.stats.acks_sent.push(result);
        self.out
            .push_back(ack(self.gcs, kind.to_mav(), result, opaque_id));
    }

    fn request(&mut self, kind: MissionKind, seq: u16) {
        self.stats.requests_int_sent += 1;
        self.out.push_back(MavMessage::MISSION_REQUEST_INT(
            mav::MISSION_REQUEST_INT_DATA {
                seq,
                target_system: self.gcs.system,
                target_component: self.gcs.component,
                mission_type: kind.to_mav(),
            },
        ));
    }

    fn take_item(&mut self, d: &mav::MISSION_ITEM_INT_DATA, kind: MissionKind, now_us: u64) {
        let State::Receiving {
            kind: k,
            count,
            buffer,
            last_rx_us,
            resend_us,
        } = &mut self.state
        else {
            // A duplicated last item after the ACK: ACK 0 again, same id (MM:1096-1100).
            if let Some((k, n, id)) = self.last_upload
                && k == kind
                && d.seq.checked_add(1) == Some(n)
            {
                self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED, id);
            }
            return;
        };
        if *k != kind {
            return;
        }
        *last_rx_us = now_us;
        // Out of sequence: ignored, the request is resent (MM:1089-1094).
        if usize::from(d.seq) != buffer.len() {
            return;
        }
        if Some(d.command) == self.unsupported {
            self.state = State::Idle;
            self.send_ack(kind, MavMissionResult::MAV_MISSION_UNSUPPORTED, 0);
            return;
        }
        let Some(item) = MissionItem::from_wire(d) else {
            return;
        };
        buffer.push(item);
        if buffer.len() < usize::from(*count) {
            let next = u16::try_from(buffer.len()).unwrap_or(u16::MAX);
            *resend_us = now_us + RESEND_US;
            self.request(kind, next);
            return;
        }
        // Last item: swap buffers, ACK with the plan's id (MM:1263-1303).
        let done = std::mem::take(buffer);
        let n = *count;
        self.state = State::Idle;
        let id = plan_id(&done);
        self.plans[kind.index()] = done;
        self.last_upload = Some((kind, n, id));
        self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED, id);
    }
}

impl FakeAutopilot for FakePx4 {
    fn handle(&mut self, message: &MavMessage, now_us: u64) {
        let Some(kind) = addressed(message, self.me) else {
            return;
        };
        match message {
            MavMessage::MISSION_REQUEST_LIST(_) => {
                // While uploading: STATUSTEXT only, no ACK (MM:774-780).
                if matches!(self.state, State::Receiving { .. }) {
                    return;
                }
                self.state = State::Sending {
                    kind,
                    next: 0,
                    last_rx_us: now_us,
                };
                let items = &self.plans[kind.index()];
                self.out
                    .push_back(count(self.gcs, kind, items.len(), plan_id(items)));
            }
            MavMessage::MISSION_REQUEST_INT(r) => {
                // Requests without a REQUEST_LIST are ignored (MM:874-878).
                let State::Sending {
                    kind: k,
                    next,
                    last_rx_us,
                } = &mut self.state
                else {
                    return;
                };
                if *k != kind {
                    return;
                }
                // Strictly sequential: the next one or a repeat of the previous (MM:826-856).
                if r.seq != *next && r.seq.checked_add(1) != Some(*next) {
                    self.state = State::Idle;
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_ERROR, 0);
                    return;
                }
                *last_rx_us = now_us;
                *next = r.seq.saturating_add(1);
                if let Some(item) = self.plans[kind.index()].get(usize::from(r.seq)) {
                    self.out
                        .push_back(MavMessage::MISSION_ITEM_INT(item.to_wire(self.gcs)));
                }
            }
            MavMessage::MISSION_ACK(_) => {
                if matches!(self.state, State::Sending { kind: k, .. } if k == kind) {
                    self.state = State::Idle;
                    self.stats.downloads_closed_by_ack += 1;
                }
            }
            MavMessage::MISSION_COUNT(c) => {
                if c.count > Self::cap(kind) {
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_NO_SPACE, 0);
                    return;
                }
                if c.count == 0 {
                    self.plans[kind.index()].clear();
                    self.state = State::Idle;
                    self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED, 0);
                    return;
                }
                self.state = State::Receiving {
                    kind,
                    count: c.count,
                    buffer: Vec::new(),
                    last_rx_us: now_us,
                    resend_us: now_us + RESEND_US,
                };
                self.request(kind, 0);
            }
            MavMessage::MISSION_ITEM_INT(d) => self.take_item(d, kind, now_us),
            MavMessage::MISSION_CLEAR_ALL(_) => {
                // Busy: "WPM: IGN CLEAR CMD: Busy", no ACK (MM:1328-1393).
                if !matches!(self.state, State::Idle) {
                    return;
                }
                self.plans[kind.index()].clear();
                self.send_ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED, 0);
            }
            _ => {}
        }
    }

    fn poll_transmit(&mut self) -> Option<MavMessage> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<u64> {
        match &self.state {
            State::Idle => None,
            State::Sending { last_rx_us, .. } => Some(last_rx_us + GIVE_UP_US),
            State::Receiving {
                last_rx_us,
                resend_us,
                ..
            } => Some((*resend_us).min(last_rx_us + GIVE_UP_US)),
        }
    }

    fn handle_timeout(&mut self, now_us: u64) {
        let (last, resend) = match &self.state {
            State::Idle => return,
            State::Sending { last_rx_us, .. } => (*last_rx_us, None),
            State::Receiving {
                kind,
                buffer,
                last_rx_us,
                resend_us,
                ..
            } => {
                let seq = u16::try_from(buffer.len()).unwrap_or(u16::MAX);
                (*last_rx_us, (now_us >= *resend_us).then_some((*kind, seq)))
            }
        };
        if now_us >= last + GIVE_UP_US {
            self.state = State::Idle;
            self.stats.silent_give_ups += 1;
            return;
        }
        if let Some((kind, seq)) = resend {
            if let State::Receiving { resend_us, .. } = &mut self.state {
                *resend_us = now_us + RESEND_US;
            }
            self.request(kind, seq);
        }
    }

    fn plan(&self, kind: MissionKind) -> &[MissionItem] {
        &self.plans[kind.index()]
    }
}
