//! Frames waiting for the caller's `poll_transmit`, bounded so a flood of requests from the
//! autopilot cannot grow memory when the caller polls late.

use crate::dialect::MavMessage;
use std::collections::VecDeque;

/// The most frames held; past it the oldest is dropped (the autopilot asks again, the client
/// re-sends on its timer).
pub const MAX_OUTBOX: usize = 16;

#[derive(Debug, Clone, Default)]
pub(super) struct Outbox {
    queue: VecDeque<MavMessage>,
}

impl Outbox {
    pub(super) fn push(&mut self, message: MavMessage) {
        if self.queue.len() >= MAX_OUTBOX {
            self.queue.pop_front();
        }
        self.queue.push_back(message);
    }

    pub(super) fn pop(&mut self) -> Option<MavMessage> {
        self.queue.pop_front()
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }
}
