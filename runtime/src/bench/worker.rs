//! Concurrency across episodes: `concurrency` worker threads, each with its own tokio
//! current-thread runtime, take the next pending episode from a shared counter and send its
//! result back. A policy that is expensive to build (a local model, an HTTP client) is built
//! once per worker on first use and reused for every later episode of that policy on the worker
//! (a local model keeps its prompt-header KV cache warm across episodes); the scripted agent is
//! built per episode from its scenario, and a replay per episode so it starts at its first turn.
//!
//! An episode whose flight panics or fails is recorded as a failed episode ([`super::failure`])
//! and the worker goes on with the next one; so does the run. An episode no worker reported (all
//! of them gone) is recorded as failed too: every planned episode ends up in the results. One
//! whose model never answered ends its record as failed itself ([`Policy::no_answer`]) and is a
//! failure of the run as well.
//!
//! A policy stuck in a computation never returns to the runtime, so no deadline can stop it:
//! the calling thread watches how long each worker has been on its episode and, past
//! `stall_limit`, gives up with an error naming the episode (the records written so far stay;
//! a rerun resumes). Workers are detached threads for that reason — a stuck one is not joined.

use super::BenchError;
use super::episode::fly;
use super::failure::{injected_panic, panic_text, record_failure};
use super::plan::PlannedEpisode;
use super::policies::{Build, build, per_episode, policy_kind};
use super::results::EpisodeResult;
use super::suite::Suite;
use super::target::Target;
use crate::policy::Policy;
use alpha3_core::score::{MetricVersion, ScoreOptions, Scorer};
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// Why an episode could not be flown to its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub id: String,
    pub why: String,
    /// The input was at fault (a policy that would not build), not the run.
    pub invalid_input: bool,
}

/// What a worker reports for one episode: its result (a failed episode's too) and, when it
/// failed, why.
#[derive(Debug)]
pub struct Report {
    pub result: EpisodeResult,
    pub failure: Option<Failure>,
}

/// What a worker sends: an episode's report, or why it could not start at all.
enum Message {
    Episode(Box<Report>),
    Fatal(BenchError),
}

/// Everything the workers flew.
#[derive(Debug, Default)]
pub struct Flown {
    /// Every pending episode's result, failed ones included.
    pub results: Vec<EpisodeResult>,
    pub failures: Vec<Failure>,
}

/// The work shared by the workers.
struct Shared {
    suite: Suite,
    plan: Vec<PlannedEpisode>,
    pending: Vec<usize>,
    records: PathBuf,
    metric: MetricVersion,
    target: Target,
    next: AtomicUsize,
    stop: AtomicBool,
    /// Per worker: the episode it is flying and since when.
    busy: Vec<Mutex<Option<(String, Instant)>>>,
}

/// How [`run_all`] runs: worker threads, the stall limit, the metric episodes are scored under
/// and where they are flown (worker `k` flies on autopilot `k`).
#[derive(Debug, Clone)]
pub struct Pace {
    pub concurrency: usize,
    pub stall_limit: Duration,
    pub metric: MetricVersion,
    pub target: Target,
}

/// Flies `pending` (indices into `plan`) on `concurrency` threads; `on_result` sees every
/// result as it arrives, on the calling thread. A failed episode is a result (recorded as
/// failed) and the others go on. An episode running longer than `stall_limit` stops the run
/// with an error (returned at once; its worker is abandoned), as does a worker that cannot
/// start.
pub fn run_all(
    suite: &Suite,
    plan: &[PlannedEpisode],
    pending: &[usize],
    records: &Path,
    pace: Pace,
    mut on_result: impl FnMut(&EpisodeResult),
) -> Result<Flown, BenchError> {
    let Pace {
        concurrency,
        stall_limit,
        metric,
        target,
    } = pace;
    let workers = concurrency.clamp(1, pending.len().max(1));
    let shared = Arc::new(Shared {
        suite: suite.clone(),
        plan: plan.to_vec(),
        pending: pending.to_vec(),
        records: records.to_path_buf(),
        metric,
        target,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        busy: (0..workers).map(|_| Mutex::new(None)).collect(),
    });
    let (tx, rx) = mpsc::channel::<Message>();
    for w in 0..workers {
        let tx = tx.clone();
        let mine = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name(format!("alpha3-bench-{w}"))
            .spawn(move || worker(&mine, w, &tx));
        if let Err(e) = spawned {
            shared_stop(&shared);
            return Err(BenchError::Worker(e.to_string()));
        }
    }
    drop(tx);
    let mut flown = Flown::default();
    let mut fatal = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(Message::Episode(report)) => {
                on_result(&report.result);
                flown.failures.extend(report.failure);
                flown.results.push(report.result);
            }
            Ok(Message::Fatal(e)) => {
                shared_stop(&shared);
                fatal.get_or_insert(e);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some((id, secs)) = stalled(&shared, stall_limit) {
                    shared_stop(&shared);
                    return Err(BenchError::Stalled { id, secs });
                }
            }
        }
    }
    if let Some(e) = fatal {
        return Err(e);
    }
    unreported(&shared, &mut flown, &mut on_result)?;
    Ok(flown)
}

/// Records every pending episode no worker reported (its worker died without a word) as
/// failed, so none goes missing from the results.
fn unreported(
    shared: &Shared,
    flown: &mut Flown,
    on_result: &mut impl FnMut(&EpisodeResult),
) -> Result<(), BenchError> {
    let reported: BTreeSet<&str> = flown.results.iter().map(|r| r.id.as_str()).collect();
    let missing: Vec<&PlannedEpisode> = shared
        .pending
        .iter()
        .map(|&i| &shared.plan[i])
        .filter(|ep| !reported.contains(ep.id.as_str()))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let scorer = scorer_for(shared.metric).map_err(|e| BenchError::Worker(e.to_string()))?;
    let why = "not flown: its worker stopped without reporting it";
    for ep in missing {
        let result = record_failure(&shared.suite, ep, &shared.records, &scorer, why);
        on_result(&result);
        flown.failures.push(Failure {
            id: ep.id.clone(),
            why: why.into(),
            invalid_input: false,
        });
        flown.results.push(result);
    }
    Ok(())
}

/// The scorer of a run under `metric`.
pub fn scorer_for(metric: MetricVersion) -> Result<Scorer, alpha3_core::score::SchemaError> {
    Scorer::new(ScoreOptions {
        metric,
        ..ScoreOptions::default()
    })
}

fn shared_stop(shared: &Shared) {
    shared.stop.store(true, Ordering::Relaxed);
}

/// The episode a worker has been on for longer than `limit`, if any.
fn stalled(shared: &Shared, limit: Duration) -> Option<(String, u64)> {
    shared.busy.iter().find_map(|slot| {
        let guard = slot.lock().ok()?;
        let (id, since) = guard.as_ref()?;
        let t = since.elapsed();
        (t > limit).then(|| (id.clone(), t.as_secs()))
    })
}

fn new_runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BenchError::Worker(format!("tokio runtime: {e}")))
}

fn worker(shared: &Shared, w: usize, tx: &mpsc::Sender<Message>) {
    let mut runtime = match new_runtime() {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Message::Fatal(e));
            return;
        }
    };
    let scorer = match scorer_for(shared.metric) {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(Message::Fatal(BenchError::Worker(format!("scorer: {e}"))));
            return;
        }
    };
    let suite = &shared.suite;
    let mut kept: HashMap<usize, Box<dyn Policy>> = HashMap::new();
    while !shared.stop.load(Ordering::Relaxed) {
        let k = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = shared.pending.get(k) else {
            break;
        };
        let ep = &shared.plan[i];
        if let Ok(mut slot) = shared.busy[w].lock() {
            *slot = Some((ep.id.clone(), Instant::now()));
        }
        let flight = std::panic::catch_unwind(AssertUnwindSafe(|| {
            runtime.block_on(async {
                injected_panic(&ep.id);
                let mut fresh;
                let policy: &mut dyn Policy = match policy_kind(suite, ep.policy) {
                    Build::PerEpisode => {
                        fresh = per_episode(suite, ep)?;
                        fresh.as_mut()
                    }
                    Build::PerWorker => match kept.entry(ep.policy) {
                        Entry::Occupied(e) => e.into_mut().as_mut(),
                        Entry::Vacant(e) => {
                            let mut p = build(suite, ep.policy, None)?;
                            p.warm_up().await;
                            e.insert(p).as_mut()
                        }
                    },
                };
                let result = match &shared.target {
                    Target::BuiltIn => fly(suite, ep, policy, &shared.records, &scorer).await,
                    Target::Autopilots(a) => {
                        let vehicle = &a.vehicles[w % a.vehicles.len()];
                        let records = &shared.records;
                        super::autopilot::fly(suite, ep, policy, records, &scorer, a, vehicle).await
                    }
                }?;
                Ok::<_, BenchError>((result, policy.no_answer()))
            })
        }));
        let failed = |why: String, invalid_input: bool| Report {
            result: record_failure(suite, ep, &shared.records, &scorer, &why),
            failure: Some(Failure {
                id: ep.id.clone(),
                why,
                invalid_input,
            }),
        };
        let report = match flight {
            // A model that never answered: flown, recorded as failed, and a failure of the run.
            Ok(Ok((result, no_answer))) => Report {
                failure: no_answer.map(|why| Failure {
                    id: ep.id.clone(),
                    why: why.to_string(),
                    invalid_input: why.is_invalid_input(),
                }),
                result,
            },
            Ok(Err(e)) => failed(e.to_string(), e.is_invalid_input()),
            Err(payload) => {
                // Nothing the panic touched is trusted again: the policy it was flying is
                // built afresh, and so is the runtime.
                kept.remove(&ep.policy);
                if let Ok(r) = new_runtime() {
                    runtime = r;
                }
                failed(format!("worker panicked: {}", panic_text(&*payload)), false)
            }
        };
        if let Ok(mut slot) = shared.busy[w].lock() {
            *slot = None;
        }
        if tx.send(Message::Episode(Box::new(report))).is_err() {
            break;
        }
    }
}

/// How long one episode may take before the run gives up on it: every turn's decision
/// deadline for every attempt, twice over, and at least ten minutes; on an autopilot, twice
/// that (its flight runs in real time) and the waits for it to be ready and at the start.
pub fn stall_limit(suite: &Suite, target: &Target) -> Duration {
    let decisions = decisions_limit(suite);
    match target {
        Target::BuiltIn => decisions,
        Target::Autopilots(a) => {
            2 * decisions + Duration::from_secs(a.ready_timeout_s + 2 * a.start_timeout_s)
        }
    }
}

fn decisions_limit(suite: &Suite) -> Duration {
    let worst = suite
        .policies
        .iter()
        .filter_map(|p| p.config.policy.as_ref())
        .map(|p| p.deadline_ms * u64::from(p.max_attempts.max(1)))
        .max()
        .unwrap_or(0)
        * u64::from(suite.bench.max_turns.max(1));
    Duration::from_millis((2 * worst).max(600_000))
}
