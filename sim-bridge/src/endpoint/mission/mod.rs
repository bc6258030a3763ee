//! # The autopilot side of the mission protocol
//!
//! [`MissionServer`] stores the mission, fence and rally plans (`mission_type` 0/1/2) and
//! serves them over MAVLink as PX4 does, or as ArduPilot does where the two differ
//! (`shared/MISSION-FACTS.md` §1, §7, with the PX4 and ArduPilot source lines cited in each
//! file). A sans-IO state machine like the client side in `alpha3-hil`'s `mission`: the
//! machine hands it each mission message and the time, and sends, says and enforces what it
//! returns ([`Output`]). Whatever a peer sends, it holds at most the plans' capacities (PX4:
//! mission 10,000, fence 64, rally 32 items; ArduPilot: 650/70/46) twice over, and never
//! panics.
//!
//! - `server`: [`MissionServer`] and the [`Situation`] of the vehicle it needs.
//! - `px4/`: PX4's mission manager, one per link (`upload`, `download`, clocks,
//!   MISSION_CURRENT); `ardupilot/`: ArduPilot's, one per plan.
//! - `plans`: what is stored; `item`: one item and its wire forms; `kind`: [`PlanKind`];
//!   `check`: which items each autopilot takes; `crc`: PX4's plan id; `messages`, `peer`,
//!   `outbox`: what goes out, to whom.

mod ardupilot;
mod check;
mod crc;
mod item;
mod kind;
mod messages;
mod outbox;
mod peer;
mod plans;
mod px4;
mod server;

pub use item::Item;
pub use kind::PlanKind;
pub use outbox::Output;
pub use server::{MissionServer, Progress, Situation};

#[cfg(test)]
mod tests;
