//! `alpha3 score`: score flight records or published α3-Bench episodes and write the
//! leaderboard. The scoring itself is `alpha3_core::score` (pure); this module finds and reads
//! files, groups them into runs and writes reports.
//!
//! Bad input is data, not a crash: an unreadable, malformed or truncated file is reported
//! (file, reason) on stderr and in the reports, and counted as a generation failure of its run.

mod compare;
mod load;
mod report;

pub use compare::{Comparison, PublishedRow, parse_py_dict, read_published};
pub use load::{RunInput, RunKey, discover, score_file};
pub use report::{CSV_COLUMNS, Leaderboard, PASS_K_SHOWN, RunReport, pass_k_cell, py_float};

use crate::exit::{self, Halt, Stop};
use alpha3_core::score::{MetricVersion, ScoreOptions, Scorer};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `alpha3 score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Episode files, directories laid out as `<vendor>/<model>/uav/*.json`, or flight records
    /// (`.jsonl`). `.ipynb_checkpoints` folders are skipped.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write leaderboard.csv, leaderboard.json and leaderboard.md here (and compare.csv with
    /// --compare); without it the Markdown table goes to stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A published leaderboard CSV to compare against: ours, published and the difference per
    /// model and column.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// Hold published episodes to the catalogue's argument and result schemas wherever an
    /// action's name is a catalogue tool (TC); by default their free-form vocabulary is only
    /// checked for shape.
    #[arg(long)]
    pub catalogue_schemas: bool,
    /// The metric's definitions: alpha3-v2 (CC and IQ as the published leaderboard computes
    /// them), alpha3-v3 (v2 with NR's adaptation and slice terms as three published runs support
    /// them) or alpha3-v1 (ALPHA3.md's first reading).
    #[arg(long, default_value = alpha3_core::METRIC_VERSION)]
    pub metric: MetricVersion,
}

/// Runs `alpha3 score`.
pub fn run(args: &ScoreArgs) -> anyhow::Result<ExitCode> {
    Halt::end("alpha3 score", run_checked(args))
}

fn run_checked(args: &ScoreArgs) -> Result<ExitCode, Halt> {
    let options = ScoreOptions {
        published_catalogue_schemas: args.catalogue_schemas,
        metric: args.metric,
        ..ScoreOptions::default()
    };
    let scorer = Scorer::new(options).context("building the scorer")?;
    let (files, missing) = discover(&args.paths, args.out.as_deref());
    for m in &missing {
        eprintln!("alpha3 score: {}: no such file or directory", m.display());
    }
    if files.is_empty() {
        return Err(
            Stop::invalid("no episode files (.json) or flight records (.jsonl) found").into(),
        );
    }
    let board = Leaderboard::build(load::score_files(&scorer, &files), args.metric);
    for r in &board.runs {
        for p in &r.problems {
            eprintln!(
                "alpha3 score: {}: {} (counted as a generation failure of {})",
                p.file, p.reason, r.model
            );
        }
    }
    match &args.out {
        Some(dir) => {
            board.write(dir)?;
            eprintln!(
                "alpha3 score: {} run(s), {} file(s) scored; wrote {}",
                board.runs.len(),
                files.len(),
                dir.display()
            );
        }
        None => print!("{}", board.to_markdown()),
    }
    if let Some(published) = &args.compare {
        let rows = compare::compare(&board, &read_published(published)?);
        println!("\nCompared with {}:", published.display());
        print!("{}", compare::to_table(&rows));
        if let Some(dir) = &args.out {
            let path = dir.join("compare.csv");
            std::fs::write(&path, compare::to_csv(&rows)?)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    // A path that was not there is named above, as the run began; the rest was scored.
    Ok(exit::code(if missing.is_empty() {
        exit::OK
    } else {
        exit::INVALID
    }))
}
