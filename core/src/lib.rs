//! # alpha3-core
//!
//! The pure decisions of alpha3: nothing here reads a clock, touches a file or a socket, or draws
//! a random number — time and seeds are arguments. That keeps the code that decides whether the
//! aircraft may do something readable, testable and replayable without a flight controller or an
//! LLM.
//!
//! A tour:
//! - [`frames`]: local ENU ↔ NED ↔ WGS-84, the one place frames are converted.
//! - [`snapshot`]: [`snapshot::VehicleSnapshot`], what the runtime knows about the vehicle.
//! - [`command`]: what a policy may ask; [`gate::ApprovedCommand`] is what a vehicle accepts, and
//!   only [`gate`] can make one.
//! - [`protocol`]: the tool catalogue (MCP tools, A2A tasks) with JSON Schemas, and agent turns.
//! - [`episode`]: α3-Bench episode files, read and written losslessly.
//! - [`scenario`]: UAVBench scenarios. [`airspace`]: fences and no-fly zones.
//! - [`record`]: the flight record (JSON Lines). [`config`]: TOML configuration and its rules.
//! - [`schema`] and [`document`]: published JSON Schemas and document checking for `validate`.
//! - [`link`]: slices, link samples, the link monitor and the slice policy.
//! - [`vehicle`]: the flight-controller trait every backend implements.
//! - [`failsafe`]: the watchdog's ladder and where its return goes.
//! - [`mission_file`]: QGroundControl `.plan` and `QGC WPL 110` files; [`plan_mission`]: a plan
//!   flown in the airspace that is real (its fence ∩ the autopilot's), checked before take-off.
//! - [`operator_line`]: operator lines framed from untrusted bytes, with bounded memory.

pub mod airspace;
pub mod command;
pub mod config;
pub mod copter_modes;
pub mod document;
pub mod episode;
pub mod failsafe;
pub mod frames;
pub mod gate;
pub mod link;
pub mod mission_file;
pub mod operator_line;
pub mod plan_mission;
pub mod protocol;
pub mod px4_modes;
pub mod record;
pub mod scenario;
pub mod schema;
pub mod score;
pub mod snapshot;
pub mod swarm;
pub mod vehicle;

/// The default α3 metric version, which every score and report names
/// ([`score::MetricVersion`]; `alpha3-v1` stays selectable).
pub const METRIC_VERSION: &str = "alpha3-v2";
