//! Telemetry requests: SET_MESSAGE_INTERVAL for the messages the snapshot needs, and
//! REQUEST_MESSAGE for HOME_POSITION (repeated until home is known). Sent on connect and again
//! after the autopilot comes back, paced, without waiting for ACKs: a missing stream shows in
//! telemetry, and these must not hold up real commands.

use crate::command::{CommandSpec, Target};
use crate::dialect::{MavMessage, id, mav};
use mav::MavCmd;
use std::collections::VecDeque;

/// Gap between two requests, so a slow serial link is not flooded.
const SPACING_US: u64 = 20_000;
/// How often HOME_POSITION is asked for until it arrives.
const HOME_RETRY_US: u64 = 2_000_000;

/// Pending telemetry requests.
#[derive(Debug, Clone, Default)]
pub struct StreamRequests {
    queue: VecDeque<CommandSpec>,
    next_us: u64,
    home_next_us: Option<u64>,
}

impl StreamRequests {
    /// Queues the whole set for a (re)connected autopilot.
    pub fn reset(&mut self, now_us: u64, streams: &[(u32, u32)]) {
        self.queue.clear();
        for (message, interval_us) in streams {
            self.queue.push_back(CommandSpec::long(
                MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL,
                [
                    *message as f32,
                    *interval_us as f32,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ],
            ));
        }
        self.queue.push_back(request_message(id::AUTOPILOT_VERSION));
        self.next_us = now_us;
        self.home_next_us = Some(now_us);
    }

    /// Also asks for these (message, interval µs) pairs: streams the autopilot sends unasked
    /// faster than needed.
    pub fn slow(&mut self, streams: &[(u32, u32)]) {
        for (message, interval_us) in streams {
            self.queue.push_back(CommandSpec::long(
                MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL,
                [
                    *message as f32,
                    *interval_us as f32,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ],
            ));
        }
    }

    /// Also switches these messages off (interval -1): streams the autopilot sends unasked
    /// that the snapshot does not use. On a sped-up SITL they multiply and crowd the link
    /// until replies (COMMAND_ACKs) are lost with them.
    pub fn silence(&mut self, messages: &[u32]) {
        for message in messages {
            self.queue.push_back(CommandSpec::long(
                MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL,
                [*message as f32, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ));
        }
    }

    /// Stops asking for home once it is known.
    pub fn home_seen(&mut self) {
        self.home_next_us = None;
    }

    pub fn poll_transmit(&mut self, now_us: u64, target: Target) -> Option<MavMessage> {
        if now_us < self.next_us {
            return None;
        }
        let spec = match self.home_next_us {
            Some(t) if t <= now_us => {
                self.home_next_us = Some(now_us + HOME_RETRY_US);
                request_message(id::HOME_POSITION)
            }
            _ => self.queue.pop_front()?,
        };
        self.next_us = now_us + SPACING_US;
        Some(spec.to_message(target, 0))
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        let queued = (!self.queue.is_empty()).then_some(self.next_us);
        match (queued, self.home_next_us) {
            (Some(a), Some(b)) => Some(a.min(b.max(self.next_us))),
            (a, b) => a.or(b.map(|b| b.max(self.next_us))),
        }
    }
}

fn request_message(message: u32) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_REQUEST_MESSAGE,
        [message as f32, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_home_first_then_streams_paced() {
        let t = Target {
            system: 1,
            component: 1,
        };
        let mut s = StreamRequests::default();
        s.reset(0, &[(id::GPS_RAW_INT, 500_000)]);
        let Some(MavMessage::COMMAND_LONG(home)) = s.poll_transmit(0, t) else {
            panic!()
        };
        assert_eq!(home.command, MavCmd::MAV_CMD_REQUEST_MESSAGE);
        assert_eq!(home.param1, 242.0);
        assert!(s.poll_transmit(10_000, t).is_none(), "paced");
        let Some(MavMessage::COMMAND_LONG(gps)) = s.poll_transmit(20_000, t) else {
            panic!()
        };
        assert_eq!((gps.param1, gps.param2), (24.0, 500_000.0));
        s.poll_transmit(40_000, t).unwrap(); // AUTOPILOT_VERSION
        assert_eq!(s.poll_timeout(), Some(2_000_000), "home again later");
        s.home_seen();
        assert_eq!(s.poll_timeout(), None);
    }
}
