//! ArduPilot's upload (MIP:57-411, MIPW, MIPF, MIPR): MISSION_COUNT → MISSION_REQUEST (40) for
//! each item → MISSION_ACK. The mission is cut to the new count at once and each item written
//! as it comes (seq 0, home, is not written); rally points likewise; the fence is collected and
//! written only when complete and valid ("Fence validation failed", ACK 1, otherwise).

use super::{ArduPilotProtocol, CAPS, Ctx, RETRY_US, TIMEOUT_US};
use crate::endpoint::codec::mav::{MavMissionResult, MavSeverity};
use crate::endpoint::mission::item::{Item, Received};
use crate::endpoint::mission::kind::PlanKind;
use crate::endpoint::mission::outbox::Outbox;
use crate::endpoint::mission::peer::Peer;
use crate::endpoint::mission::{check, messages};
use alpha3_core::mission_file::{Fence, ReadOptions, mav_cmd};

/// One plan's upload under way.
#[derive(Debug, Clone)]
pub(super) struct Upload {
    link: usize,
    partner: Peer,
    /// The next seq asked for, and the last one there is.
    next: u16,
    last: u16,
    last_item_us: u64,
    last_request_us: u64,
    /// The fence being collected (the mission and rally are written in place).
    fence: Vec<Item>,
}

impl Upload {
    pub fn deadline_us(&self) -> u64 {
        self.last_request_us
            .saturating_add(RETRY_US + 1)
            .min(self.last_item_us.saturating_add(TIMEOUT_US + 1))
    }
}

impl ArduPilotProtocol {
    /// `true` when `kind` has no upload, or had one from `from` (which is dropped); else
    /// ACK 14 DENIED to `from`.
    pub(super) fn cancel_upload(
        &mut self,
        link: usize,
        from: Peer,
        kind: PlanKind,
        out: &mut Outbox,
    ) -> bool {
        let slot = &mut self.uploads[kind.index()];
        if slot.as_ref().is_some_and(|u| u.partner != from) {
            out.send(
                link,
                messages::ack(from, kind.to_mav(), MavMissionResult::MAV_MISSION_DENIED, 0),
            );
            return false;
        }
        *slot = None;
        true
    }

    /// MISSION_COUNT: a new upload (the same partner may restart its own).
    pub(super) fn on_count(
        &mut self,
        link: usize,
        from: Peer,
        kind: PlanKind,
        count: u16,
        ctx: Ctx<'_>,
    ) {
        if !self.cancel_upload(link, from, kind, ctx.out) {
            return;
        }
        let cap = CAPS[kind.index()];
        if count > cap {
            ctx.out.send(
                link,
                messages::ack(
                    from,
                    kind.to_mav(),
                    MavMissionResult::MAV_MISSION_NO_SPACE,
                    0,
                ),
            );
            ctx.out.say(
                MavSeverity::MAV_SEVERITY_WARNING,
                format!("Only {cap} items are supported"),
            );
            return;
        }
        // The live lists shrink to the new count now (home, seq 0, is not among the items).
        match kind {
            PlanKind::Mission => ctx
                .plans
                .truncate(kind, usize::from(count).saturating_sub(1)),
            PlanKind::Rally => ctx.plans.truncate(kind, usize::from(count)),
            PlanKind::Fence => {}
        }
        if kind != PlanKind::Fence {
            ctx.out.changed(kind);
        }
        let Some(last) = count.checked_sub(1) else {
            complete(link, from, kind, Vec::new(), ctx);
            return;
        };
        self.uploads[kind.index()] = Some(Upload {
            link,
            partner: from,
            next: 0,
            last,
            last_item_us: ctx.now_us,
            last_request_us: ctx.now_us,
            fence: Vec::new(),
        });
        ctx.out.send(link, messages::request(from, kind, 0, true));
    }

    /// MISSION_ITEM_INT or MISSION_ITEM.
    pub(super) fn on_item(&mut self, link: usize, from: Peer, r: &Received, ctx: Ctx<'_>) {
        if !self.for_us(r.target.system, r.target.component) {
            return;
        }
        let Some(kind) = PlanKind::from_mav(r.mission_type) else {
            return;
        };
        let Some(u) = self.uploads[kind.index()].as_mut() else {
            // Not receiving: ACK 1 (also for a repeated last item whose ACK was lost).
            ctx.out.send(
                link,
                messages::ack(from, kind.to_mav(), MavMissionResult::MAV_MISSION_ERROR, 0),
            );
            return;
        };
        let ack = |result| messages::ack(from, kind.to_mav(), result, 0);
        if r.seq != u.next {
            ctx.out
                .send(link, ack(MavMissionResult::MAV_MISSION_INVALID_SEQUENCE));
            return;
        }
        if from != u.partner {
            ctx.out
                .send(link, ack(MavMissionResult::MAV_MISSION_DENIED));
            return;
        }
        let written = check::ardupilot(kind, &r.item).and_then(|()| match kind {
            PlanKind::Mission => write_mission(r, u.last, ctx.plans),
            PlanKind::Rally => write_or_error(ctx.plans.write(kind, usize::from(r.seq), r.item)),
            PlanKind::Fence => {
                u.fence.push(r.item);
                Ok(())
            }
        });
        if let Err(code) = written {
            ctx.out.send(u.link, ack(code));
            if kind != PlanKind::Fence {
                ctx.out.changed(kind);
            }
            self.uploads[kind.index()] = None;
            return;
        }
        u.last_item_us = ctx.now_us;
        u.next = u.next.saturating_add(1);
        if r.seq >= u.last {
            let fence = std::mem::take(&mut u.fence);
            let link = u.link;
            self.uploads[kind.index()] = None;
            complete(link, from, kind, fence, ctx);
            return;
        }
        u.last_request_us = ctx.now_us;
        ctx.out
            .send(u.link, messages::request(u.partner, kind, u.next, true));
    }

    /// The clocks: a request again after 1 s, the upload given up after 8 s without an item.
    pub fn step(&mut self, ctx: Ctx<'_>) {
        for kind in PlanKind::ALL {
            let slot = &mut self.uploads[kind.index()];
            let Some(u) = slot.as_mut() else {
                continue;
            };
            if ctx.now_us.saturating_sub(u.last_item_us) > TIMEOUT_US {
                ctx.out.say(
                    MavSeverity::MAV_SEVERITY_WARNING,
                    format!("{} upload timeout", kind.title()),
                );
                let cancel = messages::ack(
                    u.partner,
                    kind.to_mav(),
                    MavMissionResult::MAV_MISSION_OPERATION_CANCELLED,
                    0,
                );
                ctx.out.send(u.link, cancel);
                if kind != PlanKind::Fence {
                    ctx.out.changed(kind);
                }
                *slot = None;
            } else if ctx.now_us.saturating_sub(u.last_request_us) > RETRY_US {
                u.last_request_us = ctx.now_us;
                ctx.out
                    .send(u.link, messages::request(u.partner, kind, u.next, true));
            }
        }
    }
}

/// Mission item `r.seq` written in place; seq 0 is home, which an upload does not change. A
/// DO_JUMP to home or past the upload's end is ERROR (MIPW:41-45).
fn write_mission(
    r: &Received,
    last: u16,
    plans: &mut crate::endpoint::mission::plans::Plans,
) -> Result<(), MavMissionResult> {
    if r.item.command as u16 == mav_cmd::DO_JUMP {
        let target = r.item.params[0];
        let count = plans.count(PlanKind::Mission) + 1;
        if target < 1.0 || (target >= count as f32 && target > f32::from(last)) {
            return Err(MavMissionResult::MAV_MISSION_ERROR);
        }
    }
    match r.seq.checked_sub(1) {
        None => Ok(()),
        Some(index) => write_or_error(plans.write(PlanKind::Mission, usize::from(index), r.item)),
    }
}

fn write_or_error(written: bool) -> Result<(), MavMissionResult> {
    if written {
        Ok(())
    } else {
        Err(MavMissionResult::MAV_MISSION_ERROR)
    }
}

/// The upload is whole: the fence validated and written, the mission announced.
fn complete(link: usize, to: Peer, kind: PlanKind, fence: Vec<Item>, ctx: Ctx<'_>) {
    let mut result = MavMissionResult::MAV_MISSION_ACCEPTED;
    match kind {
        PlanKind::Fence => {
            let file: Vec<_> = fence
                .iter()
                .zip(0u16..)
                .map(|(item, seq)| item.to_file(seq, kind))
                .collect();
            match Fence::from_items(&file, &ReadOptions::default()) {
                Ok(_) => {
                    ctx.plans.replace(kind, fence, 0);
                    ctx.out.changed(kind);
                }
                Err(why) => {
                    tracing::info!(%why, "fence upload refused");
                    ctx.out
                        .say(MavSeverity::MAV_SEVERITY_WARNING, "Fence validation failed");
                    result = MavMissionResult::MAV_MISSION_ERROR;
                }
            }
        }
        PlanKind::Mission => {
            ctx.out
                .say(MavSeverity::MAV_SEVERITY_INFO, "Flight plan received");
            ctx.out.changed(kind);
        }
        PlanKind::Rally => ctx.out.changed(kind),
    }
    ctx.out
        .send(link, messages::ack(to, kind.to_mav(), result, 0));
}
