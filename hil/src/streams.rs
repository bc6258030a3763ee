//! Telemetry requests: SET_MESSAGE_INTERVAL for the messages the snapshot needs, and
//! REQUEST_MESSAGE for HOME_POSITION (repeated until home is known). Sent on connect and again
//! after the autopilot comes back, paced, without waiting for ACKs: a missing stream shows in
//! telemetry, and these must not hold up real commands. A stream that has not arrived is asked
//! for again every few seconds (ArduPilot streams nothing until asked, and a request can be
//! lost), for a while.

use crate::command::{CommandSpec, Target};
use crate::dialect::{MavMessage, id, mav};
use mav::MavCmd;
use std::collections::{BTreeSet, VecDeque};

/// Gap between two requests, so a slow serial link is not flooded.
const SPACING_US: u64 = 20_000;
/// How often HOME_POSITION is asked for until it arrives.
const HOME_RETRY_US: u64 = 2_000_000;
/// How often a stream that has not arrived is asked for again ...
const STREAM_RETRY_US: u64 = 3_000_000;
/// ... and how many times.
const STREAM_RETRIES: u32 = 20;

/// Pending telemetry requests.
#[derive(Debug, Clone, Default)]
pub struct StreamRequests {
    queue: VecDeque<CommandSpec>,
    next_us: u64,
    home_next_us: Option<u64>,
    /// The streams asked for, and which of them arrived.
    wanted: Vec<(u32, u32)>,
    arrived: BTreeSet<u32>,
    retry_at_us: u64,
    retries: u32,
}

impl StreamRequests {
    /// Queues the whole set for a (re)connected autopilot.
    pub fn reset(&mut self, now_us: u64, streams: &[(u32, u32)]) {
        self.queue.clear();
        self.wanted = streams.to_vec();
        self.arrived.clear();
        for (message, interval_us) in streams {
            self.queue
                .push_back(set_interval(*message, *interval_us as f32));
        }
        self.queue.push_back(request_message(id::AUTOPILOT_VERSION));
        self.next_us = now_us;
        self.home_next_us = Some(now_us);
        self.retry_at_us = now_us + STREAM_RETRY_US;
        self.retries = 0;
    }

    /// A message with id `message` arrived.
    pub fn seen(&mut self, message: u32) {
        if self.wanted.iter().any(|(m, _)| *m == message) {
            self.arrived.insert(message);
        }
    }

    /// Streams asked for that have not arrived yet (message ids).
    pub fn missing(&self) -> Vec<u32> {
        self.wanted
            .iter()
            .map(|(m, _)| *m)
            .filter(|m| !self.arrived.contains(m))
            .collect()
    }

    /// Whether the missing streams are due to be asked for again.
    fn retry_due(&self) -> bool {
        self.retries < STREAM_RETRIES && self.wanted.len() > self.arrived.len()
    }

    /// Also asks for these (message, interval µs) pairs: streams the autopilot sends unasked
    /// faster than needed.
    pub fn slow(&mut self, streams: &[(u32, u32)]) {
        for (message, interval_us) in streams {
            self.queue
                .push_back(set_interval(*message, *interval_us as f32));
        }
    }

    /// Also switches these messages off (interval -1): streams the autopilot sends unasked
    /// that the snapshot does not use. On a sped-up SITL they multiply and crowd the link
    /// until replies (COMMAND_ACKs) are lost with them.
    pub fn silence(&mut self, messages: &[u32]) {
        for message in messages {
            self.queue.push_back(set_interval(*message, -1.0));
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
        if self.queue.is_empty() && self.retry_due() && now_us >= self.retry_at_us {
            self.retries += 1;
            self.retry_at_us = now_us + STREAM_RETRY_US;
            for (message, interval_us) in &self.wanted {
                if !self.arrived.contains(message) {
                    self.queue
                        .push_back(set_interval(*message, *interval_us as f32));
                }
            }
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
        let queued = if !self.queue.is_empty() {
            Some(self.next_us)
        } else if self.retry_due() {
            Some(self.retry_at_us.max(self.next_us))
        } else {
            None
        };
        match (queued, self.home_next_us) {
            (Some(a), Some(b)) => Some(a.min(b.max(self.next_us))),
            (a, b) => a.or(b.map(|b| b.max(self.next_us))),
        }
    }
}

/// SET_MESSAGE_INTERVAL: every `interval_us` µs, or off at −1.
fn set_interval(message: u32, interval_us: f32) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL,
        [message as f32, interval_us, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
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
        assert_eq!(s.poll_timeout(), Some(3_000_000), "GPS_RAW_INT again later");
        assert_eq!(s.missing(), [id::GPS_RAW_INT]);
        let Some(MavMessage::COMMAND_LONG(again)) = s.poll_transmit(3_000_000, t) else {
            panic!()
        };
        assert_eq!((again.param1, again.param2), (24.0, 500_000.0));
        s.seen(id::GPS_RAW_INT);
        s.seen(id::ATTITUDE); // not asked for: ignored
        assert!(s.missing().is_empty());
        assert_eq!(s.poll_timeout(), None);
    }

    #[test]
    fn a_stream_that_never_comes_is_asked_for_a_limited_number_of_times() {
        let t = Target {
            system: 1,
            component: 1,
        };
        let mut s = StreamRequests::default();
        s.reset(0, &[(id::GPS_RAW_INT, 500_000)]);
        s.home_seen();
        let mut sent = 0;
        let mut now = 0;
        while let Some(at) = s.poll_timeout() {
            now = at.max(now);
            while s.poll_transmit(now, t).is_some() {
                sent += 1;
            }
            now += 1;
        }
        // The first request, AUTOPILOT_VERSION, then the retries.
        assert_eq!(sent, 2 + STREAM_RETRIES);
    }
}
