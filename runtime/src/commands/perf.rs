//! `alpha3 perf`: measures whether this device keeps up.

use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PerfArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: &PerfArgs) -> anyhow::Result<ExitCode> {
    super::unavailable("perf", 8)
}
