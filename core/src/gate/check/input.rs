//! What every check sees.

use crate::command::Command;
use crate::gate::context::GateContext;
use crate::gate::memory::GateState;
use crate::gate::plan::Plan;
use crate::snapshot::VehicleSnapshot;

/// What every check sees.
pub(crate) struct Input<'a> {
    pub ctx: &'a GateContext,
    pub snap: &'a VehicleSnapshot,
    /// The command as judged: after the substitution step (a target altitude clamped into the
    /// band).
    pub command: &'a Command,
    /// `None` when the command does not move the vehicle or its path could not be built.
    pub plan: Option<&'a Plan>,
    pub state: &'a GateState,
    pub now_ms: u64,
}
