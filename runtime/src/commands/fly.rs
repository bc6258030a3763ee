//! `alpha3 fly`: onboard, attached to a flight controller.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct FlyArgs {
    /// Runtime config (vehicle, limits, policy, link, watchdog, record).
    #[arg(long)]
    pub config: PathBuf,
    /// Override the config's flight-controller address (`serial:/dev/ttyAMA0:921600`, `udpin:0.0.0.0:14540`).
    #[arg(long)]
    pub connect: Option<String>,
    /// Allow a flight controller that is not provably simulated.
    #[arg(long)]
    pub allow_real_vehicle: bool,
}

pub fn run(_args: &FlyArgs) -> anyhow::Result<ExitCode> {
    super::unavailable("fly", 8)
}
