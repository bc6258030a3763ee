//! MISSION_CURRENT and MISSION_ITEM_REACHED: where the autopilot is in its mission, and
//! whether its plans changed under us.
//!
//! PX4 sends MISSION_CURRENT at 1 Hz with `mission_id`/`fence_id`/`rally_points_id`, the CRCs
//! of its plans (0 when empty); a change means someone else uploaded, so a downloaded copy is
//! stale (MISSION-FACTS §7). ArduPilot's dialect has no ids (they decode as 0), so it never
//! reports a change this way.

use super::event::{Events, MissionEvent};
use super::kind::MissionKind;
use crate::dialect::mav::{self, MissionState};

/// The autopilot's last MISSION_CURRENT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissionCurrent {
    /// The item being flown (ArduPilot: the current nav index, home counted).
    pub seq: u16,
    /// PX4: item count or 65535 when none; ArduPilot: count − 1 (home left out).
    pub total: u16,
    pub state: MissionState,
    /// 1 while the autopilot flies the mission; PX4 2, ArduPilot 0 otherwise.
    pub mode: u8,
    pub mission_id: u32,
    pub fence_id: u32,
    pub rally_points_id: u32,
}

#[derive(Debug, Clone, Default)]
pub(super) struct PlanWatch {
    current: Option<MissionCurrent>,
    /// The id last known per kind (from MISSION_CURRENT, or our own transfer's ACK/COUNT).
    ids: [Option<u32>; 3],
    reached: Option<u16>,
}

impl PlanWatch {
    pub(super) fn current(&self) -> Option<&MissionCurrent> {
        self.current.as_ref()
    }

    pub(super) fn plan_id(&self, kind: MissionKind) -> Option<u32> {
        self.ids[kind.index()]
    }

    /// Our own transfer established the plan's id: not a change by someone else.
    pub(super) fn learn(&mut self, kind: MissionKind, id: u32) {
        self.ids[kind.index()] = Some(id);
    }

    /// Takes a MISSION_CURRENT. A kind being transferred now only learns the new id: the
    /// change is ours, and its ACK may arrive after this report.
    pub(super) fn on_current(
        &mut self,
        c: &mav::MISSION_CURRENT_DATA,
        transferring: Option<MissionKind>,
        events: &mut Events,
    ) {
        self.current = Some(MissionCurrent {
            seq: c.seq,
            total: c.total,
            state: c.mission_state,
            mode: c.mission_mode,
            mission_id: c.mission_id,
            fence_id: c.fence_id,
            rally_points_id: c.rally_points_id,
        });
        let seen = [c.mission_id, c.fence_id, c.rally_points_id];
        for kind in MissionKind::ALL {
            let id = seen[kind.index()];
            let known = self.ids[kind.index()].replace(id);
            if known.is_some_and(|k| k != id) && transferring != Some(kind) {
                events.push(MissionEvent::PlanChanged { kind });
            }
        }
    }

    pub(super) fn on_reached(&mut self, seq: u16, events: &mut Events) {
        if self.reached.replace(seq) != Some(seq) {
            events.push(MissionEvent::Reached { seq });
        }
    }
}
