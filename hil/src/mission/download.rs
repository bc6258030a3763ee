//! Download: MISSION_REQUEST_LIST → MISSION_COUNT → MISSION_REQUEST_INT(seq) /
//! MISSION_ITEM_INT(seq), one at a time → our final MISSION_ACK.
//!
//! Strictly sequential with one request in flight: PX4 aborts a download that skips ahead
//! (MISSION-FACTS §1, "download item order"), and a retry repeats the same seq, which both
//! autopilots allow. ArduPilot's seq 0 is its home: reported apart from the plan.

use super::context::Ctx;
use super::error::{Awaited, MissionError, Operation};
use super::event::MissionEvent;
use super::item::MissionItem;
use super::kind::MissionKind;
use super::retry::RetryTimer;
use crate::dialect::{MavMessage, mav::MavMissionResult};
use crate::profile::Profile;

#[derive(Debug, Clone)]
enum Phase {
    Count,
    Items {
        total: u16,
        opaque_id: u32,
        items: Vec<MissionItem>,
    },
}

#[derive(Debug, Clone)]
pub(super) struct Download {
    kind: MissionKind,
    phase: Phase,
    timer: RetryTimer,
}

impl Download {
    pub(super) fn start(kind: MissionKind, now_us: u64, ctx: Ctx<'_>) -> Self {
        ctx.out.push(ctx.ends.request_list(kind));
        Self {
            kind,
            phase: Phase::Count,
            timer: RetryTimer::sent(now_us, ctx.timing.request_timeout_ms),
        }
    }

    pub(super) fn deadline_us(&self) -> u64 {
        self.timer.deadline_us()
    }

    pub(super) fn held_items(&self) -> usize {
        match &self.phase {
            Phase::Count => 0,
            Phase::Items { items, .. } => items.len(),
        }
    }

    pub(super) fn handle(
        &mut self,
        message: &MavMessage,
        now_us: u64,
        ctx: Ctx<'_>,
    ) -> Option<MissionEvent> {
        let kind = self.kind;
        match message {
            MavMessage::MISSION_COUNT(c)
                if c.mission_type == kind.to_mav()
                    && ctx.ends.for_us(c.target_system, c.target_component) =>
            {
                // A COUNT after the first is a crossed retry or ArduPilot's answer to a bad seq.
                if !matches!(self.phase, Phase::Count) {
                    return None;
                }
                if c.count > kind.cap() {
                    ctx.out
                        .push(ctx.ends.ack(kind, MavMissionResult::MAV_MISSION_NO_SPACE));
                    let why = MissionError::TooMany {
                        kind,
                        count: usize::from(c.count),
                        cap: kind.cap(),
                    };
                    return Some(MissionEvent::Failed { kind, why });
                }
                if c.count == 0 {
                    ctx.out
                        .push(ctx.ends.ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED));
                    return Some(downloaded(kind, ctx.profile, Vec::new(), c.opaque_id));
                }
                self.phase = Phase::Items {
                    total: c.count,
                    opaque_id: c.opaque_id,
                    items: Vec::with_capacity(usize::from(c.count)),
                };
                ctx.out.push(ctx.ends.request_int(kind, 0));
                self.timer = RetryTimer::sent(now_us, ctx.timing.item_timeout_ms);
                None
            }
            MavMessage::MISSION_ITEM_INT(d)
                if d.mission_type == kind.to_mav()
                    && ctx.ends.for_us(d.target_system, d.target_component) =>
            {
                let Phase::Items {
                    total,
                    opaque_id,
                    items,
                } = &mut self.phase
                else {
                    return None;
                };
                // Only the item asked for: a duplicate or a stray seq changes nothing.
                if usize::from(d.seq) != items.len() {
                    return None;
                }
                items.push(MissionItem::from_wire(d)?);
                let got = u16::try_from(items.len()).unwrap_or(u16::MAX);
                if got >= *total {
                    ctx.out
                        .push(ctx.ends.ack(kind, MavMissionResult::MAV_MISSION_ACCEPTED));
                    let items = std::mem::take(items);
                    return Some(downloaded(kind, ctx.profile, items, *opaque_id));
                }
                ctx.out.push(ctx.ends.request_int(kind, got));
                self.timer = RetryTimer::sent(now_us, ctx.timing.item_timeout_ms);
                None
            }
            MavMessage::MISSION_ACK(a)
                if a.mission_type == kind.to_mav()
                    && ctx.ends.for_us(a.target_system, a.target_component) =>
            {
                match a.mavtype {
                    // Nothing to accept mid-download; 13 is ArduPilot's "not that seq", and
                    // it answers with the item or a COUNT anyway.
                    MavMissionResult::MAV_MISSION_ACCEPTED
                    | MavMissionResult::MAV_MISSION_INVALID_SEQUENCE => None,
                    result => {
                        let (done, total) = self.progress();
                        let why = MissionError::Refused {
                            operation: Operation::Download,
                            kind,
                            result,
                            done,
                            total: total.unwrap_or(0),
                        };
                        Some(MissionEvent::Failed { kind, why })
                    }
                }
            }
            _ => None,
        }
    }

    /// Asks again, or gives up (telling the autopilot with ACK OPERATION_CANCELLED, as the
    /// spec's client does, so it stops waiting too).
    pub(super) fn handle_timeout(&mut self, now_us: u64, ctx: Ctx<'_>) -> Option<MissionEvent> {
        if !self.timer.expired(now_us) {
            return None;
        }
        let kind = self.kind;
        if self.timer.retry(now_us, ctx.timing.retries) {
            let again = match &self.phase {
                Phase::Count => ctx.ends.request_list(kind),
                Phase::Items { items, .. } => ctx
                    .ends
                    .request_int(kind, u16::try_from(items.len()).unwrap_or(u16::MAX)),
            };
            ctx.out.push(again);
            return None;
        }
        ctx.out.push(
            ctx.ends
                .ack(kind, MavMissionResult::MAV_MISSION_OPERATION_CANCELLED),
        );
        let (done, total) = self.progress();
        let awaited = match self.phase {
            Phase::Count => Awaited::Count,
            Phase::Items { .. } => Awaited::Item { seq: done },
        };
        let why = MissionError::TimedOut {
            operation: Operation::Download,
            kind,
            awaited,
            sends: self.timer.sends,
            done,
            total,
        };
        Some(MissionEvent::Failed { kind, why })
    }

    /// Items received, and the count announced (if it came).
    fn progress(&self) -> (u16, Option<u16>) {
        match &self.phase {
            Phase::Count => (0, None),
            Phase::Items { total, items, .. } => {
                (u16::try_from(items.len()).unwrap_or(u16::MAX), Some(*total))
            }
        }
    }
}

/// The finished plan; on an ArduPilot mission, seq 0 is its home (APM:499-504), not an item.
fn downloaded(
    kind: MissionKind,
    profile: Profile,
    mut items: Vec<MissionItem>,
    opaque_id: u32,
) -> MissionEvent {
    let home = (profile == Profile::ArduPilot && kind == MissionKind::Mission && !items.is_empty())
        .then(|| items.remove(0));
    MissionEvent::Downloaded {
        kind,
        items,
        home,
        opaque_id,
    }
}
