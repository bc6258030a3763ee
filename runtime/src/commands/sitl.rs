//! `alpha3 sitl`: scenarios against PX4 SITL; network, traffic and operator from the world.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SitlArgs {
    /// Suite file (as for `bench`).
    #[arg(long)]
    pub suite: PathBuf,
    /// Where PX4 SITL talks MAVLink.
    #[arg(long, default_value = "udpin:0.0.0.0:14540")]
    pub connect: String,
    #[arg(long, default_value = "out/sitl")]
    pub out: PathBuf,
}

pub fn run(_args: &SitlArgs) -> anyhow::Result<ExitCode> {
    super::unavailable("sitl", 8)
}
