//! Why a mission transfer could not start or did not finish.
//!
//! A transfer that ends early is never reported as success: every failure says how many items
//! got through (`done`) of how many (`total`), so a partial plan is visible as partial.

use super::kind::MissionKind;
use crate::dialect::mav::MavMissionResult;

/// The three transfers of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Download,
    Upload,
    Clear,
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Operation::Download => "download",
            Operation::Upload => "upload",
            Operation::Clear => "clear",
        })
    }
}

/// What the client was waiting for when the autopilot fell silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Awaited {
    /// MISSION_COUNT, after MISSION_REQUEST_LIST.
    Count,
    /// MISSION_ITEM_INT `seq`, after MISSION_REQUEST_INT.
    Item { seq: u16 },
    /// The autopilot's next MISSION_REQUEST(_INT) or its final ACK, during an upload.
    Request,
    /// MISSION_ACK, after MISSION_CLEAR_ALL.
    Ack,
}

impl std::fmt::Display for Awaited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Awaited::Count => f.write_str("MISSION_COUNT"),
            Awaited::Item { seq } => write!(f, "item {seq}"),
            Awaited::Request => f.write_str("the next request or the final ACK"),
            Awaited::Ack => f.write_str("MISSION_ACK"),
        }
    }
}

/// A mission-protocol failure, typed so callers can tell a refusal from silence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MissionError {
    /// One transfer at a time: the autopilots themselves refuse a second one (PX4 ACK 1,
    /// ArduPilot ACK 14), and their ACKs could not be told apart.
    #[error("a {kind} {operation} is already in progress")]
    Busy {
        operation: Operation,
        kind: MissionKind,
    },
    /// More items than any autopilot stores for this kind (ours to upload, or the autopilot's
    /// MISSION_COUNT on download).
    #[error("{count} {kind} items exceed the cap of {cap}")]
    TooMany {
        kind: MissionKind,
        count: usize,
        cap: u16,
    },
    /// The autopilot ended the transfer with MISSION_ACK `result`.
    #[error(
        "{kind} {operation} refused by the autopilot with {result:?} after {done} of {total} items"
    )]
    Refused {
        operation: Operation,
        kind: MissionKind,
        result: MavMissionResult,
        done: u16,
        total: u16,
    },
    /// No answer after the first send and every retry.
    #[error(
        "{kind} {operation} timed out waiting for {awaited} after {sends} sends: {done} of {} items",
        total.map_or_else(|| "?".to_string(), |t| t.to_string())
    )]
    TimedOut {
        operation: Operation,
        kind: MissionKind,
        awaited: Awaited,
        sends: u32,
        done: u16,
        total: Option<u16>,
    },
}
