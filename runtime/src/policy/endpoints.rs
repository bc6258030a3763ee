//! Several OpenAI-compatible endpoints serving one model, shared by every episode of the
//! process: each request goes to the endpoint with the fewest requests in flight (at most
//! `max_in_flight` each), an endpoint that answered `Retry-After` rests that long, and one
//! that fails [`FAILURES_TO_REST`] times in a row rests for a cool-down that doubles up to
//! [`REST_MAX`] and is then tried again. A success clears its record.
//!
//! A single endpoint is never set aside for failing (there is nowhere else to go: the caller's
//! retries and backoff handle it), but its `Retry-After` is honoured.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::time::Instant;

/// Consecutive failures after which an endpoint rests.
pub const FAILURES_TO_REST: u32 = 3;
const REST_START: Duration = Duration::from_secs(5);
pub const REST_MAX: Duration = Duration::from_secs(120);
/// How often a caller waiting for a free slot looks again.
const POLL: Duration = Duration::from_millis(25);

/// How a request to an endpoint ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Answered,
    /// Refused, reset, timed out, or a 5xx without `Retry-After`.
    Failed,
    /// 429/503 with `Retry-After`.
    Busy(Duration),
}

#[derive(Debug, Default)]
struct Health {
    in_flight: u32,
    failures: u32,
    resting_until: Option<Instant>,
    rest: Duration,
}

/// The endpoints of one model.
#[derive(Debug)]
pub struct EndpointPool {
    urls: Vec<String>,
    max_in_flight: Option<u32>,
    health: Mutex<(Vec<Health>, usize)>,
}

/// A claimed slot on one endpoint, released on drop.
#[derive(Debug)]
pub struct Lease {
    pool: Arc<EndpointPool>,
    index: usize,
}

impl Lease {
    pub fn url(&self) -> &str {
        &self.pool.urls[self.index]
    }

    pub fn index(&self) -> usize {
        self.index
    }

    /// Records how the request went.
    pub fn report(&self, outcome: Outcome, now: Instant) {
        self.pool.report(self.index, outcome, now);
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut g = self.pool.lock();
        if let Some(h) = g.0.get_mut(self.index) {
            h.in_flight = h.in_flight.saturating_sub(1);
        }
    }
}

/// Why no endpoint could be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no endpoint free before the deadline ({resting} of {total} resting after failures or Retry-After)"
)]
pub struct NoEndpoint {
    pub resting: usize,
    pub total: usize,
}

impl EndpointPool {
    pub fn new(urls: Vec<String>, max_in_flight: Option<u32>) -> Arc<Self> {
        let health = urls.iter().map(|_| Health::default()).collect();
        Arc::new(Self {
            urls,
            max_in_flight,
            health: Mutex::new((health, 0)),
        })
    }

    /// The process's pool for these endpoints and limit, made on first use, so that the
    /// policies of concurrent episodes share the slots and the endpoints' health.
    pub fn shared(urls: &[String], max_in_flight: Option<u32>) -> Arc<Self> {
        type Key = (Vec<String>, Option<u32>);
        static POOLS: OnceLock<Mutex<HashMap<Key, Arc<EndpointPool>>>> = OnceLock::new();
        let pools = POOLS.get_or_init(Default::default);
        let mut g = pools.lock().unwrap_or_else(|p| p.into_inner());
        g.entry((urls.to_vec(), max_in_flight))
            .or_insert_with(|| Self::new(urls.to_vec(), max_in_flight))
            .clone()
    }

    pub fn urls(&self) -> &[String] {
        &self.urls
    }

    pub fn len(&self) -> usize {
        self.urls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Vec<Health>, usize)> {
        // A panic while holding the lock leaves counters, not broken invariants.
        self.health.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A free endpoint now; or, when none is free, the moment the first resting one returns
    /// (`None` when only in-flight limits block). Endpoints in `avoid` (one that just failed)
    /// are used only when every other one is resting: a busy healthy one is worth waiting for.
    pub fn try_acquire(
        self: &Arc<Self>,
        now: Instant,
        avoid: &[usize],
    ) -> Result<Lease, Option<Instant>> {
        let mut g = self.lock();
        let (health, next) = &mut *g;
        let n = health.len();
        let awake = |h: &Health| h.resting_until.is_none_or(|t| t <= now);
        let others_awake = (0..n).any(|i| !avoid.contains(&i) && awake(&health[i]));
        let mut best: Option<usize> = None;
        for k in 0..n {
            // Round robin from `next` among the least loaded: episodes spread evenly.
            let i = (*next + k) % n;
            let h = &health[i];
            let usable = awake(h)
                && self.max_in_flight.is_none_or(|limit| h.in_flight < limit)
                && !(others_awake && avoid.contains(&i));
            if usable && best.is_none_or(|b| h.in_flight < health[b].in_flight) {
                best = Some(i);
            }
        }
        match best {
            Some(i) => {
                health[i].in_flight += 1;
                *next = (i + 1) % n.max(1);
                Ok(Lease {
                    pool: Arc::clone(self),
                    index: i,
                })
            }
            None => Err(health
                .iter()
                .filter_map(|h| h.resting_until.filter(|t| *t > now))
                .min()),
        }
    }

    /// Waits for a free endpoint until `deadline`.
    pub async fn acquire(
        self: &Arc<Self>,
        deadline: Instant,
        avoid: &[usize],
    ) -> Result<Lease, NoEndpoint> {
        loop {
            let now = Instant::now();
            match self.try_acquire(now, avoid) {
                Ok(lease) => return Ok(lease),
                Err(back) => {
                    // Look again soon (a slot may free) or when the first resting one returns.
                    let wake = back.map_or(now + POLL, |t| t.min(now + POLL));
                    if wake >= deadline {
                        return Err(self.no_endpoint(now));
                    }
                    tokio::time::sleep_until(wake).await;
                }
            }
        }
    }

    fn no_endpoint(&self, now: Instant) -> NoEndpoint {
        let g = self.lock();
        NoEndpoint {
            resting: g
                .0
                .iter()
                .filter(|h| h.resting_until.is_some_and(|t| t > now))
                .count(),
            total: g.0.len(),
        }
    }

    fn report(&self, index: usize, outcome: Outcome, now: Instant) {
        let single = self.urls.len() == 1;
        let mut g = self.lock();
        let Some(h) = g.0.get_mut(index) else { return };
        match outcome {
            Outcome::Answered => {
                h.failures = 0;
                h.rest = Duration::ZERO;
                h.resting_until = None;
            }
            Outcome::Busy(after) => {
                h.resting_until = Some(now + after);
            }
            Outcome::Failed => {
                h.failures += 1;
                if !single && h.failures >= FAILURES_TO_REST {
                    h.rest = if h.rest.is_zero() {
                        REST_START
                    } else {
                        (h.rest * 2).min(REST_MAX)
                    };
                    h.resting_until = Some(now + h.rest);
                    // Back after the rest on probation: one more failure sends it away again.
                    h.failures = FAILURES_TO_REST - 1;
                    tracing::warn!(
                        endpoint = %self.urls[index],
                        rest_s = h.rest.as_secs_f64(),
                        "endpoint keeps failing; set aside"
                    );
                }
            }
        }
    }

    /// Whether an endpoint other than `index` is not resting at `now`.
    pub fn another_awake(&self, index: usize, now: Instant) -> bool {
        self.lock()
            .0
            .iter()
            .enumerate()
            .any(|(i, h)| i != index && h.resting_until.is_none_or(|t| t <= now))
    }

    /// Whether endpoint `index` is resting at `now`.
    pub fn is_resting(&self, index: usize, now: Instant) -> bool {
        self.lock()
            .0
            .get(index)
            .is_some_and(|h| h.resting_until.is_some_and(|t| t > now))
    }
}

/// `Retry-After` as a delay: delta-seconds only (an HTTP date gives `None`, and the caller's
/// own backoff applies).
pub fn retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(3600.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize, k: Option<u32>) -> Arc<EndpointPool> {
        EndpointPool::new((0..n).map(|i| format!("http://e{i}")).collect(), k)
    }

    #[test]
    fn requests_spread_and_respect_the_in_flight_limit() {
        let p = pool(2, Some(1));
        let now = Instant::now();
        let a = p.try_acquire(now, &[]).unwrap();
        let b = p.try_acquire(now, &[]).unwrap();
        assert_ne!(a.index(), b.index());
        assert_eq!(p.try_acquire(now, &[]).unwrap_err(), None, "both full");
        drop(a);
        assert!(p.try_acquire(now, &[]).is_ok());
    }

    #[test]
    fn a_request_that_failed_waits_for_a_busy_healthy_endpoint() {
        let p = pool(2, Some(1));
        let now = Instant::now();
        let busy = p.try_acquire(now, &[]).unwrap();
        let other = 1 - busy.index();
        // `other` just failed: while `busy` is awake, wait for it rather than go back.
        assert_eq!(p.try_acquire(now, &[other]).unwrap_err(), None);
        drop(busy);
        assert_ne!(p.try_acquire(now, &[other]).unwrap().index(), other);
        // With the healthy one resting, the failed one is all there is.
        let p = pool(2, None);
        let l = p.try_acquire(now, &[1]).unwrap();
        l.report(Outcome::Busy(Duration::from_secs(5)), now);
        drop(l);
        assert_eq!(p.try_acquire(now, &[1]).unwrap().index(), 1);
    }

    #[test]
    fn a_failing_endpoint_rests_and_comes_back() {
        let p = pool(2, None);
        let now = Instant::now();
        for _ in 0..FAILURES_TO_REST {
            let l = p.try_acquire(now, &[1]).unwrap();
            assert_eq!(l.index(), 0);
            l.report(Outcome::Failed, now);
        }
        assert!(p.is_resting(0, now));
        for _ in 0..5 {
            assert_eq!(p.try_acquire(now, &[]).unwrap().index(), 1);
        }
        let later = now + REST_START + Duration::from_millis(1);
        assert!(!p.is_resting(0, later));
        let l = p.try_acquire(later, &[1]).unwrap();
        assert_eq!(l.index(), 0, "back after its rest");
        // On probation: one more failure, and a longer rest.
        l.report(Outcome::Failed, later);
        assert!(p.is_resting(0, later + REST_START + Duration::from_millis(1)));
    }

    #[test]
    fn retry_after_rests_an_endpoint_and_a_single_one_is_never_set_aside() {
        let p = pool(2, None);
        let now = Instant::now();
        let l = p.try_acquire(now, &[1]).unwrap();
        l.report(Outcome::Busy(Duration::from_secs(2)), now);
        drop(l);
        assert_eq!(p.try_acquire(now, &[]).unwrap().index(), 1);
        let one = pool(1, None);
        for _ in 0..10 {
            one.try_acquire(now, &[])
                .unwrap()
                .report(Outcome::Failed, now);
        }
        assert!(one.try_acquire(now, &[]).is_ok());
        one.try_acquire(now, &[])
            .unwrap()
            .report(Outcome::Busy(Duration::from_secs(1)), now);
        assert_eq!(
            one.try_acquire(now, &[]).unwrap_err(),
            Some(now + Duration::from_secs(1))
        );
    }

    #[test]
    fn retry_after_reads_seconds_only() {
        assert_eq!(retry_after(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(retry_after("-1"), None);
    }
}
