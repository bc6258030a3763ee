//! The vehicle-link contract shared by every backend: the built-in world in process
//! (`alpha3-sim`) and a real or SITL autopilot over MAVLink (`alpha3-hil`).
//!
//! Only an [`ApprovedCommand`] can be sent, so a gate bypass does not compile. A send returns
//! when the backend has handed the command over (and, for MAVLink, got its `COMMAND_ACK`); an
//! acknowledgement is not proof of action — callers confirm by later snapshots. Time passes
//! through [`VehicleLink::advance`]: the world steps its physics to `until_ms` (deterministic),
//! a MAVLink link waits on the real clock while ingesting telemetry.

use crate::gate::ApprovedCommand;
use crate::snapshot::VehicleSnapshot;
use std::future::Future;

/// What a backend reports for a command it was given.
#[derive(Debug, Clone, PartialEq)]
pub struct SendReceipt {
    /// The vehicle accepted the command (MAVLink: `MAV_RESULT_ACCEPTED`/`IN_PROGRESS`).
    pub accepted: bool,
    /// The vehicle's own words when it refused or warned (e.g. a STATUSTEXT).
    pub message: Option<String>,
    /// Backend time when the answer came, milliseconds.
    pub at_ms: u64,
}

/// Why a link could not do what was asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinkError {
    #[error("no link to the vehicle: {0}")]
    Disconnected(String),
    #[error("no answer within {timeout_ms} ms to {what}")]
    Timeout { what: String, timeout_ms: u64 },
    #[error("the vehicle refused {what}: {reason}")]
    Refused { what: String, reason: String },
    #[error("link I/O: {0}")]
    Io(String),
}

/// A vehicle backend.
pub trait VehicleLink {
    /// The newest snapshot (never blocks).
    fn snapshot(&self) -> VehicleSnapshot;

    /// Hands an approved command to the vehicle.
    fn send(
        &mut self,
        command: ApprovedCommand,
    ) -> impl Future<Output = Result<SendReceipt, LinkError>>;

    /// Lets the vehicle side run until backend time `until_ms`.
    fn advance(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>>;

    /// Backend time now, milliseconds (the world's simulated clock, or the link's clock).
    fn now_ms(&self) -> u64;
}
