//! What the mission server asks of the rest of the vehicle: messages to send, texts to say,
//! and news that a plan changed (the fence is then enforced anew).

use super::kind::PlanKind;
use crate::endpoint::codec::MavMessage;
use crate::endpoint::codec::mav::MavSeverity;

/// One thing for the vehicle to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A message on one link (replies go where the request came from).
    Send { link: usize, message: MavMessage },
    /// A message on every link (PX4's MISSION_CURRENT).
    Broadcast(MavMessage),
    /// A STATUSTEXT, said as the vehicle says its others.
    Say { severity: MavSeverity, text: String },
    /// A stored plan was replaced or cleared.
    Changed(PlanKind),
}

/// What one call produced; the machine drains it right after, so it stays small.
#[derive(Debug, Clone, Default)]
pub(super) struct Outbox {
    queue: std::collections::VecDeque<Output>,
}

impl Outbox {
    pub fn send(&mut self, link: usize, message: MavMessage) {
        self.queue.push_back(Output::Send { link, message });
    }

    pub fn broadcast(&mut self, message: MavMessage) {
        self.queue.push_back(Output::Broadcast(message));
    }

    pub fn say(&mut self, severity: MavSeverity, text: impl Into<String>) {
        self.queue.push_back(Output::Say {
            severity,
            text: text.into(),
        });
    }

    /// PX4's `send_statustext_critical`.
    pub fn critical(&mut self, text: impl Into<String>) {
        self.say(MavSeverity::MAV_SEVERITY_CRITICAL, text);
    }

    pub fn changed(&mut self, kind: PlanKind) {
        self.queue.push_back(Output::Changed(kind));
    }

    pub fn pop(&mut self) -> Option<Output> {
        self.queue.pop_front()
    }
}
