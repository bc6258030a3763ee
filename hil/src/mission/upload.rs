//! Upload: MISSION_COUNT → the autopilot asks for each item → MISSION_ITEM_INT → its
//! MISSION_ACK.
//!
//! The autopilot drives: it asks with MISSION_REQUEST_INT (PX4) or the deprecated
//! MISSION_REQUEST (ArduPilot always does), and both get MISSION_ITEM_INT. Any seq asked for
//! is answered, in any order, since the autopilot knows what it has. Silence re-sends what
//! was last sent; ArduPilot's ACK 13 (INVALID_SEQUENCE, e.g. for that re-send) is not the end.
//! When the final ACK is lost, PX4 re-ACKs the re-sent last item (MM:1096-1100) but ArduPilot
//! answers ACK 1 (GCSC:1017-1019): that is reported as refused, never as a success we could
//! not confirm; re-download to know.

use super::context::Ctx;
use super::error::{Awaited, MissionError, Operation};
use super::event::MissionEvent;
use super::item::MissionItem;
use super::kind::MissionKind;
use super::retry::RetryTimer;
use crate::dialect::{MavMessage, mav::MavMissionResult, mav::MavMissionType};

#[derive(Debug, Clone)]
pub(super) struct Upload {
    kind: MissionKind,
    /// In wire order, `seq` = index.
    items: Vec<MissionItem>,
    /// The seq last sent, to send again after silence.
    last_sent: Option<u16>,
    /// The highest seq asked for: the items below it are stored on the autopilot.
    highest: Option<u16>,
    timer: RetryTimer,
}

impl Upload {
    /// `items` are already numbered 0.. and of `kind`; their count is within the cap.
    pub(super) fn start(
        kind: MissionKind,
        items: Vec<MissionItem>,
        now_us: u64,
        ctx: Ctx<'_>,
    ) -> Self {
        let count = u16::try_from(items.len()).unwrap_or(u16::MAX);
        ctx.out.push(ctx.ends.count(kind, count));
        Self {
            kind,
            items,
            last_sent: None,
            highest: None,
            timer: RetryTimer::sent(now_us, ctx.timing.request_timeout_ms),
        }
    }

    pub(super) fn deadline_us(&self) -> u64 {
        self.timer.deadline_us()
    }

    pub(super) fn held_items(&self) -> usize {
        self.items.len()
    }

    pub(super) fn handle(
        &mut self,
        message: &MavMessage,
        now_us: u64,
        ctx: Ctx<'_>,
    ) -> Option<MissionEvent> {
        let kind = self.kind;
        let asked = asked_for(message);
        if let Some((seq, mission_type, system, component)) = asked {
            if mission_type != kind.to_mav() || !ctx.ends.for_us(system, component) {
                return None;
            }
            let item = self.items.get(usize::from(seq))?;
            ctx.out.push(MavMessage::MISSION_ITEM_INT(
                item.to_wire(ctx.ends.autopilot),
            ));
            self.last_sent = Some(seq);
            self.highest = Some(self.highest.map_or(seq, |h| h.max(seq)));
            self.timer = RetryTimer::sent(now_us, ctx.timing.request_timeout_ms);
            return None;
        }
        let MavMessage::MISSION_ACK(a) = message else {
            return None;
        };
        if a.mission_type != kind.to_mav() || !ctx.ends.for_us(a.target_system, a.target_component)
        {
            return None;
        }
        match a.mavtype {
            // Accepted only once the last item was asked for: an earlier ACK 0 is out of the
            // blue (or for someone else's transfer) and success cannot be claimed on it.
            MavMissionResult::MAV_MISSION_ACCEPTED => {
                self.all_asked().then_some(MissionEvent::Uploaded {
                    kind,
                    opaque_id: a.opaque_id,
                })
            }
            MavMissionResult::MAV_MISSION_INVALID_SEQUENCE => None,
            result => {
                let why = MissionError::Refused {
                    operation: Operation::Upload,
                    kind,
                    result,
                    done: self.done(),
                    total: self.total(),
                };
                Some(MissionEvent::Failed { kind, why })
            }
        }
    }

    /// Re-sends the COUNT or the last item, or gives up with ACK OPERATION_CANCELLED.
    pub(super) fn handle_timeout(&mut self, now_us: u64, ctx: Ctx<'_>) -> Option<MissionEvent> {
        if !self.timer.expired(now_us) {
            return None;
        }
        let kind = self.kind;
        if self.timer.retry(now_us, ctx.timing.retries) {
            let again = match self.last_sent.and_then(|s| self.items.get(usize::from(s))) {
                Some(item) => MavMessage::MISSION_ITEM_INT(item.to_wire(ctx.ends.autopilot)),
                None => ctx.ends.count(kind, self.total()),
            };
            ctx.out.push(again);
            return None;
        }
        ctx.out.push(
            ctx.ends
                .ack(kind, MavMissionResult::MAV_MISSION_OPERATION_CANCELLED),
        );
        let why = MissionError::TimedOut {
            operation: Operation::Upload,
            kind,
            awaited: Awaited::Request,
            sends: self.timer.sends,
            done: self.done(),
            total: Some(self.total()),
        };
        Some(MissionEvent::Failed { kind, why })
    }

    fn total(&self) -> u16 {
        u16::try_from(self.items.len()).unwrap_or(u16::MAX)
    }

    fn all_asked(&self) -> bool {
        self.items.is_empty() || self.highest.map(|h| h.saturating_add(1)) == Some(self.total())
    }

    /// Items the autopilot has stored: those below the highest seq it asked for.
    fn done(&self) -> u16 {
        self.highest.unwrap_or(0)
    }
}

/// `items` numbered for the wire: `seq` = position, `mission_type` = `kind`.
pub(super) fn numbered(
    kind: MissionKind,
    items: impl IntoIterator<Item = MissionItem>,
) -> Vec<MissionItem> {
    items
        .into_iter()
        .zip(0u16..)
        .map(|(item, seq)| MissionItem {
            seq,
            mission_type: kind,
            ..item
        })
        .collect()
}

/// (seq, mission_type, target system, target component) of a request for an item.
/// MISSION_REQUEST (40) is deprecated, but ArduPilot sends nothing else during an upload
/// (MIP:357-377) and the spec says it must still be answered.
#[allow(deprecated)]
fn asked_for(message: &MavMessage) -> Option<(u16, MavMissionType, u8, u8)> {
    match message {
        MavMessage::MISSION_REQUEST_INT(r) => {
            Some((r.seq, r.mission_type, r.target_system, r.target_component))
        }
        MavMessage::MISSION_REQUEST(r) => {
            Some((r.seq, r.mission_type, r.target_system, r.target_component))
        }
        _ => None,
    }
}
