//! ArduPilot's download (MIP:114-208, MIPW:45-77): stateless. MISSION_REQUEST_LIST is answered
//! with MISSION_COUNT (home counted in the mission), and any item is served on request, in any
//! order: MISSION_ITEM_INT for MISSION_REQUEST_INT, MISSION_ITEM for MISSION_REQUEST. Seq 0 of
//! the mission is home as NAV_WAYPOINT, frame 0 (AMSL). A seq past the end gets MISSION_COUNT
//! again and ACK 13; during an upload of the plan, requests get ACK 14.

use super::{ArduPilotProtocol, Ctx, wire_count};
use crate::endpoint::codec::MavMessage;
use crate::endpoint::codec::mav::{MavCmd, MavFrame, MavMissionResult, MavSeverity};
use crate::endpoint::mission::item::Item;
use crate::endpoint::mission::kind::PlanKind;
use crate::endpoint::mission::messages;
use crate::endpoint::mission::peer::Peer;
use alpha3_core::mission_file::item::deg_to_e7;

impl ArduPilotProtocol {
    pub(super) fn on_request_list(
        &mut self,
        link: usize,
        from: Peer,
        kind: PlanKind,
        ctx: Ctx<'_>,
    ) {
        if self.uploads[kind.index()].is_some() {
            ctx.out.send(
                link,
                messages::ack(from, kind.to_mav(), MavMissionResult::MAV_MISSION_DENIED, 0),
            );
            return;
        }
        let count = u16::try_from(wire_count(kind, ctx.plans, ctx.situation)).unwrap_or(u16::MAX);
        ctx.out.send(link, messages::count(from, kind, count, 0));
    }

    /// MISSION_REQUEST_INT (`float` false) or MISSION_REQUEST (true) for item `seq`.
    #[allow(deprecated)] // MISSION_ITEM answers the deprecated MISSION_REQUEST
    pub(super) fn on_request(
        &mut self,
        link: usize,
        from: Peer,
        kind: PlanKind,
        seq: u16,
        float: bool,
        ctx: Ctx<'_>,
    ) {
        // Only the INT request looks at an upload under way.
        if !float && self.uploads[kind.index()].is_some() {
            ctx.out.send(
                link,
                messages::ack(from, kind.to_mav(), MavMissionResult::MAV_MISSION_DENIED, 0),
            );
            return;
        }
        let Some((item, frame)) = stored(kind, seq, ctx.plans, ctx.situation) else {
            if !float {
                // Tell the GCS how many there really are.
                let count =
                    u16::try_from(wire_count(kind, ctx.plans, ctx.situation)).unwrap_or(u16::MAX);
                ctx.out.send(link, messages::count(from, kind, count, 0));
            }
            let ack = messages::ack(
                from,
                kind.to_mav(),
                MavMissionResult::MAV_MISSION_INVALID_SEQUENCE,
                0,
            );
            ctx.out.send(link, ack);
            return;
        };
        let message = if float {
            if !self.float_request_warned {
                self.float_request_warned = true;
                ctx.out.say(
                    MavSeverity::MAV_SEVERITY_WARNING,
                    "got MISSION_REQUEST; use MISSION_REQUEST_INT!",
                );
            }
            MavMessage::MISSION_ITEM(item.to_float(seq, kind, from, frame, false))
        } else {
            MavMessage::MISSION_ITEM_INT(item.to_int(seq, kind, from, frame, false))
        };
        ctx.out.send(link, message);
    }
}

/// Item `seq` of `kind` on the wire and its frame, or `None` past the end. ArduPilot sends
/// positions back in frames 0, 3 or 10 (it keeps no *_INT frames) and fence points in 0.
#[allow(deprecated)] // mapping the deprecated *_INT frames away
fn stored(
    kind: PlanKind,
    seq: u16,
    plans: &crate::endpoint::mission::plans::Plans,
    situation: &crate::endpoint::mission::Situation,
) -> Option<(Item, MavFrame)> {
    let item = match (kind, seq.checked_sub(1)) {
        (PlanKind::Mission, None) => {
            return Some((home_item(situation), MavFrame::MAV_FRAME_GLOBAL));
        }
        (PlanKind::Mission, Some(index)) => *plans.items(kind).get(usize::from(index))?,
        _ => *plans.items(kind).get(usize::from(seq))?,
    };
    let frame = match (kind, item.frame) {
        (PlanKind::Fence, _) => MavFrame::MAV_FRAME_GLOBAL,
        (_, MavFrame::MAV_FRAME_GLOBAL_INT) => MavFrame::MAV_FRAME_GLOBAL,
        (_, MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT) => MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        (_, MavFrame::MAV_FRAME_GLOBAL_TERRAIN_ALT_INT) => MavFrame::MAV_FRAME_GLOBAL_TERRAIN_ALT,
        (_, frame) => frame,
    };
    let item = if kind == PlanKind::Fence {
        Item { z: 0.0, ..item }
    } else {
        item
    };
    Some((item, frame))
}

/// Home as ArduPilot serves seq 0: NAV_WAYPOINT at the AHRS home, altitude AMSL (zeros before
/// home is known, as its unset home reads).
fn home_item(situation: &crate::endpoint::mission::Situation) -> Item {
    let (x, y, z) = situation.home.map_or((0, 0, 0.0), |h| {
        (
            deg_to_e7(h.lat_deg).unwrap_or(0),
            deg_to_e7(h.lon_deg).unwrap_or(0),
            h.alt_amsl_m as f32,
        )
    });
    Item {
        frame: MavFrame::MAV_FRAME_GLOBAL,
        command: MavCmd::MAV_CMD_NAV_WAYPOINT,
        current: false,
        autocontinue: 1,
        params: [0.0; 4],
        x,
        y,
        z,
    }
}
