//! Agent-to-agent messages between the vehicles of a swarm, carried in MAVLink `TUNNEL` (#385)
//! frames on the network the vehicles already share (a radio mesh or a MAVLink router), signed
//! with the swarm's key.
//!
//! Why `TUNNEL`: routers, radios and ground stations forward it unchanged, where a message of
//! our own dialect would need every hop rebuilt, and MAVLink 2 signing covers it as any
//! message. Its `payload_type` is [`A2A_PAYLOAD_TYPE`], a code from the range MAVLink leaves
//! to local use (above 32767). A message longer than one frame's 128 bytes goes in chunks
//! ([`chunk`]) joined again with bounded memory ([`reassembly`]). [`SwarmWire`] is one vehicle's
//! end of the link; what a message says is the caller's (JSON in alpha3, `core::swarm`).

pub mod chunk;
pub mod reassembly;
pub mod tunnel;
mod wire;

pub use reassembly::Sender;
pub use wire::{SwarmCounts, SwarmEvent, SwarmWire};

/// `TUNNEL.payload_type` of alpha3's A2A chunks: 0xA2A3, in MAVLink's local-use range
/// (`MAV_TUNNEL_PAYLOAD_TYPE` values above 32767 are for private use).
pub const A2A_PAYLOAD_TYPE: u16 = 0xA2A3;

#[cfg(test)]
mod tests;
