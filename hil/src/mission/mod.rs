//! The MAVLink mission protocol, client side, for the mission, fence and rally plans
//! (`mission_type` 0/1/2): download, upload, clear, and the autopilot's MISSION_CURRENT /
//! MISSION_ITEM_REACHED. A sans-IO state machine like [`param`](crate::param) and
//! [`command`](crate::command): messages and time in, frames, deadlines and events out.
//!
//! PX4 and ArduPilot speak the same messages but differ where it matters to a client
//! (`shared/MISSION-FACTS.md` §1-2): ArduPilot's seq 0 is home (reported apart on download,
//! filled with a placeholder on upload), it asks for items with MISSION_REQUEST (40) where PX4
//! uses MISSION_REQUEST_INT (51), answers an out-of-sequence item with ACK 13 and carries on,
//! and ignores our final ACK; PX4 serves a download strictly in order and names its plans by
//! CRC in MISSION_CURRENT, which is how a change by someone else is noticed.
//!
//! - [`MissionClient`] (`client.rs`): the machine and its API.
//! - `download.rs`, `upload.rs`, `clear.rs`: one transfer each; `transfer.rs` holds the one in
//!   progress; `retry.rs` its timer; `messages.rs` the frames sent.
//! - [`MissionItem`], [`MissionKind`], [`MissionEvent`], [`MissionError`], [`MissionTiming`],
//!   [`MissionCurrent`] (`watch.rs`).
//! - `convert.rs`: the same item as `core`'s plan-file [`MissionItem`](alpha3_core::mission_file::MissionItem).
//! - `fake/` (feature `test-support`): scripted PX4 and ArduPilot peers and a lossy link.

mod clear;
mod client;
mod context;
mod convert;
mod download;
mod error;
mod event;
mod item;
mod kind;
mod messages;
mod outbox;
mod retry;
mod timing;
mod transfer;
mod upload;
mod watch;

pub use client::MissionClient;
pub use convert::{ConvertError, to_file, to_wire};
pub use error::{Awaited, MissionError, Operation};
pub use event::MissionEvent;
pub use item::MissionItem;
pub use kind::MissionKind;
pub use outbox::MAX_OUTBOX;
pub use timing::MissionTiming;
pub use watch::MissionCurrent;

#[cfg(feature = "test-support")]
pub mod fake;
#[cfg(test)]
mod tests;
