//! [`LinkClock`]: the time a [`HilLink`](super::HilLink) tells — the autopilot's clock once its
//! telemetry carried one, the wall clock before — as one monotonic millisecond count.

use crate::vehicle_clock::ClockReading;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The longest single sleep while waiting for the autopilot's clock: a rate that changes
/// (a SITL slowed by a busy machine) is noticed within this.
const MAX_NAP: Duration = Duration::from_millis(50);

#[derive(Debug)]
pub(crate) struct LinkClock {
    epoch: Instant,
    readings: watch::Receiver<Option<ClockReading>>,
    /// Link time and autopilot time at the first reading: link time follows the autopilot
    /// from there on.
    joined: OnceLock<(u64, u64)>,
    /// The latest time told, so time never runs backwards.
    told: AtomicU64,
}

impl LinkClock {
    pub fn new(epoch: Instant, readings: watch::Receiver<Option<ClockReading>>) -> Self {
        Self {
            epoch,
            readings,
            joined: OnceLock::new(),
            told: AtomicU64::new(0),
        }
    }

    pub fn reading(&self) -> Option<ClockReading> {
        *self.readings.borrow()
    }

    fn local_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// Milliseconds since the link opened, on the autopilot's clock once it is known.
    pub fn now_ms(&self) -> u64 {
        let local_us = self.local_us();
        let t = match self.reading() {
            None => local_us / 1000,
            Some(r) => {
                let vehicle = r.vehicle_ms_at(local_us);
                let &(link0, vehicle0) = self.joined.get_or_init(|| (local_us / 1000, vehicle));
                link0 + vehicle.saturating_sub(vehicle0)
            }
        };
        self.told.fetch_max(t, Ordering::Relaxed).max(t)
    }

    /// Link time of a moment given in local (wall) milliseconds since the link opened — the
    /// stamp the telemetry cache puts on a snapshot — so snapshots and [`Self::now_ms`] agree.
    pub fn at_local_ms(&self, local_ms: u64) -> u64 {
        let now = self.now_ms();
        let (Some(r), Some(&(link0, vehicle0))) = (self.reading(), self.joined.get()) else {
            return local_ms.min(now);
        };
        let local_us = local_ms * 1000;
        let vehicle = if local_us >= r.local_us {
            r.vehicle_ms_at(local_us)
        } else {
            let back_ms = (r.local_us - local_us) as f64 / 1000.0 * r.rate;
            r.vehicle_ms.saturating_sub(back_ms as u64)
        };
        (link0 + vehicle.saturating_sub(vehicle0)).min(now)
    }

    /// How long to sleep before looking again for `until_ms`; `None` once it has come.
    pub fn wait_for(&self, until_ms: u64) -> Option<Duration> {
        let now = self.now_ms();
        if now >= until_ms {
            return None;
        }
        let rate = self.reading().map_or(1.0, |r| r.rate);
        let local_ms = (until_ms - now) as f64 / rate;
        Some(Duration::from_secs_f64(local_ms.max(1.0) / 1000.0).min(MAX_NAP))
    }
}
