//! PX4's upload (MM:899-1324): MISSION_COUNT → MISSION_REQUEST_INT per item → MISSION_ACK with
//! the new plan's CRC. Items go to a buffer (PX4's inactive dataman slot) and replace the plan
//! only once the last one came, and only if its CRC differs; an invalid item, a timeout or a
//! cancel leaves the old plan as it was. One upload at a time across all links (a second
//! partner gets ACK 1); an out-of-sequence item is ignored (the request is re-sent); a
//! repeated last item after the end is ACKed again with the same CRC.

use super::{CAPS, Ctx, Px4Protocol, Session, State};
use crate::endpoint::codec::mav::{self, MavMissionResult};
use crate::endpoint::mission::item::{Item, Received};
use crate::endpoint::mission::kind::PlanKind;
use crate::endpoint::mission::peer::Peer;
use crate::endpoint::mission::{check, crc, messages};

/// An upload under way.
#[derive(Debug, Clone)]
pub(super) struct Upload {
    kind: PlanKind,
    count: u16,
    /// Received so far, in order (at most `count`, itself at most the plan's capacity).
    items: Vec<Item>,
    /// The item flagged `current`, if any.
    current: Option<u16>,
}

impl Upload {
    pub fn kind(&self) -> PlanKind {
        self.kind
    }
}

impl Px4Protocol {
    /// MISSION_COUNT: a new upload, a repeat of it (our first request was lost), or "busy".
    pub(super) fn on_count(
        &mut self,
        link: usize,
        from: Peer,
        c: &mav::MISSION_COUNT_DATA,
        ctx: Ctx<'_>,
    ) {
        let now = ctx.now_us;
        let uploading = self.uploading;
        let s = &mut self.sessions[link];
        match &s.state {
            State::Idle => {
                s.last_recv_us = Some(now);
                if uploading.is_some() {
                    // An upload over another link.
                    ctx.out
                        .send(link, s.ack(from, MavMissionResult::MAV_MISSION_ERROR, 0));
                    return;
                }
                s.partner = from;
                s.mission_type = c.mission_type;
                s.transfer_crc = 0;
                let Some(kind) = PlanKind::from_mav(c.mission_type) else {
                    // MAV_MISSION_TYPE_ALL: its capacity is 0, and clearing it does nothing.
                    let result = if c.count > 0 {
                        MavMissionResult::MAV_MISSION_NO_SPACE
                    } else {
                        MavMissionResult::MAV_MISSION_ACCEPTED
                    };
                    ctx.out.send(link, s.ack(from, result, 0));
                    return;
                };
                if c.count > CAPS[kind.index()] {
                    ctx.out
                        .send(link, s.ack(from, MavMissionResult::MAV_MISSION_NO_SPACE, 0));
                    return;
                }
                if c.count == 0 {
                    super::clear(kind, ctx.plans, ctx.out);
                    ctx.out
                        .send(link, s.ack(from, MavMissionResult::MAV_MISSION_ACCEPTED, 0));
                    return;
                }
                s.state = State::Receiving(Upload {
                    kind,
                    count: c.count,
                    items: Vec::new(),
                    current: None,
                });
                s.transfer_seq = 0;
                self.uploading = Some(link);
            }
            State::Receiving(_) => {
                s.last_recv_us = Some(now);
                if from != s.partner {
                    ctx.out
                        .send(link, s.ack(from, MavMissionResult::MAV_MISSION_ERROR, 0));
                    return;
                }
                if s.transfer_seq != 0 {
                    ctx.out.critical("WPM: REJ. CMD: Busy");
                    ctx.out.send(
                        link,
                        s.ack(s.partner, MavMissionResult::MAV_MISSION_ERROR, 0),
                    );
                    return;
                }
            }
            State::Sending(_) => {
                ctx.out.critical("WPM: IGN MISSION_COUNT: Busy");
                ctx.out
                    .send(link, s.ack(from, MavMissionResult::MAV_MISSION_ERROR, 0));
                return;
            }
        }
        send_request(link, s, now, ctx);
    }

    /// MISSION_ITEM_INT or MISSION_ITEM.
    pub(super) fn on_item(&mut self, link: usize, from: Peer, r: &Received, ctx: Ctx<'_>) {
        if !self.for_us(r.target.system, r.target.component) {
            return;
        }
        let s = &mut self.sessions[link];
        if from != s.partner {
            ctx.out.critical("REJ. MIS ITEM: partner id mismatch");
            return;
        }
        if r.mission_type != s.mission_type {
            ctx.out.send(
                link,
                s.ack(s.partner, MavMissionResult::MAV_MISSION_ERROR, 0),
            );
            return;
        }
        let upload = match &mut s.state {
            State::Receiving(u) => {
                s.last_recv_us = Some(ctx.now_us);
                if r.seq != s.transfer_seq {
                    // Not the one asked for: ignored; the request goes out again.
                    return;
                }
                u
            }
            State::Idle => {
                let reply = if u32::from(s.transfer_seq) == u32::from(r.seq) + 1 {
                    // The last item again: our final ACK was lost.
                    s.ack(
                        s.partner,
                        MavMissionResult::MAV_MISSION_ACCEPTED,
                        s.transfer_crc,
                    )
                } else {
                    ctx.out.critical("IGN MISSION_ITEM: No transfer");
                    s.ack(s.partner, MavMissionResult::MAV_MISSION_ERROR, 0)
                };
                ctx.out.send(link, reply);
                return;
            }
            State::Sending(_) => {
                ctx.out.critical("IGN MISSION_ITEM: Busy");
                ctx.out.send(
                    link,
                    s.ack(s.partner, MavMissionResult::MAV_MISSION_ERROR, 0),
                );
                return;
            }
        };
        let kind = upload.kind;
        let refusal = match check::px4_parse(&r.item, s.int_mode) {
            Err(code) => {
                ctx.out.critical("IGN MISSION_ITEM: Invalid item");
                Some(code)
            }
            Ok(()) => {
                s.transfer_crc = crc::item(s.transfer_crc, &r.crc);
                (!check::px4_fits(kind, &r.item)).then_some(MavMissionResult::MAV_MISSION_ERROR)
            }
        };
        if let Some(code) = refusal {
            ctx.out
                .send(link, messages::ack(s.partner, s.mission_type, code, 0));
            s.state = State::Idle;
            self.uploading = None;
            return;
        }
        upload.items.push(r.item);
        if r.item.current {
            upload.current = Some(r.seq);
        }
        s.transfer_seq = r.seq.saturating_add(1);
        if s.transfer_seq < upload.count {
            send_request(link, s, ctx.now_us, ctx);
            return;
        }
        // The last item: the new plan replaces the old, unless it is the same plan.
        let items = std::mem::take(&mut upload.items);
        let current = upload.current;
        let crc = s.transfer_crc;
        if crc != ctx.plans.id(kind) {
            ctx.plans.replace(kind, items, crc);
            if kind == PlanKind::Mission {
                if let Some(seq) = current {
                    ctx.plans.set_current_seq(seq);
                }
                self.current_moved = true;
            }
            ctx.out.changed(kind);
        }
        s.state = State::Idle;
        self.uploading = None;
        ctx.out.send(
            link,
            s.ack(s.partner, MavMissionResult::MAV_MISSION_ACCEPTED, crc),
        );
    }
}

/// The request for the next item, as int or float as the partner speaks.
fn send_request(link: usize, s: &mut Session, now_us: u64, ctx: Ctx<'_>) {
    let State::Receiving(u) = &s.state else {
        return;
    };
    let request = messages::request(s.partner, u.kind, s.transfer_seq, !s.int_mode);
    ctx.out.send(link, request);
    s.last_sent_us = Some(now_us);
}
