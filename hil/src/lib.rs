//! # alpha3-hil
//!
//! The companion side of a real (or SITL) flight controller: MAVLink over serial, UDP or TCP,
//! PX4 and ArduPilot profiles, preflight checks and link measurements, behind the
//! [`VehicleLink`](alpha3_core::vehicle::VehicleLink) trait.
//!
//! A sans-IO core with a thin async shell, as quinn-proto and rust-mavlink do it:
//! - [`wire`]: bytes ↔ messages (framing from the `mavlink` crate; signing with time as an
//!   argument).
//! - [`session::Session`]: the whole protocol state machine — takes bytes (with their sender,
//!   for datagrams) and time, gives frames, wake-up times and [`session::Event`]s. It binds to
//!   the first autopilot heard and drops (and counts) every other sender's frames. Built from
//!   one micro-service per file:
//!   [`heartbeat`], [`telemetry`] (the snapshot cache), [`command`] (COMMAND_LONG/INT + ACK),
//!   [`procedure`] (steps and telemetry confirmation, [`confirm`]), [`offboard`] (setpoint stream),
//!   [`param`] (PARAM protocol), [`timesync`], [`statustext`], [`streams`] (telemetry
//!   requests), [`readiness`] (whether the autopilot says it could arm, and why not) and
//!   [`measure`] (RTT, jitter, loss, throughput).
//! - [`translate()`]: a [`Command`](alpha3_core::command::Command) as MAVLink steps for a
//!   [`Profile`]; [`preflight`]: the autopilot's failsafe parameters; [`simulator`]: whether
//!   the autopilot is a SITL, from its own parameters.
//! - [`shell`]: transports (tokio, tokio-serial), reconnection, and [`HilLink`], the
//!   `VehicleLink` implementation, which only accepts gate-approved commands.
//! - [`a2a`]: a swarm's agent-to-agent messages in signed `TUNNEL` frames on the vehicles'
//!   shared network (chunks, bounded reassembly, who is trusted), sans-IO.

pub mod a2a;
pub mod command;
pub mod confirm;
pub mod dialect;
pub mod error;
pub mod heartbeat;
pub mod measure;
pub mod mission;
pub mod offboard;
pub mod param;
pub mod param_guard;
pub mod preflight;
pub mod procedure;
pub mod profile;
pub mod readiness;
pub mod session;
pub mod simulator;
pub mod statustext;
pub mod streams;
pub mod telemetry;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod timesync;
pub mod tlog;
pub mod translate;
pub mod vehicle_clock;
pub mod wire;

pub use error::HilError;
pub use profile::Profile;
pub use translate::translate;
pub mod shell;

pub use shell::{
    ConnectOptions, DownloadedPlan, HilLink, LinkStatus, ReadyToFly, ready_to_fly,
    wait_ready_to_fly,
};
