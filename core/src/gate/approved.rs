//! [`ApprovedCommand`]: the only thing a vehicle link accepts.

use crate::command::Command;
use serde::Serialize;

/// A command that passed the gate, possibly clamped. Its constructor is private to the gate
/// module, so bypassing the gate is a compile error:
///
/// ```compile_fail
/// use alpha3_core::command::Command;
/// use alpha3_core::gate::ApprovedCommand;
/// let c = ApprovedCommand::new(Command::Hold, 0); // private: does not compile
/// ```
///
/// ```compile_fail
/// use alpha3_core::command::Command;
/// use alpha3_core::gate::ApprovedCommand;
/// let c = ApprovedCommand { command: Command::Hold, approved_at_ms: 0 }; // private fields
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovedCommand {
    command: Command,
    approved_at_ms: u64,
}

impl ApprovedCommand {
    /// Only the gate calls this.
    pub(in crate::gate) fn new(command: Command, approved_at_ms: u64) -> Self {
        Self {
            command,
            approved_at_ms,
        }
    }

    pub fn command(&self) -> &Command {
        &self.command
    }

    /// The time the gate approved it (the `now` it was evaluated at).
    pub fn approved_at_ms(&self) -> u64 {
        self.approved_at_ms
    }
}
