//! Frames and wake-up times out.

use super::Session;
use crate::dialect::MavMessage;
use crate::mission::MissionClient;

impl Session {
    /// Encodes the next frame due at `now_us` into `out` (appended); returns its length, or
    /// `None` when nothing is due. Call until `None` after every input.
    pub fn poll_transmit(&mut self, now_us: u64, out: &mut Vec<u8>) -> Option<usize> {
        let component = self.cfg.component_id;
        let (from, message) = match self.next_message(now_us) {
            Some(m) => (component, m),
            None => self.heartbeats.poll_transmit(now_us)?,
        };
        let len = self
            .encoder
            .encode(from, &message, self.signing_now(now_us), out);
        self.stats.on_tx(now_us, len);
        Some(len)
    }

    /// Messages in priority order: answers and procedure sends, commands, setpoints, then the
    /// periodic services (which need a known autopilot).
    fn next_message(&mut self, now_us: u64) -> Option<MavMessage> {
        if let Some(m) = self.outbox.pop_front() {
            return Some(m);
        }
        if let Some(m) = self.commands.poll_transmit(now_us) {
            return Some(m);
        }
        if let Some(m) = self.missions.as_mut().and_then(|m| m.poll_transmit()) {
            return Some(m);
        }
        if let Some(m) = self.stream.poll_transmit(now_us) {
            return Some(m);
        }
        let target = self.target?;
        if let Some(m) = self.timesync.poll_transmit(now_us, target) {
            return Some(m);
        }
        if let Some(m) = self.params.poll_transmit(now_us, target) {
            return Some(m);
        }
        if let Some(m) = self.requests.poll_transmit(now_us, target) {
            return Some(m);
        }
        let probing = self.probing_readiness();
        self.probe.poll_transmit(now_us, probing, target)
    }

    /// The next time [`handle_timeout`](Self::handle_timeout) and
    /// [`poll_transmit`](Self::poll_transmit) have work, µs.
    pub fn poll_timeout(&self) -> Option<u64> {
        let mut t = [
            self.heartbeats.poll_timeout(),
            self.commands.poll_timeout(),
            self.stream.poll_timeout(),
            self.procedure.as_ref().and_then(|p| p.poll_timeout()),
            self.missions.as_ref().and_then(MissionClient::poll_timeout),
        ]
        .into_iter()
        .flatten()
        .min();
        if self.target.is_some() {
            let services = [
                self.timesync.poll_timeout(),
                self.params.poll_timeout(),
                self.requests.poll_timeout(),
                self.probe.poll_timeout(self.probing_readiness()),
            ];
            t = t.into_iter().chain(services.into_iter().flatten()).min();
        }
        let mission_frames = self.missions.as_ref().is_some_and(|m| m.queued().0 > 0);
        if !self.outbox.is_empty() || mission_frames {
            return Some(0);
        }
        t
    }
}
