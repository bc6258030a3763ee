//! The endpoint task: wall-clock time into the [`Station`], bytes from the reader tasks into
//! it, and what it returns onto the transports. The world follows the wall clock (real-time
//! stepping, optionally sped up): each wake-up advances it to the time elapsed since the
//! endpoint started.

use super::EndpointError;
use super::station::Station;
use super::transport::{Inbound, Port};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// The world moves at least this often even when nothing is due.
const MAX_SLEEP: Duration = Duration::from_millis(20);
/// A write that takes longer than this is dropped (a serial peer that stopped reading).
const WRITE_STALL: Duration = Duration::from_millis(100);

/// Locks the station; a panic elsewhere cannot leave it half-updated in a way that matters
/// more than stopping would, so a poisoned lock is taken as is.
pub(super) fn lock(station: &Mutex<Station>) -> MutexGuard<'_, Station> {
    station.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The vehicle's clock: time since boot, running `speed` times as fast as the wall clock
/// (a SITL sped up in lockstep, as `PX4_SIM_SPEED_FACTOR` does).
#[derive(Debug, Clone, Copy)]
pub(super) struct BootClock {
    pub epoch: Instant,
    pub speed: f64,
}

impl BootClock {
    pub fn now_us(self) -> u64 {
        (self.epoch.elapsed().as_micros() as f64 * self.speed) as u64
    }

    /// The wall-clock instant at which the vehicle's clock shows `us`.
    pub fn instant_at(self, us: u64) -> Instant {
        self.epoch + Duration::from_micros((us as f64 / self.speed) as u64)
    }
}

/// Runs until `stop` fires (or its sender is dropped).
pub(super) async fn run(
    station: Arc<Mutex<Station>>,
    mut ports: Vec<Port>,
    mut inbound: mpsc::Receiver<Inbound>,
    mut stop: oneshot::Receiver<()>,
    clock: BootClock,
) -> Result<(), EndpointError> {
    // The longest sleep, in the vehicle's time.
    let max_sleep_us = (MAX_SLEEP.as_micros() as f64 * clock.speed) as u64;
    let mut out: Vec<(usize, Vec<u8>)> = Vec::new();
    loop {
        let now = clock.now_us();
        let wake = lock(&station)
            .next_wake_us()
            .map_or(now + max_sleep_us, |t| t.clamp(now, now + max_sleep_us));
        tokio::select! {
            biased;
            _ = &mut stop => return Ok(()),
            msg = inbound.recv() => match msg {
                Some(m) => {
                    if let (Some(from), Some(port)) = (m.from, ports.get_mut(m.link)) {
                        port.follow(from);
                    }
                    lock(&station).on_bytes(clock.now_us(), m.link, &m.bytes);
                }
                None => return Err(EndpointError::Stopped("every link reader ended".into())),
            },
            () = tokio::time::sleep_until(clock.instant_at(wake)) => {}
        }
        lock(&station).service(clock.now_us(), &mut out);
        for (link, bytes) in out.drain(..) {
            let Some(port) = ports.get_mut(link) else {
                continue;
            };
            match tokio::time::timeout(WRITE_STALL, port.send(&bytes)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!(link, error = %e, "send failed"),
                Err(_) => tracing::debug!(link, "send stalled; frame dropped"),
            }
        }
    }
}
