//! The flight controller an episode flies: one contract for every backend — the built-in world
//! in process (`alpha3-sim`), a real or SITL autopilot over MAVLink (`alpha3-hil`), and the
//! runtime's linked vehicle (an autopilot with the world as its twin).
//!
//! Only an [`ApprovedCommand`] can be sent, so a gate bypass does not compile. A send returns
//! when the backend has handed the command over (and, for MAVLink, got its `COMMAND_ACK`); an
//! acknowledgement is not proof of action — callers confirm by later snapshots. Time passes
//! through [`VehicleLink::advance_to`]: the world steps its physics to `until_ms`
//! (deterministic), a MAVLink link waits on its clock while ingesting telemetry.
//!
//! What surrounds the vehicle (network, traffic, peers, sensors, operator, mission truth) is
//! not part of this contract.

mod settled;

pub use settled::reported_settled;

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

/// A flight controller.
pub trait VehicleLink {
    /// The newest snapshot (never blocks): what the gate and the agent see.
    fn snapshot(&self) -> VehicleSnapshot;

    /// Hands an approved command to the vehicle.
    fn send(
        &mut self,
        command: ApprovedCommand,
    ) -> impl Future<Output = Result<SendReceipt, LinkError>>;

    /// Hands an approved command to the vehicle and answers with a receipt either way: a link
    /// error is a refusal in the error's words, at the backend time it came.
    fn execute(&mut self, command: &ApprovedCommand) -> impl Future<Output = SendReceipt> {
        async move {
            match self.send(command.clone()).await {
                Ok(receipt) => receipt,
                Err(e) => SendReceipt {
                    accepted: false,
                    message: Some(e.to_string()),
                    at_ms: self.now_ms(),
                },
            }
        }
    }

    /// Lets the vehicle side run until backend time `until_ms`. An error means the vehicle can
    /// no longer be reached at all (the link task ended).
    fn advance_to(&mut self, until_ms: u64) -> impl Future<Output = Result<(), LinkError>>;

    /// Backend time now, milliseconds (the world's simulated clock, or the link's clock).
    fn now_ms(&self) -> u64;

    /// Whether the last command is done. By default the snapshot alone decides
    /// ([`reported_settled`] with no target); a backend that knows more says more.
    fn is_settled(&self) -> bool {
        reported_settled(&self.snapshot(), None)
    }

    /// Time runs on its own (a real or SITL autopilot): a caller keeps advancing while it
    /// waits on something else. The world's time only moves when it is advanced.
    fn realtime(&self) -> bool {
        false
    }

    /// The flight controller itself is out of reach (no heartbeat, no transport).
    fn vehicle_lost(&self) -> bool {
        false
    }
}
