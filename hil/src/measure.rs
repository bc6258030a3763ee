//! Link measurements for the link monitor and the slice policy: round-trip time (TIMESYNC),
//! jitter, loss from sequence gaps, carried throughput and heartbeat age, over a sliding window.
//! The numbers are what the link did, measured; nothing here is modelled.

use alpha3_core::link::{LinkSample, Slice};
use std::collections::{HashMap, VecDeque};

/// One slice of the window.
#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    start_us: u64,
    rx_frames: u64,
    lost: u64,
    rx_bytes: u64,
    tx_bytes: u64,
}

/// What was measured over the last window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkMeasurement {
    pub window_ms: u64,
    /// Mean TIMESYNC round trip over the window.
    pub rtt_ms: Option<f64>,
    /// Mean absolute change between consecutive one-way latencies (RFC 3550 style, unsmoothed).
    pub jitter_ms: Option<f64>,
    /// Frames missing from the senders' sequence numbers, percent of those expected.
    pub loss_pct: f64,
    pub rx_msgs_per_s: f64,
    pub rx_bytes_per_s: f64,
    pub tx_bytes_per_s: f64,
    /// Bytes both ways, as megabits per second: the traffic carried, not the capacity.
    pub throughput_mbps: f64,
    pub heartbeat_age_ms: Option<u64>,
    /// Frames refused since start (bad or missing signature, unparsable payload).
    pub rejected_frames: u64,
    /// Transport errors since start.
    pub io_errors: u64,
}

impl LinkMeasurement {
    /// The measurement as a link sample on `slice`. A link whose heartbeat is older than
    /// `silent_after_ms` counts as 100 % loss: no frames means no gaps to count. `None` until
    /// a round trip has been measured.
    pub fn to_sample(
        &self,
        slice: Slice,
        edge_load: f64,
        silent_after_ms: u64,
    ) -> Option<LinkSample> {
        let rtt = self.rtt_ms?;
        let silent = self.heartbeat_age_ms.is_none_or(|a| a > silent_after_ms);
        Some(LinkSample {
            slice,
            lat_ms: rtt / 2.0,
            jitter_ms: self.jitter_ms.unwrap_or(0.0),
            loss_pct: if silent { 100.0 } else { self.loss_pct },
            throughput_mbps: self.throughput_mbps,
            edge_load,
        })
    }
}

/// Counts frames, gaps, bytes and round trips in a sliding window.
#[derive(Debug, Clone)]
pub struct LinkStats {
    window_us: u64,
    bucket_us: u64,
    buckets: VecDeque<Bucket>,
    last_seq: HashMap<(u32, u8), u8>,
    rtts: VecDeque<(u64, u64)>,
    rejected: u64,
    io_errors: u64,
}

impl LinkStats {
    pub fn new(window_ms: u64) -> Self {
        let window_us = window_ms.max(100) * 1000;
        Self {
            window_us,
            bucket_us: window_us / 20,
            buckets: VecDeque::new(),
            last_seq: HashMap::new(),
            rtts: VecDeque::new(),
            rejected: 0,
            io_errors: 0,
        }
    }

    fn bucket(&mut self, now_us: u64) -> &mut Bucket {
        let start = now_us - now_us % self.bucket_us;
        if self.buckets.back().is_none_or(|b| b.start_us != start) {
            self.buckets.push_back(Bucket {
                start_us: start,
                ..Bucket::default()
            });
        }
        while self
            .buckets
            .front()
            .is_some_and(|b| b.start_us + self.window_us <= start)
        {
            self.buckets.pop_front();
        }
        // A bucket was just ensured above.
        let last = self.buckets.len() - 1;
        &mut self.buckets[last]
    }

    /// A frame arrived from (system, component) with sequence `seq`.
    pub fn on_rx(&mut self, now_us: u64, system: u32, component: u8, seq: u8, bytes: usize) {
        let lost = match self.last_seq.insert((system, component), seq) {
            None => 0,
            Some(last) => {
                let gap = seq.wrapping_sub(last).wrapping_sub(1);
                if gap >= 128 {
                    // Behind us: a duplicate or reordered frame, not a loss. Keep the newer.
                    self.last_seq.insert((system, component), last);
                    0
                } else {
                    u64::from(gap)
                }
            }
        };
        let b = self.bucket(now_us);
        b.rx_frames += 1;
        b.lost += lost;
        b.rx_bytes += bytes as u64;
    }

    pub fn on_tx(&mut self, now_us: u64, bytes: usize) {
        self.bucket(now_us).tx_bytes += bytes as u64;
    }

    pub fn on_rtt(&mut self, now_us: u64, rtt_us: u64) {
        self.rtts.push_back((now_us, rtt_us));
    }

    pub fn on_rejected(&mut self) {
        self.rejected += 1;
    }

    pub fn on_io_error(&mut self) {
        self.io_errors += 1;
    }

    /// After an autopilot reboot its sequence numbers restart: that is not loss.
    pub fn forget_sequences(&mut self) {
        self.last_seq.clear();
    }

    pub fn measure(&mut self, now_us: u64, heartbeat_age_us: Option<u64>) -> LinkMeasurement {
        self.bucket(now_us);
        while self
            .rtts
            .front()
            .is_some_and(|(t, _)| *t + self.window_us <= now_us)
        {
            self.rtts.pop_front();
        }
        let span_us = self.buckets.front().map_or(self.bucket_us, |b| {
            (now_us - b.start_us).max(self.bucket_us)
        });
        let secs = span_us as f64 / 1e6;
        let sum = |f: fn(&Bucket) -> u64| self.buckets.iter().map(f).sum::<u64>();
        let (rx, lost) = (sum(|b| b.rx_frames), sum(|b| b.lost));
        let (rx_bytes, tx_bytes) = (sum(|b| b.rx_bytes), sum(|b| b.tx_bytes));
        let rtts: Vec<f64> = self.rtts.iter().map(|(_, r)| *r as f64 / 1000.0).collect();
        let rtt_ms = (!rtts.is_empty()).then(|| rtts.iter().sum::<f64>() / rtts.len() as f64);
        let jitter_ms = (rtts.len() >= 2).then(|| {
            let d: f64 = rtts.windows(2).map(|w| (w[1] - w[0]).abs() / 2.0).sum();
            d / (rtts.len() - 1) as f64
        });
        LinkMeasurement {
            window_ms: span_us / 1000,
            rtt_ms,
            jitter_ms,
            loss_pct: if rx + lost == 0 {
                0.0
            } else {
                100.0 * lost as f64 / (rx + lost) as f64
            },
            rx_msgs_per_s: rx as f64 / secs,
            rx_bytes_per_s: rx_bytes as f64 / secs,
            tx_bytes_per_s: tx_bytes as f64 / secs,
            throughput_mbps: (rx_bytes + tx_bytes) as f64 * 8.0 / secs / 1e6,
            heartbeat_age_ms: heartbeat_age_us.map(|a| a / 1000),
            rejected_frames: self.rejected,
            io_errors: self.io_errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_comes_from_sequence_gaps_per_sender() {
        let mut s = LinkStats::new(5000);
        let mut t = 0;
        // 200 frames from the autopilot, every 10th missing; another sender without gaps.
        for i in 0..220u32 {
            t += 10_000;
            if i % 10 != 9 {
                s.on_rx(t, 1, 1, (i % 256) as u8, 30);
            }
            s.on_rx(t, 1, 154, (i % 256) as u8, 30);
        }
        let m = s.measure(t, Some(0));
        // 198 of autopilot + 220 of the other seen in the window, 21 lost.
        assert!(
            (m.loss_pct - 100.0 * 21.0 / (418.0 + 21.0)).abs() < 0.5,
            "{m:?}"
        );
    }

    #[test]
    fn duplicates_and_reordering_are_not_loss_and_wraps_are_not_gaps() {
        let mut s = LinkStats::new(5000);
        for (i, seq) in [254u8, 255, 0, 1, 1, 0, 2].into_iter().enumerate() {
            s.on_rx(i as u64 * 1000, 1, 1, seq, 10);
        }
        assert_eq!(s.measure(10_000, None).loss_pct, 0.0);
    }

    #[test]
    fn rtt_jitter_and_rates_over_the_window() {
        let mut s = LinkStats::new(1000);
        for (i, rtt) in [10_000u64, 14_000, 10_000, 14_000].into_iter().enumerate() {
            s.on_rtt(i as u64 * 100_000, rtt);
        }
        for i in 0..100u64 {
            s.on_rx(i * 10_000, 1, 1, i as u8, 100);
            s.on_tx(i * 10_000, 50);
        }
        let m = s.measure(999_999, Some(250_000));
        assert_eq!(m.rtt_ms, Some(12.0));
        assert_eq!(
            m.jitter_ms,
            Some(2.0),
            "one-way latency moves 2 ms each time"
        );
        assert!((m.rx_msgs_per_s - 100.0).abs() < 1.0, "{m:?}");
        assert!((m.throughput_mbps - 150.0 * 100.0 * 8.0 / 1e6).abs() < 0.01);
        let sample = m.to_sample(Slice::Urllc, 0.2, 3000).unwrap();
        assert_eq!((sample.lat_ms, sample.loss_pct), (6.0, 0.0));
        let silent = LinkMeasurement {
            heartbeat_age_ms: Some(5000),
            ..m
        };
        assert_eq!(
            silent.to_sample(Slice::Urllc, 0.2, 3000).unwrap().loss_pct,
            100.0
        );
        // Old samples leave the window.
        assert_eq!(s.measure(3_000_000, None).rtt_ms, None);
    }
}
