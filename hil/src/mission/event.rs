//! What the client tells its caller: transfer outcomes and news about the autopilot's plans.

use super::error::MissionError;
use super::item::MissionItem;
use super::kind::MissionKind;
use std::collections::VecDeque;

/// One thing that happened, drained with `MissionClient::poll_event`.
#[derive(Debug, Clone, PartialEq)]
pub enum MissionEvent {
    /// The whole plan arrived. `home` is ArduPilot's seq 0 (its home, not a plan item), so
    /// `items` are the plan alone and keep their wire `seq` (1.. on ArduPilot, 0.. on PX4).
    /// `opaque_id` is PX4's plan CRC from MISSION_COUNT (0 on ArduPilot and when empty).
    Downloaded {
        kind: MissionKind,
        items: Vec<MissionItem>,
        home: Option<MissionItem>,
        opaque_id: u32,
    },
    /// The autopilot accepted every item. PX4's ACK 0 is not "flyable": its feasibility check
    /// runs afterwards (watch MISSION_CURRENT's state).
    Uploaded {
        kind: MissionKind,
        opaque_id: u32,
    },
    Cleared {
        kind: MissionKind,
    },
    /// The transfer ended without success; `why` says how far it got.
    Failed {
        kind: MissionKind,
        why: MissionError,
    },
    /// MISSION_CURRENT carries a plan id (PX4's CRC) other than the one last known: someone
    /// else changed the plan, so a copy held here is stale.
    PlanChanged {
        kind: MissionKind,
    },
    /// MISSION_ITEM_REACHED for a new `seq` (PX4 repeats it up to 10 times; told once).
    Reached {
        seq: u16,
    },
}

impl MissionEvent {
    /// Whether this ends a transfer (rather than being news about the plans).
    pub fn is_outcome(&self) -> bool {
        matches!(
            self,
            MissionEvent::Downloaded { .. }
                | MissionEvent::Uploaded { .. }
                | MissionEvent::Cleared { .. }
                | MissionEvent::Failed { .. }
        )
    }
}

/// Events not yet drained. News is coalesced (one `PlanChanged` per kind, the latest
/// `Reached`), so a chatty or hostile autopilot cannot grow it; only transfer outcomes, which
/// the caller starts, add up.
#[derive(Debug, Clone, Default)]
pub(super) struct Events {
    queue: VecDeque<MissionEvent>,
}

impl Events {
    pub(super) fn push(&mut self, event: MissionEvent) {
        match &event {
            MissionEvent::PlanChanged { kind } => {
                let queued = self
                    .queue
                    .iter()
                    .any(|e| matches!(e, MissionEvent::PlanChanged { kind: k } if k == kind));
                if queued {
                    return;
                }
            }
            MissionEvent::Reached { .. } => {
                self.queue
                    .retain(|e| !matches!(e, MissionEvent::Reached { .. }));
            }
            _ => {}
        }
        self.queue.push_back(event);
    }

    pub(super) fn pop(&mut self) -> Option<MissionEvent> {
        self.queue.pop_front()
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }
}
