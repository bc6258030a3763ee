//! `alpha3 score`: score flight records or published α3-Bench episodes (issue 3).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `alpha3 score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Episode files, directories laid out as `<vendor>/<model>/uav/*.json`, or flight records.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write leaderboard.csv, leaderboard.json and leaderboard.md here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A published leaderboard CSV to compare against.
    #[arg(long)]
    pub compare: Option<PathBuf>,
}

/// Runs `alpha3 score`.
pub fn run(_args: &ScoreArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`alpha3 score` is not in this build yet")
}
