//! A simulated link between a client and a fake autopilot: instant delivery, a drop rule,
//! a log of every frame, and a clock that jumps to the next deadline.

use super::FakeAutopilot;
use crate::dialect::MavMessage;
use crate::mission::{MissionClient, MissionEvent};

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Client → autopilot.
    Up,
    /// Autopilot → client.
    Down,
}

type DropRule = Box<dyn FnMut(Dir, &MavMessage) -> bool>;

/// Runs both ends until the client reports an event.
pub struct Link {
    pub now_us: u64,
    /// Every frame sent: (time, direction, frame, dropped).
    pub log: Vec<(u64, Dir, MavMessage, bool)>,
    drop: DropRule,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("now_us", &self.now_us)
            .field("frames", &self.log.len())
            .finish()
    }
}

impl Default for Link {
    fn default() -> Self {
        Self::lossless()
    }
}

impl Link {
    pub fn lossless() -> Self {
        Self::dropping(|_, _| false)
    }

    /// A link that loses each frame `rule` returns `true` for.
    pub fn dropping(rule: impl FnMut(Dir, &MavMessage) -> bool + 'static) -> Self {
        Self {
            now_us: 0,
            log: Vec::new(),
            drop: Box::new(rule),
        }
    }

    /// Exchanges frames and advances time until the client has an event, both ends are idle,
    /// or `limit_us` passes.
    pub fn run(
        &mut self,
        client: &mut MissionClient,
        autopilot: &mut dyn FakeAutopilot,
        limit_us: u64,
    ) -> Option<MissionEvent> {
        loop {
            self.exchange(client, autopilot);
            if let Some(event) = client.poll_event() {
                return Some(event);
            }
            let next = [client.poll_timeout(), autopilot.poll_timeout()]
                .into_iter()
                .flatten()
                .min()?;
            if next > limit_us {
                return None;
            }
            self.now_us = self.now_us.max(next);
            client.handle_timeout(self.now_us);
            autopilot.handle_timeout(self.now_us);
        }
    }

    /// Delivers frames both ways until neither end has one to send.
    pub fn exchange(&mut self, client: &mut MissionClient, autopilot: &mut dyn FakeAutopilot) {
        loop {
            let mut moved = false;
            while let Some(m) = client.poll_transmit() {
                moved = true;
                if !self.carry(Dir::Up, &m) {
                    autopilot.handle(&m, self.now_us);
                }
            }
            while let Some(m) = autopilot.poll_transmit() {
                moved = true;
                if !self.carry(Dir::Down, &m) {
                    client.handle(&m, self.now_us);
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// Frames sent one way that `pick` matches (dropped ones included).
    pub fn sent(&self, dir: Dir, pick: impl Fn(&MavMessage) -> bool) -> Vec<(u64, &MavMessage)> {
        self.log
            .iter()
            .filter(|(_, d, m, _)| *d == dir && pick(m))
            .map(|(t, _, m, _)| (*t, m))
            .collect()
    }

    /// Logs the frame; `true` when the link loses it.
    fn carry(&mut self, dir: Dir, message: &MavMessage) -> bool {
        let lost = (self.drop)(dir, message);
        self.log.push((self.now_us, dir, message.clone(), lost));
        lost
    }
}
