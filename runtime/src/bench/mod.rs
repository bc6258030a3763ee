//! `alpha3 bench`: scenarios × seeds × policies against the built-in world.
//!
//! One file per concept: [`suite`] loads the suite file, [`plan()`] lists its episodes with
//! stable ids ([`plan_file`] keeps them beside the records), [`shard`] splits them across
//! machines ([`scheduler`] takes the shard from Slurm or a Kubernetes Indexed Job), [`inputs`] keeps a folder to the inputs
//! that made it, [`resume`] skips what is already recorded, [`worker`] flies the rest concurrently ([`episode`] is one episode; [`failure`]
//! records one the runtime failed on), [`progress`]
//! draws the bar, [`results`] turns a record into a scored result, [`leaderboard`], [`report`]
//! and [`plot`] write the outputs ([`outputs`]), [`merge`] combines shards (each record checked by [`verify`]) and [`export`] turns
//! records into α3-Bench episode files.
//!
//! The leaderboard is always computed from the records alone (each one read back and scored
//! with core's scorer), in episode-id order, so an interrupted and resumed run, a sharded and
//! merged run and an uninterrupted run report the same figures.

pub mod autopilot;
pub mod episode;
pub mod episode_pages;
pub mod export;
pub mod failure;
pub mod inputs;
pub mod leaderboard;
pub mod merge;
pub mod outputs;
pub mod plan;
pub mod plan_file;
pub mod plot;
pub mod policies;
pub mod progress;
pub mod report;
pub mod results;
pub mod resume;
pub mod scheduler;
pub mod shard;
pub mod suite;
pub mod target;
pub mod verify;
pub mod worker;

use crate::recorder::RecorderError;
use std::path::{Path, PathBuf};

pub use plan::{PlannedEpisode, plan};
pub use results::EpisodeResult;
pub use shard::Shard;
pub use suite::Suite;
pub use target::{Autopilot, Autopilots, Target};

/// Why a bench run stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{path}: {message}")]
    Suite { path: PathBuf, message: String },
    #[error("--shard {0}")]
    Shard(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Record(#[from] RecorderError),
    #[error("episode {id}: {message}")]
    Episode { id: String, message: String },
    /// An autopilot would not be flown (not proven a simulator, not ready, …).
    #[error("episode {id}: {refusal}")]
    Refused {
        id: String,
        #[source]
        refusal: crate::agent::onboard::Refusal,
    },
    #[error("policy {name}: {message}")]
    Policy { name: String, message: String },
    #[error("worker: {0}")]
    Worker(String),
    #[error("writing outputs: {0}")]
    Output(String),
    #[error("merge: {0}")]
    Merge(String),
    #[error("{0}")]
    Inputs(String),
    #[error(
        "episode {id} has been running for {secs} s without finishing (a policy stuck in a \
         computation); giving up — the records so far are kept, a rerun resumes"
    )]
    Stalled { id: String, secs: u64 },
}

impl BenchError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Whether the input was at fault (exit 1) rather than the run (exit 3).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Self::Suite { .. }
                | Self::Shard(_)
                | Self::Policy { .. }
                | Self::Merge(_)
                | Self::Inputs(_)
        ) || matches!(self, Self::Refused { refusal, .. } if refusal.is_invalid_input())
    }
}

/// Where a run's suite comes from.
#[derive(Debug, Clone)]
pub enum SuiteSource {
    /// A suite file.
    File(PathBuf),
    /// A suite made on the command line (`sitl --scenario … --config …`).
    Made(Box<Suite>),
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub suite: SuiteSource,
    /// Where the episodes are flown.
    pub target: Target,
    pub out: PathBuf,
    pub shard: Shard,
    /// Overrides the suite's `concurrency`.
    pub concurrency: Option<usize>,
    /// Draw the progress bar (when stderr is a terminal).
    pub progress: bool,
    /// Print a line per episode as it ends (`sitl`: episodes take minutes each).
    pub report_each: bool,
    /// Give up on an episode running longer than this (default: [`worker::stall_limit`]).
    pub stall_limit: Option<std::time::Duration>,
    /// Delete the records of an earlier run in `out` first (see [`inputs::claim`]).
    pub fresh: bool,
    /// The metric the episodes are scored under.
    pub metric: alpha3_core::score::MetricVersion,
    /// The report's title (default: the suite's name and shard).
    pub title: Option<String>,
}

/// What a run did.
#[derive(Debug)]
pub struct RunSummary {
    pub suite: String,
    pub planned: usize,
    /// Complete before this run started (resumed).
    pub skipped: usize,
    /// Flown by this run.
    pub flown: usize,
    /// Torn or incomplete records thrown away and flown again.
    pub discarded: usize,
    /// Records of failed episodes flown again.
    pub retried: usize,
    /// Episodes this run could not fly to their end (recorded as failed, in the leaderboard).
    pub failures: Vec<worker::Failure>,
    pub concurrency: usize,
    pub elapsed_s: f64,
    pub report: PathBuf,
    pub board: crate::score::Leaderboard,
    /// Every episode's result, in episode-id order (resumed ones included).
    pub results: Vec<EpisodeResult>,
}

/// Runs (or resumes) a suite and writes every output.
pub fn run(options: &RunOptions) -> Result<RunSummary, BenchError> {
    let started = std::time::Instant::now();
    let suite = match &options.suite {
        SuiteSource::File(path) => Suite::load(path)?,
        SuiteSource::Made(suite) => (**suite).clone(),
    };
    let plan = plan::plan(&suite, options.shard);
    inputs::claim(
        &options.out,
        &inputs::Inputs::of(options.target.kind(), &suite, options.metric),
        options.fresh,
    )?;
    plan_file::write(
        &options.out,
        &plan_file::PlanFile::new(&suite.bench.name, &options.shard.to_string(), &plan),
    )?;
    let records = options.out.join("records");
    let scorer =
        worker::scorer_for(options.metric).map_err(|e| BenchError::Worker(e.to_string()))?;
    let state = resume::prepare(&records, &plan, &scorer)?;
    let concurrency = options
        .target
        .vehicles()
        .or(options.concurrency)
        .unwrap_or(suite.bench.concurrency as usize)
        .max(1);
    let mut bar = progress::Progress::with_output(
        state.pending.len(),
        options.progress && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let stall_limit = options
        .stall_limit
        .unwrap_or_else(|| worker::stall_limit(&suite, &options.target));
    let flown = worker::run_all(
        &suite,
        &plan,
        &state.pending,
        &records,
        worker::Pace {
            concurrency,
            stall_limit,
            metric: options.metric,
            target: options.target.clone(),
        },
        |r| {
            bar.tick(r.eval.success);
            if options.report_each {
                report_one(r);
            }
        },
    );
    bar.finish();
    let flown = flown?;
    let skipped = state.done.len();
    let mut results = state.done;
    let flown_count = flown.results.len();
    results.extend(flown.results);
    let manifest = outputs::Manifest {
        suite: suite.bench.name.clone(),
        shard: options.shard.to_string(),
        planned: plan.len(),
        completed: results.len(),
        metric_version: options.metric.as_str().into(),
        alpha3_version: env!("CARGO_PKG_VERSION").into(),
    };
    let title = match (&options.title, options.shard == Shard::WHOLE) {
        (Some(title), _) => title.clone(),
        (None, true) => format!("α3 bench — {}", suite.bench.name),
        (None, false) => format!("α3 bench — {} (shard {})", suite.bench.name, options.shard),
    };
    let board = outputs::write(
        &options.out,
        &title,
        &results,
        &suite.scenarios,
        Some(&manifest),
        options.metric,
    )?;
    results.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(RunSummary {
        suite: suite.bench.name.clone(),
        planned: plan.len(),
        skipped,
        flown: flown_count,
        discarded: state.discarded,
        retried: state.retried,
        failures: flown.failures,
        concurrency,
        elapsed_s: started.elapsed().as_secs_f64(),
        report: options.out.join("report.html"),
        board,
        results,
    })
}

/// One line for an episode that ended.
fn report_one(r: &EpisodeResult) {
    eprintln!(
        "  {}: {} ({}, task outcome {:.2}, safety {:.2})",
        r.id,
        if r.eval.success {
            "mission complete"
        } else {
            "not complete"
        },
        r.reason.as_deref().unwrap_or("?"),
        r.eval.to,
        r.eval.sp
    );
}
