//! The endpoint task: wall-clock time into the [`Station`], bytes from the reader tasks into
//! it, and what it returns onto the transports. The world follows the wall clock (real-time
//! stepping): each wake-up advances it to the time elapsed since the endpoint started.

use super::error::EndpointError;
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

pub(super) fn now_us(epoch: Instant) -> u64 {
    epoch.elapsed().as_micros() as u64
}

/// Runs until `stop` fires (or its sender is dropped).
pub(super) async fn run(
    station: Arc<Mutex<Station>>,
    mut ports: Vec<Port>,
    mut inbound: mpsc::Receiver<Inbound>,
    mut stop: oneshot::Receiver<()>,
    epoch: Instant,
) -> Result<(), EndpointError> {
    let mut out: Vec<(usize, Vec<u8>)> = Vec::new();
    loop {
        let now = now_us(epoch);
        let wake = lock(&station)
            .next_wake_us()
            .map_or(now + MAX_SLEEP.as_micros() as u64, |t| {
                t.clamp(now, now + MAX_SLEEP.as_micros() as u64)
            });
        tokio::select! {
            biased;
            _ = &mut stop => return Ok(()),
            msg = inbound.recv() => match msg {
                Some(m) => {
                    if let (Some(from), Some(port)) = (m.from, ports.get_mut(m.link)) {
                        port.follow(from);
                    }
                    lock(&station).on_bytes(now_us(epoch), m.link, &m.bytes);
                }
                None => return Err(EndpointError::Stopped("every link reader ended".into())),
            },
            () = tokio::time::sleep_until(epoch + Duration::from_micros(wake)) => {}
        }
        lock(&station).service(now_us(epoch), &mut out);
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
