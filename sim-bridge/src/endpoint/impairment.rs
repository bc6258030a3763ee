//! Link impairment between the vehicle and its peer: delay, jitter, loss and bandwidth applied
//! to real frames, one [`Pipe`] per direction. Sans-IO: time is an argument, randomness is a
//! seeded stream, so the same traffic meets the same fate.
//!
//! Each frame is a datagram (PX4 and `hil` send one MAVLink frame per UDP datagram; on a serial
//! line the endpoint applies the same model frame by frame). A frame is lost with probability
//! `loss_pct`, waits for the link to be free (`bandwidth_bps`: serialisation time, drop-tail
//! beyond [`MAX_QUEUE_MS`] of backlog), then travels `delay_ms` plus a Gaussian jitter. Frames
//! never overtake each other (one path, as on a radio bearer), so heavy jitter on a dense
//! stream shows partly as extra delay.

use super::EndpointError;
use crate::rng::SimRng;
use alpha3_core::link::LinkSample;
use std::collections::VecDeque;

/// A frame that would wait longer than this for the link is dropped (drop-tail queue).
pub const MAX_QUEUE_MS: f64 = 1000.0;

/// What one direction of a link does to frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpairmentSpec {
    /// One-way delay, milliseconds.
    pub delay_ms: f64,
    /// Mean absolute difference between two frames' delays, milliseconds (RFC 3550's jitter
    /// before smoothing). The delay noise is Gaussian with σ = jitter·√π/2.
    pub jitter_ms: f64,
    /// Frames lost at random, percent.
    pub loss_pct: f64,
    /// Capacity in bits per second; `None` is unlimited.
    pub bandwidth_bps: Option<f64>,
}

impl ImpairmentSpec {
    /// A fixed delay and random loss, no jitter, unlimited bandwidth.
    pub fn delay_loss(delay_ms: f64, loss_pct: f64) -> Self {
        Self {
            delay_ms,
            jitter_ms: 0.0,
            loss_pct,
            bandwidth_bps: None,
        }
    }

    /// What the world's network model measured: one-way latency, jitter, loss, throughput.
    pub fn from_sample(s: &LinkSample) -> Self {
        Self {
            delay_ms: s.lat_ms.max(0.0),
            jitter_ms: s.jitter_ms.max(0.0),
            loss_pct: s.loss_pct.clamp(0.0, 100.0),
            bandwidth_bps: (s.throughput_mbps > 0.0).then_some(s.throughput_mbps * 1e6),
        }
    }

    pub fn check(&self) -> Result<(), EndpointError> {
        let ok = self.delay_ms.is_finite()
            && self.delay_ms >= 0.0
            && self.jitter_ms.is_finite()
            && self.jitter_ms >= 0.0
            && (0.0..=100.0).contains(&self.loss_pct)
            && self.bandwidth_bps.is_none_or(|b| b.is_finite() && b > 0.0);
        if ok {
            Ok(())
        } else {
            Err(EndpointError::Config(format!(
                "impairment out of range: {self:?}"
            )))
        }
    }
}

/// Where a link's impairment comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Impairment {
    /// Frames pass at once.
    None,
    /// The same in both directions, for tests and experiments.
    Fixed(ImpairmentSpec),
    /// The world's network model (slice, radio state, loss windows), sampled every
    /// `refresh_ms` with `World::link_sample` and applied in both directions.
    World { refresh_ms: u64 },
}

impl Impairment {
    pub fn check(&self) -> Result<(), EndpointError> {
        match self {
            Impairment::None => Ok(()),
            Impairment::Fixed(s) => s.check(),
            Impairment::World { refresh_ms } if *refresh_ms == 0 => Err(EndpointError::Config(
                "a world-driven impairment needs refresh_ms > 0".into(),
            )),
            Impairment::World { .. } => Ok(()),
        }
    }

    /// The spec a pipe starts with (a world-driven one starts clear until the first sample).
    pub fn initial_spec(&self) -> Option<ImpairmentSpec> {
        match self {
            Impairment::Fixed(s) => Some(*s),
            Impairment::None | Impairment::World { .. } => None,
        }
    }
}

/// What happened to the frames offered to a pipe.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PipeStats {
    pub offered: u64,
    /// Lost at random.
    pub lost: u64,
    /// Dropped because the link was too busy.
    pub overflowed: u64,
}

/// One direction of an impaired link: frames in, frames out when they are due.
#[derive(Debug, Clone)]
pub struct Pipe<T> {
    spec: Option<ImpairmentSpec>,
    rng: SimRng,
    queue: VecDeque<(u64, T)>,
    busy_until_us: u64,
    last_due_us: u64,
    stats: PipeStats,
}

impl<T> Pipe<T> {
    /// A pipe with `spec` (`None`: pass-through) drawing from `rng`.
    pub fn new(spec: Option<ImpairmentSpec>, rng: SimRng) -> Self {
        Self {
            spec,
            rng,
            queue: VecDeque::new(),
            busy_until_us: 0,
            last_due_us: 0,
            stats: PipeStats::default(),
        }
    }

    /// Changes the impairment for frames offered from now on.
    pub fn set_spec(&mut self, spec: Option<ImpairmentSpec>) {
        self.spec = spec;
    }

    pub fn spec(&self) -> Option<ImpairmentSpec> {
        self.spec
    }

    pub fn stats(&self) -> PipeStats {
        self.stats
    }

    /// Offers a frame of `bytes` bytes at `now_us`; `false` when it is dropped.
    pub fn push(&mut self, now_us: u64, item: T, bytes: usize) -> bool {
        self.stats.offered += 1;
        let Some(spec) = self.spec else {
            let due = now_us.max(self.last_due_us);
            self.last_due_us = due;
            self.queue.push_back((due, item));
            return true;
        };
        if spec.loss_pct > 0.0 && self.rng.chance(spec.loss_pct / 100.0) {
            self.stats.lost += 1;
            return false;
        }
        let mut sent_us = now_us;
        if let Some(bps) = spec.bandwidth_bps {
            let start = now_us.max(self.busy_until_us);
            if (start - now_us) as f64 > MAX_QUEUE_MS * 1000.0 {
                self.stats.overflowed += 1;
                return false;
            }
            let tx_us = (bytes as f64 * 8.0 / bps * 1e6).ceil() as u64;
            self.busy_until_us = start + tx_us;
            sent_us = self.busy_until_us;
        }
        let sigma = spec.jitter_ms * std::f64::consts::PI.sqrt() / 2.0;
        let delay_ms = (spec.delay_ms + sigma * self.rng.normal()).max(0.0);
        let due = (sent_us + (delay_ms * 1000.0).round() as u64).max(self.last_due_us);
        self.last_due_us = due;
        self.queue.push_back((due, item));
        true
    }

    /// The next frame due at `now_us`, in the order they were offered.
    pub fn pop_due(&mut self, now_us: u64) -> Option<T> {
        if self.queue.front().is_some_and(|(due, _)| *due <= now_us) {
            self.queue.pop_front().map(|(_, item)| item)
        } else {
            None
        }
    }

    /// When the next frame falls due.
    pub fn next_due_us(&self) -> Option<u64> {
        self.queue.front().map(|(due, _)| *due)
    }

    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe(spec: ImpairmentSpec) -> Pipe<u32> {
        Pipe::new(Some(spec), SimRng::stream(7, "test.pipe"))
    }

    #[test]
    fn a_fixed_delay_holds_every_frame_that_long_in_order() {
        let mut p = pipe(ImpairmentSpec::delay_loss(30.0, 0.0));
        for i in 0..10 {
            assert!(p.push(i * 1000, i as u32, 50));
        }
        assert_eq!(p.pop_due(29_999), None);
        assert_eq!(p.pop_due(30_000), Some(0));
        assert_eq!(p.pop_due(30_500), None);
        assert_eq!(p.next_due_us(), Some(31_000));
        let rest: Vec<u32> = std::iter::from_fn(|| p.pop_due(40_000)).collect();
        assert_eq!(rest, (1..10).collect::<Vec<_>>());
    }

    #[test]
    fn loss_matches_the_configured_rate() {
        let mut p = pipe(ImpairmentSpec::delay_loss(0.0, 2.0));
        let n = 100_000;
        let passed = (0..n).filter(|i| p.push(*i, 0, 40)).count();
        let loss = 100.0 * (n as usize - passed) as f64 / n as f64;
        // σ of the estimate is 0.044 %: 0.2 % is more than 4σ.
        assert!((loss - 2.0).abs() < 0.2, "{loss}");
        assert_eq!(p.stats().lost as usize, n as usize - passed);
    }

    #[test]
    fn bandwidth_serialises_frames_and_drops_beyond_the_queue_limit() {
        // 8 kbit/s: a 100-byte frame takes 100 ms on the link.
        let spec = ImpairmentSpec {
            bandwidth_bps: Some(8000.0),
            ..ImpairmentSpec::delay_loss(10.0, 0.0)
        };
        let mut p = pipe(spec);
        for i in 0..3 {
            assert!(p.push(0, i, 100));
        }
        assert_eq!(p.pop_due(109_999), None);
        assert_eq!(p.pop_due(110_000), Some(0));
        assert_eq!(p.pop_due(210_000), Some(1));
        assert_eq!(p.pop_due(310_000), Some(2));
        // Eleven more at once: the backlog passes a second and the tail is dropped.
        let kept = (0..12).filter(|_| p.push(400_000, 9, 100)).count();
        assert_eq!(kept, 11);
        assert_eq!(p.stats().overflowed, 1);
    }

    #[test]
    fn jitter_spreads_delays_without_reordering() {
        let spec = ImpairmentSpec {
            jitter_ms: 5.0,
            ..ImpairmentSpec::delay_loss(50.0, 0.0)
        };
        let mut p = pipe(spec);
        // Sparse frames (1 s apart) keep their own delays.
        let mut delays = Vec::new();
        for i in 0..2000u64 {
            p.push(i * 1_000_000, 0, 40);
            delays.push(p.next_due_us().unwrap() as f64 / 1000.0 - (i * 1000) as f64);
            p.pop_due(u64::MAX);
        }
        let mean = delays.iter().sum::<f64>() / delays.len() as f64;
        let mad =
            delays.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (delays.len() - 1) as f64;
        assert!((mean - 50.0).abs() < 0.5, "{mean}");
        assert!((mad - 5.0).abs() < 0.5, "{mad}");
        // Dense frames come out in order.
        let mut last = 0;
        for i in 0..1000u32 {
            p.push(3_000_000_000 + u64::from(i) * 100, i, 40);
        }
        while let Some(i) = p.pop_due(u64::MAX) {
            assert!(i >= last);
            last = i;
        }
    }

    #[test]
    fn a_world_sample_becomes_a_spec_and_bad_specs_are_refused() {
        let s = LinkSample {
            slice: alpha3_core::link::Slice::Urllc,
            lat_ms: 7.0,
            jitter_ms: 1.5,
            loss_pct: 100.0,
            throughput_mbps: 0.0,
            edge_load: 0.2,
        };
        let spec = ImpairmentSpec::from_sample(&s);
        assert_eq!((spec.delay_ms, spec.loss_pct), (7.0, 100.0));
        assert_eq!(spec.bandwidth_bps, None);
        assert!(ImpairmentSpec::delay_loss(-1.0, 0.0).check().is_err());
        assert!(ImpairmentSpec::delay_loss(1.0, 101.0).check().is_err());
        assert!(Impairment::World { refresh_ms: 0 }.check().is_err());
    }
}
