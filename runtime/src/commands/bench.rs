//! `alpha3 bench`: scenarios × seeds × policies against the built-in world; `bench merge`
//! combines shards; `bench export` writes α3-Bench episode files from flight records. The work
//! is in [`crate::bench`]; this file is the command line and what it prints.

use crate::bench::{self, BenchError, RunOptions, scheduler};
use crate::exit::{self, Stop};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub action: Option<BenchAction>,
    /// Suite file, e.g. configs/bench/short.toml.
    #[arg(long)]
    pub suite: Option<PathBuf>,
    /// Results directory (records/, leaderboard.csv|json|md, report.html, inputs.json). A rerun
    /// into the same directory resumes: complete records are kept, the rest is flown again; it
    /// is refused when the suite, its configs or scenarios, or alpha3's version changed.
    #[arg(long, default_value = "out/bench")]
    pub out: PathBuf,
    /// Delete the records of an earlier run in --out and start afresh.
    #[arg(long)]
    pub fresh: bool,
    /// Run only shard i of n (`0/4`); combine shards with `alpha3 bench merge`. Without it, a
    /// Slurm array task (`SLURM_ARRAY_TASK_ID`/`_COUNT`) or a Kubernetes Indexed Job's pod
    /// (`JOB_COMPLETION_INDEX` with --shard-count) runs its own shard, written to
    /// `--out`/shards/I-of-N so that every task shares one --out.
    #[arg(long)]
    pub shard: Option<String>,
    /// The number of shards of a Kubernetes Indexed Job (its `completions`).
    #[arg(long)]
    pub shard_count: Option<u32>,
    /// Episodes run at once (worker threads); default: the suite's `concurrency`.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Give up when one episode runs longer than this many seconds of wall time (a stuck
    /// policy); default: twice every turn's deadline for every attempt, at least 600.
    #[arg(long)]
    pub episode_timeout_s: Option<u64>,
    /// The metric the episodes are scored under (alpha3-v2; alpha3-v3 for NR as three published
    /// runs support it; alpha3-v1 for ALPHA3.md's first reading); the records and reports name
    /// it.
    #[arg(long, default_value = alpha3_core::METRIC_VERSION)]
    pub metric: alpha3_core::score::MetricVersion,
}

#[derive(Debug, Subcommand)]
pub enum BenchAction {
    /// Combine the outputs of several shards into one leaderboard and report. Exits 3 when a
    /// planned episode is missing or two shards recorded one episode differently.
    Merge {
        /// Where the merged records, leaderboard and report go.
        #[arg(long)]
        out: PathBuf,
        /// The suite the shards ran: every one of its episodes must be present (without it,
        /// those in the shards' plans must).
        #[arg(long)]
        suite: Option<PathBuf>,
        /// The shards' --out directories; default: the folders under --out/shards/.
        shards: Vec<PathBuf>,
    },
    /// Write α3-Bench episode JSON files (`<out>/alpha3/<policy>/uav/*.json`) from records.
    Export {
        /// A records/ directory of flight records.
        #[arg(long)]
        records: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Export at most this many records (in file-name order).
        #[arg(long)]
        max: Option<usize>,
    },
}

pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    // What the work stops on is said as `alpha3 bench: …`; what `merge` and `export` find
    // in what they made, under their own names.
    let outcome = match &args.action {
        Some(BenchAction::Merge { out, suite, shards }) => run_merge(out, suite.as_deref(), shards)
            .map(|(s, n)| Stop::end("alpha3 bench merge", merged(out, &s, n))),
        Some(BenchAction::Export { records, out, max }) => {
            bench::export::export(records, out, *max)
                .map(|s| Stop::end("alpha3 bench export", exported(out, &s)))
                .map_err(Stop::from)
        }
        None => run_suite(args),
    };
    Ok(Stop::end("alpha3 bench", outcome))
}

/// The input at fault is exit 1, the run at fault exit 3.
impl From<BenchError> for Stop {
    fn from(e: BenchError) -> Self {
        if e.is_invalid_input() {
            Stop::invalid(e.to_string())
        } else {
            Stop::failure(e.to_string())
        }
    }
}

fn run_suite(args: &BenchArgs) -> Result<ExitCode, Stop> {
    let Some(suite) = &args.suite else {
        return Err(Stop::usage(
            "--suite FILE is required (or `bench merge`, `bench export`)",
        ));
    };
    let env = |name: &str| std::env::var(name).ok();
    let (shard, source) = scheduler::resolve(args.shard.as_deref(), args.shard_count, env)?;
    let (out, concurrency) = if source.is_scheduler() {
        // Every task of the job shares --out; each writes its own folder inside it, and uses
        // the CPUs the scheduler gave it unless told otherwise.
        let cpus = env("SLURM_CPUS_PER_TASK").and_then(|c| c.parse().ok());
        eprintln!("alpha3 bench: shard {shard} from the scheduler ({source:?})");
        (
            bench::merge::shard_dir(&args.out, shard),
            args.concurrency.or(cpus),
        )
    } else {
        (args.out.clone(), args.concurrency)
    };
    let summary = bench::run(&RunOptions {
        suite: bench::SuiteSource::File(suite.clone()),
        target: bench::Target::BuiltIn,
        out,
        shard,
        concurrency,
        progress: !args.quiet,
        report_each: false,
        stall_limit: args.episode_timeout_s.map(std::time::Duration::from_secs),
        fresh: args.fresh,
        metric: args.metric,
        title: None,
    })?;
    let rate = summary.flown as f64 / summary.elapsed_s.max(1e-9);
    let mut redone = String::new();
    if summary.discarded > 0 {
        redone += &format!(", {} incomplete record(s) redone", summary.discarded);
    }
    if summary.retried > 0 {
        redone += &format!(", {} failed episode(s) flown again", summary.retried);
    }
    eprintln!(
        "alpha3 bench: suite {} shard {}: {} episode(s) planned, {} flown, {} already recorded{}; {} worker(s), {:.1} s ({:.2} episodes/s)",
        summary.suite,
        shard,
        summary.planned,
        summary.flown,
        summary.skipped,
        redone,
        summary.concurrency,
        summary.elapsed_s,
        rate
    );
    for r in &summary.board.runs {
        let m = &r.summary;
        eprintln!(
            "  {:<28} α3 macro {:.4}  mean {:.4}  success rate {:.2}  valid {}/{}",
            r.model, m.alpha3_macro, m.mean, m.success_rate, m.n, m.requested
        );
    }
    println!("{}", summary.report.display());
    if summary.failures.is_empty() {
        return Ok(exit::code(exit::OK));
    }
    let mut lines: Vec<String> = summary
        .failures
        .iter()
        .map(|f| format!("episode {} failed: {}", f.id, f.why))
        .collect();
    lines.push(format!(
        "{} episode(s) failed; they are recorded as failed (counted in the leaderboard), and a \
         rerun flies them again",
        summary.failures.len()
    ));
    // Input at fault (a policy that would not build) is exit 1, anything else 3.
    let code = if summary.failures.iter().all(|f| f.invalid_input) {
        exit::INVALID
    } else {
        exit::FAILURE
    };
    Err(Stop { code, lines })
}

/// Merges the shards (all of them under `out` when none are named); gives what was merged and
/// from how many shards.
fn run_merge(
    out: &std::path::Path,
    suite: Option<&std::path::Path>,
    shards: &[PathBuf],
) -> Result<(bench::merge::MergeSummary, usize), Stop> {
    let shards = if shards.is_empty() {
        bench::merge::shards_under(out)?
    } else {
        shards.to_vec()
    };
    let whole: Option<Vec<String>> = match suite {
        Some(path) => {
            let suite = bench::Suite::load(path)?;
            Some(
                bench::plan(&suite, bench::Shard::WHOLE)
                    .into_iter()
                    .map(|p| p.id)
                    .collect(),
            )
        }
        None => None,
    };
    let s = bench::merge::merge(out, &shards, whole.as_deref())?;
    Ok((s, shards.len()))
}

/// What a merge left out; a planned episode missing or recorded differently twice stops it
/// (exit 3).
fn merged(
    out: &std::path::Path,
    s: &bench::merge::MergeSummary,
    shards: usize,
) -> Result<ExitCode, Stop> {
    for d in &s.duplicates {
        eprintln!("alpha3 bench merge: episode {d} appears in more than one shard; kept the first");
    }
    for d in &s.conflicting {
        eprintln!("alpha3 bench merge: episode {d} was recorded differently by two shards");
    }
    for f in &s.incomplete {
        eprintln!(
            "alpha3 bench merge: {}: incomplete record, left out",
            f.display()
        );
    }
    if !s.missing_shards.is_empty() {
        eprintln!(
            "alpha3 bench merge: shard(s) {:?} not given; the leaderboard covers only the rest",
            s.missing_shards
        );
    }
    const NAMED: usize = 20;
    for id in s.missing.iter().take(NAMED) {
        eprintln!("alpha3 bench merge: missing episode {id}");
    }
    if s.missing.len() > NAMED {
        eprintln!(
            "alpha3 bench merge: … and {} more missing episode(s)",
            s.missing.len() - NAMED
        );
    }
    let merged = format!("{} episode(s) from {shards} shard(s)", s.episodes);
    println!("{}", out.join("report.html").display());
    if s.is_complete() {
        eprintln!("alpha3 bench merge: {merged}");
        return Ok(exit::code(exit::OK));
    }
    Err(Stop::failure(format!(
        "{merged}; {} planned episode(s) missing, {} conflicting",
        s.missing.len(),
        s.conflicting.len()
    )))
}

/// What an export wrote; a record left out stops it (exit 1), each named with why.
fn exported(out: &std::path::Path, s: &bench::export::ExportSummary) -> Result<ExitCode, Stop> {
    let wrote = format!(
        "wrote {} episode file(s) under {}",
        s.written.len(),
        out.display()
    );
    if s.skipped.is_empty() {
        eprintln!("alpha3 bench export: {wrote}");
        return Ok(exit::code(exit::OK));
    }
    let mut lines: Vec<String> = s
        .skipped
        .iter()
        .map(|(f, why)| format!("{}: {why}; skipped", f.display()))
        .collect();
    lines.push(wrote);
    Err(Stop {
        code: exit::INVALID,
        lines,
    })
}
