//! Clear: MISSION_CLEAR_ALL → MISSION_ACK, re-sent on silence (PX4 only logs "Busy" and
//! does not answer while another transfer runs).

use super::context::Ctx;
use super::error::{Awaited, MissionError, Operation};
use super::event::MissionEvent;
use super::kind::MissionKind;
use super::retry::RetryTimer;
use crate::dialect::{MavMessage, mav::MavMissionResult};

#[derive(Debug, Clone)]
pub(super) struct Clear {
    kind: MissionKind,
    timer: RetryTimer,
}

impl Clear {
    pub(super) fn start(kind: MissionKind, now_us: u64, ctx: Ctx<'_>) -> Self {
        ctx.out.push(ctx.ends.clear_all(kind));
        Self {
            kind,
            timer: RetryTimer::sent(now_us, ctx.timing.request_timeout_ms),
        }
    }

    pub(super) fn deadline_us(&self) -> u64 {
        self.timer.deadline_us()
    }

    pub(super) fn handle(&mut self, message: &MavMessage, ctx: Ctx<'_>) -> Option<MissionEvent> {
        let MavMessage::MISSION_ACK(a) = message else {
            return None;
        };
        let kind = self.kind;
        if a.mission_type != kind.to_mav() || !ctx.ends.for_us(a.target_system, a.target_component)
        {
            return None;
        }
        match a.mavtype {
            MavMissionResult::MAV_MISSION_ACCEPTED => Some(MissionEvent::Cleared { kind }),
            // ArduPilot's complaint about an item of an earlier upload, not about the clear.
            MavMissionResult::MAV_MISSION_INVALID_SEQUENCE => None,
            result => {
                let why = MissionError::Refused {
                    operation: Operation::Clear,
                    kind,
                    result,
                    done: 0,
                    total: 0,
                };
                Some(MissionEvent::Failed { kind, why })
            }
        }
    }

    pub(super) fn handle_timeout(&mut self, now_us: u64, ctx: Ctx<'_>) -> Option<MissionEvent> {
        if !self.timer.expired(now_us) {
            return None;
        }
        let kind = self.kind;
        if self.timer.retry(now_us, ctx.timing.retries) {
            ctx.out.push(ctx.ends.clear_all(kind));
            return None;
        }
        let why = MissionError::TimedOut {
            operation: Operation::Clear,
            kind,
            awaited: Awaited::Ack,
            sends: self.timer.sends,
            done: 0,
            total: None,
        };
        Some(MissionEvent::Failed { kind, why })
    }
}
