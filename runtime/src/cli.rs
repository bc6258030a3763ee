//! The command line: one subcommand per mode of the binary.

#[cfg(feature = "mcp")]
use crate::commands::mcp;
use crate::commands::{bench, check, fly, perf, review, sim_vehicle, sitl, swarm, validate};
use crate::score::ScoreArgs;
use clap::{Parser, Subcommand};

/// alpha3 — an LLM flies drone missions without ever being trusted: every command it proposes
/// is checked by a deterministic safety gate before it reaches the flight controller, and every
/// episode is scored with the α3 metric.
#[derive(Debug, Parser)]
#[command(name = "alpha3", version, after_help = crate::exit::TABLE)]
pub struct Cli {
    /// Log filter (tracing env-filter syntax); RUST_LOG wins when set.
    #[arg(long, global = true, default_value = "warn")]
    pub log: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a benchmark suite (scenarios × seeds × policies) against the built-in world.
    #[command(after_help = crate::exit::TABLE)]
    Bench(bench::BenchArgs),
    /// Score flight records or published α3-Bench episode files.
    #[command(after_help = crate::exit::TABLE)]
    Score(ScoreArgs),
    /// Check a whole QGroundControl plan before take-off, against the autopilot's own airspace.
    #[command(after_help = crate::exit::TABLE)]
    Check(check::CheckArgs),
    /// Fly a mission onboard, attached to a PX4 or ArduPilot flight controller.
    #[command(after_help = crate::exit::TABLE)]
    Fly(fly::FlyArgs),
    /// Serve MCP: any MCP client flies one mission through the gate, and the session is recorded.
    #[cfg(feature = "mcp")]
    #[command(after_help = crate::exit::TABLE)]
    Mcp(mcp::McpArgs),
    /// Run scenarios against a PX4 SITL vehicle.
    #[command(after_help = crate::exit::TABLE)]
    Sitl(sitl::SitlArgs),
    /// Fly a swarm on real PX4 SITL: one autopilot and one onboard runtime per vehicle, agent
    /// to agent over signed MAVLink, separation measured in truth.
    #[command(after_help = crate::exit::TABLE)]
    Swarm(swarm::SwarmArgs),
    /// Run the built-in world as a PX4-like vehicle on the MAVLink wire.
    #[command(after_help = crate::exit::TABLE)]
    SimVehicle(sim_vehicle::SimVehicleArgs),
    /// Measure this device: gate latency, world steps/s, MAVLink decode rate, LLM speed.
    #[command(after_help = crate::exit::TABLE)]
    Perf(perf::PerfArgs),
    /// Check configs, scenarios, episode files and flight records against their schemas.
    #[command(after_help = crate::exit::TABLE)]
    Validate(validate::ValidateArgs),
    /// Write a self-contained HTML page per flight record: map, timelines, dialogue, pillars.
    #[command(after_help = crate::exit::TABLE)]
    Review(review::ReviewArgs),
}
