//! Two in-process peers — a [`Session`] and the fake autopilot — joined by byte queues on a
//! virtual clock, with drop and delay injection (MAVSDK-style system tests, no sockets).

use super::fake_px4::{FakeConfig, FakePx4};
use alpha3_core::command::Command;
use alpha3_hil::dialect::COMP_AUTOPILOT;
use alpha3_hil::session::{Event, ProcedureReport, Session, SessionConfig};
use alpha3_hil::wire::{Decoder, Encoder};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct Loopback {
    pub session: Session,
    pub fake: FakePx4,
    dec: Decoder,
    enc: Encoder,
    pub now_us: u64,
    /// Drop every n-th frame from the companion (0: none).
    pub drop_up_every: u64,
    /// Extra delay on frames from the autopilot, µs.
    pub delay_down_us: u64,
    up_count: u64,
    down: VecDeque<(u64, Vec<u8>)>,
    pub events: Vec<Event>,
}

impl Loopback {
    pub fn new(session: SessionConfig, fake: FakeConfig) -> Self {
        Self {
            session: Session::new(session, 0).unwrap(),
            enc: Encoder::new(fake.system_id, None),
            fake: FakePx4::new(fake),
            dec: Decoder::new(),
            now_us: 0,
            drop_up_every: 0,
            delay_down_us: 0,
            up_count: 0,
            down: VecDeque::new(),
            events: Vec::new(),
        }
    }

    /// One millisecond of both peers.
    pub fn step(&mut self) {
        self.now_us += 1000;
        let now = self.now_us;
        self.session.handle_timeout(now);
        let mut frame = Vec::new();
        while self.session.poll_transmit(now, &mut frame).is_some() {
            self.up_count += 1;
            if self.drop_up_every == 0 || !self.up_count.is_multiple_of(self.drop_up_every) {
                self.dec.push(&frame);
            }
            frame.clear();
        }
        while let Some(f) = self.dec.next(0) {
            let f = f.unwrap();
            self.fake.handle(now, f.header, f.message);
        }
        self.fake.step(now);
        while let Some(m) = self.fake.poll() {
            let mut bytes = Vec::new();
            self.enc.encode(COMP_AUTOPILOT, &m, 0, &mut bytes);
            self.down.push_back((now + self.delay_down_us, bytes));
        }
        while self.down.front().is_some_and(|(t, _)| *t <= now) {
            if let Some((_, bytes)) = self.down.pop_front() {
                self.session.handle_bytes(now, &bytes);
            }
        }
        while let Some(e) = self.session.poll_event() {
            self.events.push(e);
        }
    }

    /// Steps until `done` or `max_ms` pass; returns whether `done` happened.
    pub fn run_until(&mut self, max_ms: u64, mut done: impl FnMut(&Self) -> bool) -> bool {
        let end = self.now_us + max_ms * 1000;
        while self.now_us < end {
            self.step();
            if done(self) {
                return true;
            }
        }
        false
    }

    /// Runs `command` to its end.
    pub fn command(&mut self, command: &Command) -> ProcedureReport {
        let id = self.session.start_command(self.now_us, command).unwrap();
        let found = |events: &[Event]| {
            events.iter().find_map(|e| match e {
                Event::ProcedureDone(r) if r.id == id => Some(r.clone()),
                _ => None,
            })
        };
        assert!(
            self.run_until(120_000, |l| found(&l.events).is_some()),
            "{command:?} never finished"
        );
        found(&self.events).unwrap()
    }
}
