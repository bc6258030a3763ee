//! A real swarm (issue 33): one runtime per vehicle, each with its own gate, policy, watchdog
//! and record, talking over the vehicles' shared MAVLink network.
//!
//! - [`member`]: one runtime's end — its mates' broadcast positions and signed A2A intents in,
//!   its own intent out, its mates as the gate's peer plans ([`SwarmMember`]);
//! - [`hub`]: the network on one machine (a router, as a radio mesh would be) and the swarm's
//!   truth: separation from the autopilots' own positions ([`run_hub`]);
//! - [`file`](mod@file): a swarm file — vehicles, their scenarios, one common frame ([`SwarmFile`]).
//!
//! `alpha3 swarm` (`commands::swarm`) starts the autopilots, the hub and one `alpha3 fly` per
//! vehicle, as N companion computers would be.

pub mod file;
pub mod hub;
pub mod member;

pub use file::{SwarmFile, SwarmVehicle};
pub use hub::{HubAutopilot, HubOptions, HubReport, run_hub};
pub use member::{SwarmMember, SwarmOptions, SwarmReport};
