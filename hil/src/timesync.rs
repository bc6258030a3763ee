//! TIMESYNC: round-trip time to the autopilot. We ask with `tc1 = 0, ts1 = our time`; the
//! autopilot answers with its time in `tc1` and our `ts1` back. Its own requests to us get the
//! same courtesy (PX4 uses them to estimate the companion's clock offset).

use crate::command::Target;
use crate::dialect::{MavHeader, MavMessage, mav};
use std::collections::VecDeque;

/// Requests older than this will not be answered any more.
const FORGET_US: u64 = 5_000_000;

/// What an incoming TIMESYNC meant.
#[derive(Debug, Clone, PartialEq)]
pub enum Sync {
    /// An answer to one of ours: the round trip, µs.
    RoundTrip(u64),
    /// A request to us, and our answer.
    Answer(mav::TIMESYNC_DATA),
    Ignored,
}

/// Periodic TIMESYNC requests and their answers.
#[derive(Debug, Clone)]
pub struct TimeSync {
    interval_us: u64,
    next_us: u64,
    pending: VecDeque<(i64, u64)>,
    counter: i64,
}

impl TimeSync {
    pub fn new(interval_ms: u64) -> Self {
        Self {
            interval_us: interval_ms.max(1) * 1000,
            next_us: 0,
            pending: VecDeque::new(),
            counter: 0,
        }
    }

    pub fn poll_transmit(&mut self, now_us: u64, target: Target) -> Option<MavMessage> {
        if now_us < self.next_us {
            return None;
        }
        self.next_us = now_us + self.interval_us;
        while self
            .pending
            .front()
            .is_some_and(|(_, t)| *t + FORGET_US < now_us)
        {
            self.pending.pop_front();
        }
        // Nanoseconds, made unique per request so answers cannot be confused.
        self.counter = (self.counter + 1) % 1000;
        let ts1 = (now_us as i64) * 1000 + self.counter + 1;
        self.pending.push_back((ts1, now_us));
        Some(MavMessage::TIMESYNC(mav::TIMESYNC_DATA {
            tc1: 0,
            ts1,
            target_system: target.system,
            target_component: target.component,
        }))
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        Some(self.next_us)
    }

    pub fn on_timesync(&mut self, now_us: u64, from: &MavHeader, m: &mav::TIMESYNC_DATA) -> Sync {
        if m.tc1 == 0 {
            return Sync::Answer(mav::TIMESYNC_DATA {
                tc1: (now_us as i64) * 1000,
                ts1: m.ts1,
                target_system: u8::try_from(from.system_id).unwrap_or(0),
                target_component: from.component_id,
            });
        }
        match self.pending.iter().position(|(ts1, _)| *ts1 == m.ts1) {
            Some(i) => {
                let sent = self.pending[i].1;
                // Older requests were lost or overtaken; drop them with this one.
                self.pending.drain(..=i);
                Sync::RoundTrip(now_us.saturating_sub(sent))
            }
            None => Sync::Ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AP: Target = Target {
        system: 1,
        component: 1,
    };
    const FROM: MavHeader = MavHeader {
        system_id: 1,
        component_id: 1,
        sequence: 0,
    };

    #[test]
    fn answers_give_round_trips_and_requests_get_answers() {
        let mut t = TimeSync::new(250);
        let Some(MavMessage::TIMESYNC(req)) = t.poll_transmit(1_000, AP) else {
            panic!()
        };
        assert_eq!(req.tc1, 0);
        assert!(t.poll_transmit(1_100, AP).is_none());
        let answer = mav::TIMESYNC_DATA {
            tc1: 42,
            ts1: req.ts1,
            ..Default::default()
        };
        assert_eq!(t.on_timesync(4_500, &FROM, &answer), Sync::RoundTrip(3_500));
        assert_eq!(
            t.on_timesync(4_600, &FROM, &answer),
            Sync::Ignored,
            "only once"
        );
        let theirs = mav::TIMESYNC_DATA {
            tc1: 0,
            ts1: 777,
            ..Default::default()
        };
        let Sync::Answer(a) = t.on_timesync(5_000, &FROM, &theirs) else {
            panic!()
        };
        assert_eq!((a.tc1, a.ts1, a.target_system), (5_000_000, 777, 1));
    }
}
