//! The `alpha3` binary: parse the command line, set up logs, run the subcommand.

use alpha3::cli::{Cli, Command};
#[cfg(feature = "mcp")]
use alpha3::commands::mcp;
use alpha3::commands::{bench, check, fly, perf, review, sim_vehicle, sitl, swarm, validate};
use alpha3::exit::Stop;
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // RUST_LOG wins when set; either way llama.cpp's own lines only show at debug.
    let spec = std::env::var("RUST_LOG")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| cli.log.clone());
    let filter = tracing_subscriber::EnvFilter::new(alpha3::log_filter::log_filter(&spec));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let result = match &cli.command {
        Command::Bench(a) => bench::run(a),
        Command::Score(a) => alpha3::score::run(a),
        Command::Check(a) => check::run(a),
        Command::Fly(a) => fly::run(a),
        #[cfg(feature = "mcp")]
        Command::Mcp(a) => mcp::run(a),
        Command::Sitl(a) => sitl::run(a),
        Command::Swarm(a) => swarm::run(a),
        Command::SimVehicle(a) => sim_vehicle::run(a),
        Command::Perf(a) => perf::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Review(a) => review::run(a),
    };
    // What a command could not name ends here, as a runtime failure (exit 3).
    result.unwrap_or_else(|e| Stop::failure(format!("error: {e:#}")).report("alpha3"))
}
