//! ArduPilot's mission protocol (`MissionItemProtocol` and its Waypoints, Fence and Rally
//! kinds; MISSION-FACTS §1-2), where it differs from PX4's: one protocol object per plan, not
//! per link; seq 0 of the mission is home (served from the vehicle's home on download, its
//! upload ignored); it asks with MISSION_REQUEST (40), again every second, and gives up after
//! 8 s with ACK 15 and "Mission/Fence/Rally upload timeout"; the mission and rally points are
//! written as they come (an aborted upload leaves old and new mixed), the fence only when
//! complete and valid; an out-of-sequence item gets ACK 13 and the upload goes on; a second
//! partner gets ACK 14; downloads are stateless (any seq, any order; a bad one gets
//! MISSION_COUNT again and ACK 13) and the final ACK is ignored; no plan ids (0 everywhere);
//! MISSION_CURRENT only in the requested EXT_STAT stream.
//!
//! Not imitated: MAVLink 1 links (ArduPilot refuses fence and rally transfers over them),
//! partial-list uploads, and commands ArduCopter does not know (taken here).

mod download;
mod upload;

use super::kind::PlanKind;
use super::outbox::Outbox;
use super::peer::Peer;
use super::plans::Plans;
use super::{Progress, Situation, item::Received, messages};
use crate::endpoint::codec::mav::{self, MavMissionResult, MavMissionType, MissionState};
use crate::endpoint::codec::{COMP_AUTOPILOT, MavMessage};

/// Re-request an item after this long without one (1000 ms + the link's slowdown), µs.
const RETRY_US: u64 = 1_000_000;
/// Give an upload up after this long without an item, µs.
const TIMEOUT_US: u64 = 8_000_000;
/// ArduCopter SITL's capacities from its storage (MISSION-FACTS §1, arithmetic, unverified):
/// mission items with home, fence items, rally points.
const CAPS: [u16; 3] = [650, 70, 46];

/// What one call works on.
pub(super) struct Ctx<'a> {
    pub plans: &'a mut Plans,
    pub out: &'a mut Outbox,
    pub situation: &'a Situation,
    pub now_us: u64,
}

/// ArduPilot's three protocol objects.
#[derive(Debug, Clone)]
pub(super) struct ArduPilotProtocol {
    system_id: u8,
    /// The upload under way per plan.
    uploads: [Option<upload::Upload>; 3],
    /// "got MISSION_ITEM" / "got MISSION_REQUEST" are said once.
    float_item_warned: bool,
    float_request_warned: bool,
}

impl ArduPilotProtocol {
    pub fn new(system_id: u8) -> Self {
        Self {
            system_id,
            uploads: [None, None, None],
            float_item_warned: false,
            float_request_warned: false,
        }
    }

    /// ArduPilot's routing: our system or broadcast, our component or any.
    fn for_us(&self, system: u8, component: u8) -> bool {
        (system == 0 || system == self.system_id) && (component == 0 || component == COMP_AUTOPILOT)
    }

    /// Takes a mission message from `from` on `link`.
    #[allow(deprecated)] // MISSION_ITEM and MISSION_REQUEST are deprecated; ArduPilot still takes them
    pub fn handle(&mut self, link: usize, from: Peer, message: &MavMessage, ctx: Ctx<'_>) {
        match message {
            MavMessage::MISSION_COUNT(c) if self.for_us(c.target_system, c.target_component) => {
                match PlanKind::from_mav(c.mission_type) {
                    Some(kind) => self.on_count(link, from, kind, c.count, ctx),
                    None => unsupported(link, from, c.mission_type, ctx.out),
                }
            }
            MavMessage::MISSION_ITEM_INT(d) => self.on_item(link, from, &Received::int(d), ctx),
            MavMessage::MISSION_ITEM(d) => {
                if !self.float_item_warned {
                    self.float_item_warned = true;
                    ctx.out.say(
                        mav::MavSeverity::MAV_SEVERITY_WARNING,
                        "got MISSION_ITEM; GCS should send MISSION_ITEM_INT",
                    );
                }
                self.on_item(link, from, &Received::float(d), ctx);
            }
            MavMessage::MISSION_REQUEST_LIST(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                match PlanKind::from_mav(r.mission_type) {
                    Some(kind) => self.on_request_list(link, from, kind, ctx),
                    None => unsupported(link, from, r.mission_type, ctx.out),
                }
            }
            MavMessage::MISSION_REQUEST_INT(r)
                if self.for_us(r.target_system, r.target_component) =>
            {
                if let Some(kind) = PlanKind::from_mav(r.mission_type) {
                    self.on_request(link, from, kind, r.seq, false, ctx);
                }
            }
            MavMessage::MISSION_REQUEST(r) if self.for_us(r.target_system, r.target_component) => {
                if let Some(kind) = PlanKind::from_mav(r.mission_type) {
                    self.on_request(link, from, kind, r.seq, true, ctx);
                }
            }
            MavMessage::MISSION_CLEAR_ALL(c)
                if self.for_us(c.target_system, c.target_component) =>
            {
                match PlanKind::from_mav(c.mission_type) {
                    Some(kind) => self.on_clear(link, from, kind, ctx),
                    None => unsupported(link, from, c.mission_type, ctx.out),
                }
            }
            // No ACK: a MISSION_CURRENT with the very seq tells the GCS it was taken.
            MavMessage::MISSION_SET_CURRENT(c)
                if self.for_us(c.target_system, c.target_component)
                    && usize::from(c.seq) < mission_count(ctx.plans, ctx.situation) =>
            {
                ctx.plans.set_current_seq(c.seq);
                let current = mission_current_with(ctx.plans, ctx.situation, c.seq);
                ctx.out.send(link, current);
            }
            // The final ACK of a download is "not used" (GCSC:4685-4687).
            _ => {}
        }
    }

    /// MISSION_CLEAR_ALL: cancels the sender's own upload (another's is DENIED), then clears.
    fn on_clear(&mut self, link: usize, from: Peer, kind: PlanKind, ctx: Ctx<'_>) {
        if !self.cancel_upload(link, from, kind, ctx.out) {
            return;
        }
        ctx.plans.clear(kind);
        ctx.out.changed(kind);
        ctx.out.send(
            link,
            messages::ack(
                from,
                kind.to_mav(),
                MavMissionResult::MAV_MISSION_ACCEPTED,
                0,
            ),
        );
    }

    /// When `step` next has something to do.
    pub fn next_deadline_us(&self) -> Option<u64> {
        self.uploads
            .iter()
            .flatten()
            .map(upload::Upload::deadline_us)
            .min()
    }

    /// MISSION_CURRENT as ArduPilot fills it (GCSC:691-730): `total` without home, no ids.
    pub fn mission_current(&self, plans: &Plans, situation: &Situation) -> MavMessage {
        mission_current_with(plans, situation, plans.current_seq())
    }
}

/// How many mission items ArduPilot counts: home and the uploaded ones (none before home
/// is known and nothing was uploaded).
fn mission_count(plans: &Plans, situation: &Situation) -> usize {
    let items = plans.count(PlanKind::Mission);
    if items == 0 && situation.home.is_none() {
        0
    } else {
        items + 1
    }
}

/// How many items `kind` counts on the wire.
fn wire_count(kind: PlanKind, plans: &Plans, situation: &Situation) -> usize {
    match kind {
        PlanKind::Mission => mission_count(plans, situation),
        _ => plans.count(kind),
    }
}

fn mission_current_with(plans: &Plans, situation: &Situation, seq: u16) -> MavMessage {
    let count = mission_count(plans, situation);
    MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
        seq,
        total: u16::try_from(count.saturating_sub(1)).unwrap_or(u16::MAX),
        // `present()`: more than home; a stopped mission is NOT_STARTED, never PAUSED.
        mission_state: match situation.progress {
            _ if count <= 1 => MissionState::MISSION_STATE_NO_MISSION,
            Progress::Active => MissionState::MISSION_STATE_ACTIVE,
            Progress::Complete => MissionState::MISSION_STATE_COMPLETE,
            Progress::Idle | Progress::Paused => MissionState::MISSION_STATE_NOT_STARTED,
        },
        mission_mode: u8::from(situation.mission_mode),
        mission_id: 0,
        fence_id: 0,
        rally_points_id: 0,
    })
}

/// MAV_MISSION_TYPE_ALL has no protocol object in ArduPilot: ACK 3.
fn unsupported(link: usize, to: Peer, mission_type: MavMissionType, out: &mut Outbox) {
    out.send(
        link,
        messages::ack(
            to,
            mission_type,
            MavMissionResult::MAV_MISSION_UNSUPPORTED,
            0,
        ),
    );
}
