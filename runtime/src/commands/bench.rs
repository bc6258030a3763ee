//! `alpha3 bench`: scenarios × seeds × policies against the built-in world.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Suite file, e.g. configs/bench/short.toml.
    #[arg(long)]
    pub suite: PathBuf,
    /// Results directory (flight records, leaderboard, report).
    #[arg(long, default_value = "out/bench")]
    pub out: PathBuf,
    /// Run only shard i of n (`0/4`).
    #[arg(long)]
    pub shard: Option<String>,
}

pub fn run(_args: &BenchArgs) -> anyhow::Result<ExitCode> {
    super::unavailable("bench", 8)
}
