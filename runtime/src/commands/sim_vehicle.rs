//! `alpha3 sim-vehicle`: the built-in world as a PX4 SITL-like vehicle on MAVLink.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SimVehicleArgs {
    /// Scenario file (UAVBench JSON).
    #[arg(long)]
    pub scenario: PathBuf,
    /// SITL instance: ports 14540+N, system id N+1.
    #[arg(long, default_value_t = 0)]
    pub instance: u16,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(_args: &SimVehicleArgs) -> anyhow::Result<ExitCode> {
    super::unavailable("sim-vehicle", 6)
}
