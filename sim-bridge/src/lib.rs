//! # alpha3-sim
//!
//! The built-in world in which the agent's tools really run: deterministic and seeded — the
//! same scenario and seed give the same world bit for bit on any machine (PCG streams per part,
//! pure-Rust `libm` for every transcendental function, no clock, no hash maps).
//!
//! A tour:
//! - [`scenario`]: the UAVBench loader, a seeded generator of the same JSON shape across mission
//!   types, weather, density, traffic, faults and network stress, and the fixed 50-scenario
//!   suite in `configs/scenarios/`.
//! - [`world::World`]: one scenario and one seed; [`World::step`] advances time by a given
//!   `dt`, [`World::execute`] plays the flight controller for a gate-approved [`Command`],
//!   and the tool methods reach sensors, the network, peers and the operator.
//! - Physics: [`dynamics`] (point-mass multicopter), [`flight_controller`], [`wind`],
//!   [`sensors`], [`battery`], [`faults`].
//! - [`network`]: 6G slices with calibrated distributions, a Markov chain of radio conditions,
//!   loss windows and delayed slice switches.
//! - [`traffic`], [`cpa`] and [`peers`]: other aircraft, exact closest approach, A2A answers.
//! - [`operator`]: the scripted, seeded, versioned `user` speaker.
//! - [`evaluator`]: Task Outcome and the violation trace for the Safety pillar, from the truth.
//! - [`backend`]: the world as core's `VehicleLink`. `rollout` (feature `test-support`):
//!   episodes with a trivial policy and no gate, for this crate's benchmarks and tests.
//!
//! [`World::step`]: world::World::step
//! [`World::execute`]: world::World::execute
//! [`Command`]: alpha3_core::command::Command

pub mod backend;
pub mod battery;
pub mod cpa;
pub mod dynamics;
pub mod endpoint;
pub mod error;
pub mod evaluator;
pub mod faults;
pub mod flight_controller;
pub mod geometry;
pub mod network;
pub mod operator;
pub mod payload;
pub mod peers;
pub mod rng;
#[cfg(any(test, feature = "test-support"))]
pub mod rollout;
pub mod scenario;
pub mod sensors;
pub mod traffic;
pub mod vec3;
pub mod wind;
pub mod world;

pub use error::SimError;
pub use operator::OPERATOR_VERSION;
pub use world::{World, WorldOptions};
