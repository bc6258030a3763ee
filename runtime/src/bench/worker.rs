//! Concurrency across episodes: `concurrency` worker threads, each with its own tokio
//! current-thread runtime, take the next pending episode from a shared counter and send its
//! result back. A policy that is expensive to build (a local model, an HTTP client) is built
//! once per worker on first use and reused for every later episode of that policy on the worker
//! (a local model keeps its prompt-header KV cache warm across episodes); the scripted agent is
//! built per episode from its scenario, and a replay per episode so it starts at its first turn.

use super::BenchError;
use super::episode::fly;
use super::plan::PlannedEpisode;
use super::results::EpisodeResult;
use super::suite::Suite;
use crate::policy::scripted::ScriptedPolicy;
use crate::policy::{Policy, from_config};
use alpha3_core::config::PolicyBackend;
use alpha3_core::score::Scorer;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// What a worker reports for one episode.
pub type Report = Result<EpisodeResult, BenchError>;

/// Flies `pending` (indices into `plan`) on `concurrency` threads; `on_result` sees every
/// result as it arrives, on the calling thread. Stops taking new episodes after the first
/// error, lets the running ones finish, and returns that error.
pub fn run_all(
    suite: &Suite,
    plan: &[PlannedEpisode],
    pending: &[usize],
    records: &Path,
    concurrency: usize,
    mut on_result: impl FnMut(&EpisodeResult),
) -> Result<Vec<EpisodeResult>, BenchError> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let workers = concurrency.clamp(1, pending.len().max(1));
    let (tx, rx) = mpsc::channel::<Report>();
    let mut results = Vec::with_capacity(pending.len());
    let mut first_error = None;
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            let spawned = std::thread::Builder::new()
                .name(format!("alpha3-bench-{w}"))
                .spawn_scoped(scope, move || {
                    worker(suite, plan, pending, records, next, stop, &tx);
                });
            if let Err(e) = spawned {
                stop.store(true, Ordering::Relaxed);
                first_error = Some(BenchError::Worker(e.to_string()));
                break;
            }
        }
        drop(tx);
        for report in rx {
            match report {
                Ok(r) => {
                    on_result(&r);
                    results.push(r);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => Ok(results),
    }
}

fn worker(
    suite: &Suite,
    plan: &[PlannedEpisode],
    pending: &[usize],
    records: &Path,
    next: &AtomicUsize,
    stop: &AtomicBool,
    tx: &mpsc::Sender<Report>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(BenchError::Worker(format!("tokio runtime: {e}"))));
            return;
        }
    };
    let scorer = match Scorer::new(Default::default()) {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(Err(BenchError::Worker(format!("scorer: {e}"))));
            return;
        }
    };
    let mut kept: HashMap<usize, Box<dyn Policy>> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = pending.get(k) else { break };
        let ep = &plan[i];
        let report = runtime.block_on(async {
            let mut fresh;
            let policy: &mut dyn Policy = match policy_kind(suite, ep.policy) {
                Build::PerEpisode => {
                    fresh = per_episode(suite, ep)?;
                    fresh.as_mut()
                }
                Build::PerWorker => match kept.entry(ep.policy) {
                    Entry::Occupied(e) => e.into_mut().as_mut(),
                    Entry::Vacant(e) => {
                        let mut p = build(suite, ep.policy)?;
                        p.warm_up().await;
                        e.insert(p).as_mut()
                    }
                },
            };
            fly(suite, ep, policy, records, &scorer).await
        });
        if tx.send(report).is_err() {
            break;
        }
    }
}

enum Build {
    PerEpisode,
    PerWorker,
}

fn policy_kind(suite: &Suite, policy: usize) -> Build {
    match suite.policies[policy]
        .config
        .policy
        .as_ref()
        .map(|p| p.backend)
    {
        Some(PolicyBackend::Llama | PolicyBackend::Openai) => Build::PerWorker,
        _ => Build::PerEpisode,
    }
}

fn per_episode(suite: &Suite, ep: &PlannedEpisode) -> Result<Box<dyn Policy>, BenchError> {
    let p = &suite.policies[ep.policy];
    match p.config.policy.as_ref().map(|c| c.backend) {
        Some(PolicyBackend::Scripted) => {
            let s = &suite.scenarios[ep.scenario].scenario;
            let sensors = alpha3_sim::scenario::sensor_names(s);
            Ok(Box::new(ScriptedPolicy::new(p.name.clone(), s, &sensors)))
        }
        _ => build(suite, ep.policy),
    }
}

fn build(suite: &Suite, policy: usize) -> Result<Box<dyn Policy>, BenchError> {
    let p = &suite.policies[policy];
    let cfg = p.config.policy.as_ref().ok_or_else(|| BenchError::Policy {
        name: p.name.clone(),
        message: "no [policy] section".into(),
    })?;
    from_config(cfg, &p.base_dir).map_err(|e| BenchError::Policy {
        name: p.name.clone(),
        message: e.to_string(),
    })
}
