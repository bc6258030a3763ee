//! PX4's mission manager (`MavlinkMissionManager`, MISSION-FACTS §1, MM): one per MAVLink link
//! — its state, transfer partner, `_int_mode` and retry clocks per link — over plans, plan ids
//! and an "upload in progress" flag shared by all links, as PX4 keeps them in statics.
//!
//! - `upload`: MISSION_COUNT and the items, buffered and swapped in only when complete.
//! - `download`: MISSION_REQUEST_LIST and the requests, strictly in order.
//! - here: MISSION_ACK, MISSION_CLEAR_ALL, MISSION_SET_CURRENT, the clocks (re-request every
//!   250 ms, give up after 5 s without a message, saying "Operation timeout" and sending no
//!   ACK) and MISSION_CURRENT at 1 Hz on every link with the plans' CRCs.
//!
//! PX4's statustexts keep their words; the `\t` PX4 appends for its event log is not sent.

mod download;
mod upload;

use super::kind::PlanKind;
use super::outbox::Outbox;
use super::peer::Peer;
use super::plans::Plans;
use super::{Progress, Situation, item::Received, messages};
use crate::endpoint::codec::mav::{self, MavMissionResult, MavMissionType, MissionState};
use crate::endpoint::codec::{COMP_AUTOPILOT, MavMessage};

/// Re-request an item after this long (MAVLINK_MISSION_RETRY_TIMEOUT_DEFAULT), µs.
const RETRY_US: u64 = 250_000;
/// Give a transfer up after this long without a message from the partner
/// (MAVLINK_MISSION_PROTOCOL_TIMEOUT_DEFAULT), µs.
const TIMEOUT_US: u64 = 5_000_000;
/// MISSION_CURRENT's period, µs.
const CURRENT_PERIOD_US: u64 = 1_000_000;
/// PX4 SITL's capacities: mission (CONFIG_NUM_MISSION_ITMES_SUPPORTED on the SITL board),
/// fence, rally (dataman.h:71-75).
const CAPS: [u16; 3] = [10_000, 64, 32];
/// MAV_COMP_ID_MISSIONPLANNER: PX4 takes mission messages addressed to it too.
const COMP_MISSIONPLANNER: u8 = 190;
/// PX4 repeats MISSION_ITEM_REACHED this many times after the first, at 1 Hz.
const REACHED_REPEATS: u8 = 10;

#[derive(Debug, Clone)]
enum State {
    Idle,
    Receiving(upload::Upload),
    Sending(download::Download),
}

/// One link's mission manager.
#[derive(Debug, Clone)]
struct Session {
    state: State,
    /// MISSION_ITEM_INT / MISSION_REQUEST_INT (true) or their float forms, as last heard.
    int_mode: bool,
    /// The last transfer's partner; it stays after the transfer ends.
    partner: Peer,
    /// The last transfer's `mission_type` (PX4's `_mission_type`; ACKs carry it).
    mission_type: MavMissionType,
    /// The next item of the last transfer (PX4's `_transfer_seq`).
    transfer_seq: u16,
    /// The CRC of the last upload so far.
    transfer_crc: u32,
    last_sent_us: Option<u64>,
    last_recv_us: Option<u64>,
}

impl Session {
    fn new() -> Self {
        Self {
            state: State::Idle,
            int_mode: true,
            partner: Peer::default(),
            mission_type: MavMissionType::MAV_MISSION_TYPE_MISSION,
            transfer_seq: 0,
            transfer_crc: 0,
            last_sent_us: None,
            last_recv_us: None,
        }
    }

    fn ack(&self, to: Peer, result: MavMissionResult, opaque_id: u32) -> MavMessage {
        messages::ack(to, self.mission_type, result, opaque_id)
    }
}

/// What one call works on.
pub(super) struct Ctx<'a> {
    pub plans: &'a mut Plans,
    pub out: &'a mut Outbox,
    pub now_us: u64,
}

/// PX4's mission protocol on every link.
#[derive(Debug, Clone)]
pub(super) struct Px4Protocol {
    system_id: u8,
    sessions: Vec<Session>,
    /// The link whose upload is under way (PX4's static `_transfer_in_progress`).
    uploading: Option<usize>,
    next_current_us: u64,
    /// The mission's current item moved: MISSION_CURRENT goes out at once.
    current_moved: bool,
    /// MISSION_CURRENT's state as last computed (PX4 keeps it when no rule applies).
    state: MissionState,
    /// The last item reached and how often MISSION_ITEM_REACHED was repeated since.
    reached: Option<(u16, u8)>,
}

impl Px4Protocol {
    pub fn new(system_id: u8, links: usize) -> Self {
        Self {
            system_id,
            sessions: vec![Session::new(); links],
            uploading: None,
            next_current_us: 0,
            current_moved: false,
            state: MissionState::MISSION_STATE_UNKNOWN,
            reached: None,
        }
    }

    /// The vehicle moved the current item: MISSION_CURRENT goes out at the next step.
    pub fn current_moved(&mut self) {
        self.current_moved = true;
    }

    /// Item `seq` reached: MISSION_ITEM_REACHED now when it is news, then again with each
    /// 1 Hz MISSION_CURRENT, 10 times (MM:524-557).
    pub fn reached(&mut self, seq: u16, out: &mut Outbox) {
        if self.reached.is_some_and(|(last, _)| last == seq) {
            return;
        }
        self.reached = Some((seq, 0));
        out.broadcast(messages::reached(seq));
    }

    /// PX4's `CHECK_SYSID_COMPID_MISSION`: our system exactly (not broadcast), and our
    /// component, the mission planner's or any.
    fn for_us(&self, system: u8, component: u8) -> bool {
        system == self.system_id && matches!(component, 0 | COMP_AUTOPILOT | COMP_MISSIONPLANNER)
    }

    /// Takes a mission message from `from` on `link`.
    #[allow(deprecated)] // MISSION_ITEM and MISSION_REQUEST are deprecated; PX4 still takes them
    pub fn handle(&mut self, link: usize, from: Peer, message: &MavMessage, ctx: Ctx<'_>) {
        let Some(session) = self.sessions.get_mut(link) else {
            return;
        };
        // PX4 switches int mode on the message type before it looks at the target.
        match message {
            MavMessage::MISSION_ITEM_INT(_) | MavMessage::MISSION_REQUEST_INT(_) => {
                session.int_mode = true;
            }
            MavMessage::MISSION_ITEM(_) | MavMessage::MISSION_REQUEST(_) => {
                session.int_mode = false;
            }
            _ => {}
        }
        match message {
            MavMessage::MISSION_COUNT(c) if self.for_us(c.target_system, c.target_component) => {
                self.on_count(link, from, c, ctx);
            }
            MavMessage::MISSION_ITEM_INT(d) => self.on_item(link, from, &Received::int(d), ctx),
            MavMessage::MISSION_ITEM(d) => self.on_item(link, from, &Received::float(d), ctx),
            MavMessage::MISSION_REQUEST_LIST(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                self.on_request_list(link, from, r.mission_type, ctx);
            }
            MavMessage::MISSION_REQUEST_INT(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                self.on_request(link, from, r.seq, r.mission_type, ctx);
            }
            MavMessage::MISSION_REQUEST(r) if self.for_us(r.target_system, r.target_component) => {
                self.on_request(link, from, r.seq, r.mission_type, ctx);
            }
            MavMessage::MISSION_ACK(a) if self.for_us(a.target_system, a.target_component) => {
                self.on_ack(link, from, a, ctx);
            }
            MavMessage::MISSION_CLEAR_ALL(c)
                if self.for_us(c.target_system, c.target_component) =>
            {
                self.on_clear(link, from, c.mission_type, ctx);
            }
            MavMessage::MISSION_SET_CURRENT(c)
                if self.for_us(c.target_system, c.target_component) =>
            {
                self.on_set_current(link, c.seq, ctx);
            }
            _ => {}
        }
    }

    /// MISSION_ACK from the partner: the end of a download, or (during an upload) a switch
    /// between int and float requests, or a cancel.
    fn on_ack(&mut self, link: usize, from: Peer, a: &mav::MISSION_ACK_DATA, ctx: Ctx<'_>) {
        let s = &mut self.sessions[link];
        if from != s.partner {
            ctx.out.critical("REJ. WP CMD: partner id mismatch");
            return;
        }
        match &s.state {
            State::Sending(_) if s.mission_type == a.mission_type => {
                s.last_recv_us = Some(ctx.now_us);
                s.state = State::Idle;
            }
            State::Receiving(u) => match a.mavtype {
                MavMissionResult::MAV_MISSION_UNSUPPORTED => {
                    s.int_mode = !s.int_mode;
                    let request =
                        messages::request(s.partner, u.kind(), s.transfer_seq, !s.int_mode);
                    ctx.out.send(link, request);
                    s.last_sent_us = Some(ctx.now_us);
                }
                MavMissionResult::MAV_MISSION_OPERATION_CANCELLED => {
                    s.state = State::Idle;
                    self.uploading = None;
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// MISSION_CLEAR_ALL: only while this link is idle (else "Busy", no answer); 255 clears all.
    fn on_clear(&mut self, link: usize, from: Peer, mission_type: MavMissionType, ctx: Ctx<'_>) {
        let s = &mut self.sessions[link];
        if !matches!(s.state, State::Idle) {
            ctx.out.critical("WPM: IGN CLEAR CMD: Busy");
            return;
        }
        s.last_recv_us = Some(ctx.now_us);
        s.mission_type = mission_type;
        let kinds: &[PlanKind] = match PlanKind::from_mav(mission_type) {
            Some(PlanKind::Mission) => &[PlanKind::Mission],
            Some(PlanKind::Fence) => &[PlanKind::Fence],
            Some(PlanKind::Rally) => &[PlanKind::Rally],
            None => &PlanKind::ALL,
        };
        for kind in kinds {
            clear(*kind, ctx.plans, ctx.out);
        }
        ctx.out.send(
            link,
            messages::ack(
                from,
                mission_type,
                MavMissionResult::MAV_MISSION_ACCEPTED,
                0,
            ),
        );
    }

    /// MISSION_SET_CURRENT (a message, with no answer but MISSION_CURRENT).
    fn on_set_current(&mut self, link: usize, seq: u16, ctx: Ctx<'_>) {
        if !matches!(self.sessions[link].state, State::Idle) {
            ctx.out.critical("WPM: IGN WP CURR CMD: Busy");
            return;
        }
        self.sessions[link].last_recv_us = Some(ctx.now_us);
        if usize::from(seq) < ctx.plans.count(PlanKind::Mission) {
            ctx.plans.set_current_seq(seq);
            self.current_moved = true;
        } else {
            ctx.out.critical("WPM: WP CURR CMD: Not in list");
        }
    }

    /// The clocks: requests re-sent, silent transfers given up, MISSION_CURRENT due.
    pub fn step(&mut self, situation: &Situation, ctx: Ctx<'_>) {
        let now = ctx.now_us;
        for (link, s) in self.sessions.iter_mut().enumerate() {
            let idle = matches!(s.state, State::Idle);
            let silent = s
                .last_recv_us
                .is_some_and(|t| now.saturating_sub(t) > TIMEOUT_US);
            if !idle && silent {
                ctx.out.critical("Operation timeout");
                s.state = State::Idle;
                if self.uploading == Some(link) {
                    self.uploading = None;
                }
            } else if let State::Receiving(u) = &s.state {
                if s.last_sent_us
                    .is_some_and(|t| now.saturating_sub(t) > RETRY_US)
                {
                    let request =
                        messages::request(s.partner, u.kind(), s.transfer_seq, !s.int_mode);
                    ctx.out.send(link, request);
                    s.last_sent_us = Some(now);
                }
            } else if idle {
                s.last_sent_us = None;
                s.last_recv_us = None;
            }
        }
        self.state = self.mission_state(ctx.plans, situation);
        if self.current_moved || now >= self.next_current_us {
            self.current_moved = false;
            self.next_current_us = now.saturating_add(CURRENT_PERIOD_US);
            let current = self.mission_current(ctx.plans, situation);
            ctx.out.broadcast(current);
            if let Some((seq, sent)) = &mut self.reached
                && *sent < REACHED_REPEATS
            {
                *sent += 1;
                ctx.out.broadcast(messages::reached(*seq));
            }
        }
    }

    /// When `step` next has something to do.
    pub fn next_deadline_us(&self) -> Option<u64> {
        let mut at = self.next_current_us;
        for s in &self.sessions {
            if matches!(s.state, State::Receiving(_))
                && let Some(t) = s.last_sent_us
            {
                at = at.min(t.saturating_add(RETRY_US + 1));
            }
            if !matches!(s.state, State::Idle)
                && let Some(t) = s.last_recv_us
            {
                at = at.min(t.saturating_add(TIMEOUT_US + 1));
            }
        }
        Some(at)
    }

    /// MISSION_CURRENT's state (`update_mission_state`, MM:1917-1958): NO_MISSION without a
    /// mission, COMPLETE once flown, ACTIVE in a mission mode, PAUSED when left part-way,
    /// NOT_STARTED at item 0, else as it was.
    fn mission_state(&self, plans: &Plans, situation: &Situation) -> MissionState {
        if plans.count(PlanKind::Mission) == 0 {
            MissionState::MISSION_STATE_NO_MISSION
        } else if situation.progress == Progress::Complete {
            MissionState::MISSION_STATE_COMPLETE
        } else if situation.mission_mode {
            MissionState::MISSION_STATE_ACTIVE
        } else if situation.progress == Progress::Paused {
            MissionState::MISSION_STATE_PAUSED
        } else if plans.current_seq() < 1 {
            MissionState::MISSION_STATE_NOT_STARTED
        } else {
            self.state
        }
    }

    /// MISSION_CURRENT as PX4 fills it (MM:279-295): the plans' CRCs, `total` the count or
    /// 65535, `mission_mode` 1 in Mission/Takeoff/Land else 2.
    pub fn mission_current(&self, plans: &Plans, situation: &Situation) -> MavMessage {
        let count = plans.count(PlanKind::Mission);
        MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
            seq: plans.current_seq(),
            total: u16::try_from(count)
                .ok()
                .filter(|c| *c > 0)
                .unwrap_or(u16::MAX),
            mission_state: self.mission_state(plans, situation),
            mission_mode: if situation.mission_mode { 1 } else { 2 },
            mission_id: plans.id(PlanKind::Mission),
            fence_id: plans.id(PlanKind::Fence),
            rally_points_id: plans.id(PlanKind::Rally),
        })
    }
}

/// A plan emptied: count 0, id 0 (PX4 switches to its empty other slot).
fn clear(kind: PlanKind, plans: &mut Plans, out: &mut Outbox) {
    plans.clear(kind);
    out.changed(kind);
}
