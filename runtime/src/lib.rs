//! # alpha3
//!
//! The runtime and the `alpha3` command: policies (LLMs), the agent loop, the watchdog, the
//! flight record, benchmarks and reports. Decisions are made in `alpha3-core`; this crate reads
//! clocks, files and sockets and calls it.

pub mod agent;
pub mod bench;
pub mod cli;
pub mod commands;
pub mod episode_setup;
pub mod exit;
pub mod log_filter;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod mission_plan;
pub mod operator_channel;
pub mod perf;
pub mod policy;
pub mod real_vehicle;
pub mod record_header;
pub mod recorder;
pub mod review;
pub mod score;
pub mod sitl;
pub mod swarm;
pub mod unsigned_link;
