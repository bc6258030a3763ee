//! PX4's download (MM:716-880): MISSION_REQUEST_LIST → MISSION_COUNT with the plan's CRC →
//! each item asked for, strictly in order (the next one, or the last one again; anything else
//! ends the transfer with ACK 1) → the partner's final MISSION_ACK. Requests without a
//! REQUEST_LIST are ignored silently. Positions come back in frames 5/6 (or 0/3 to a float
//! peer), other items in frame 2; parameters as they were uploaded (PX4 re-derives some from
//! its own item, e.g. yaw wrapped to 0-360°).

use super::{Ctx, Px4Protocol, State};
use crate::endpoint::codec::MavMessage;
use crate::endpoint::codec::mav::{MavFrame, MavMissionResult, MavMissionType, MavSeverity};
use crate::endpoint::mission::item::{Item, is_global};
use crate::endpoint::mission::kind::PlanKind;
use crate::endpoint::mission::messages;
use crate::endpoint::mission::peer::Peer;

/// A download under way.
#[derive(Debug, Clone)]
pub(super) struct Download {
    /// Items announced in MISSION_COUNT.
    count: u16,
}

impl Px4Protocol {
    /// MISSION_REQUEST_LIST: starts a download (or restarts the partner's own).
    pub(super) fn on_request_list(
        &mut self,
        link: usize,
        from: Peer,
        mission_type: MavMissionType,
        ctx: Ctx<'_>,
    ) {
        let s = &mut self.sessions[link];
        let stored = |t: MavMissionType| PlanKind::from_mav(t).map_or(0, |k| ctx.plans.count(k));
        // Every item went out but the ACK never came: a new list request may start over.
        // (PX4 applies this whatever the state, which can drop an upload mid-way; only a
        // finished download is dropped here.)
        if matches!(s.state, State::Sending(_))
            && usize::from(s.transfer_seq) == stored(s.mission_type)
        {
            s.state = State::Idle;
        }
        let own_again = matches!(s.state, State::Sending(_))
            && s.mission_type == mission_type
            && from == s.partner;
        if !(matches!(s.state, State::Idle) || own_again) {
            ctx.out.say(
                MavSeverity::MAV_SEVERITY_INFO,
                "Mission download request ignored, already active",
            );
            return;
        }
        s.last_recv_us = Some(ctx.now_us);
        s.mission_type = mission_type;
        s.transfer_seq = 0;
        s.partner = from;
        let count = u16::try_from(stored(mission_type)).unwrap_or(u16::MAX);
        s.state = State::Sending(Download { count });
        let id = PlanKind::from_mav(mission_type).map_or(0, |k| ctx.plans.id(k));
        let answer = match PlanKind::from_mav(mission_type) {
            Some(kind) => messages::count(from, kind, count, id),
            // MAV_MISSION_TYPE_ALL holds nothing.
            None => MavMessage::MISSION_COUNT(crate::endpoint::codec::mav::MISSION_COUNT_DATA {
                count: 0,
                target_system: from.system,
                target_component: from.component,
                mission_type,
                opaque_id: 0,
            }),
        };
        ctx.out.send(link, answer);
        s.last_sent_us = Some(ctx.now_us);
    }

    /// MISSION_REQUEST_INT or MISSION_REQUEST for item `seq`.
    pub(super) fn on_request(
        &mut self,
        link: usize,
        from: Peer,
        seq: u16,
        mission_type: MavMissionType,
        ctx: Ctx<'_>,
    ) {
        let s = &mut self.sessions[link];
        if from != s.partner {
            ctx.out.critical("WPM: REJ. CMD: partner id mismatch");
            return;
        }
        let count = match &s.state {
            State::Sending(d) => d.count,
            // No download: some OSDs ask anyway; PX4 ignores them silently.
            State::Idle => return,
            State::Receiving(_) => {
                ctx.out.critical("WPM: REJ. CMD: Busy");
                return;
            }
        };
        if mission_type != s.mission_type {
            return;
        }
        s.last_recv_us = Some(ctx.now_us);
        let next = seq == s.transfer_seq && s.transfer_seq < count;
        let again = s.transfer_seq.checked_sub(1) == Some(seq);
        if next {
            s.transfer_seq += 1;
        }
        let stored = PlanKind::from_mav(mission_type)
            .and_then(|k| ctx.plans.items(k).get(usize::from(seq)).map(|i| (k, *i)));
        match stored {
            Some((kind, item)) if next || again => {
                let current = ctx.plans.current_seq() == seq;
                let message = item_message(&item, seq, kind, s.partner, current, s.int_mode);
                ctx.out.send(link, message);
                s.last_sent_us = Some(ctx.now_us);
            }
            _ => {
                s.state = State::Idle;
                ctx.out.send(
                    link,
                    s.ack(s.partner, MavMissionResult::MAV_MISSION_ERROR, 0),
                );
                ctx.out.critical("WPM: REJ. CMD: Req. WP was unexpected");
            }
        }
    }
}

/// The frame PX4 sends an item back in (MM:1742-1767): frame 2 stays; positions become
/// GLOBAL(_INT) or GLOBAL_RELATIVE_ALT(_INT) as their altitude was relative (a fence point's
/// never is).
#[allow(deprecated)] // PX4 still sends the *_INT frames
fn download_frame(kind: PlanKind, item: &Item, int_mode: bool) -> MavFrame {
    if !is_global(item.frame) {
        return item.frame;
    }
    let relative = kind != PlanKind::Fence
        && matches!(
            item.frame,
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
        );
    match (relative, int_mode) {
        (true, true) => MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
        (true, false) => MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        (false, true) => MavFrame::MAV_FRAME_GLOBAL_INT,
        (false, false) => MavFrame::MAV_FRAME_GLOBAL,
    }
}

/// Item `seq` as MISSION_ITEM_INT, or MISSION_ITEM to a peer that asked in float.
#[allow(deprecated)] // MISSION_ITEM is deprecated, and still answers MISSION_REQUEST
fn item_message(
    item: &Item,
    seq: u16,
    kind: PlanKind,
    to: Peer,
    current: bool,
    int_mode: bool,
) -> MavMessage {
    let frame = download_frame(kind, item, int_mode);
    if int_mode {
        MavMessage::MISSION_ITEM_INT(item.to_int(seq, kind, to, frame, current))
    } else {
        MavMessage::MISSION_ITEM(item.to_float(seq, kind, to, frame, current))
    }
}
