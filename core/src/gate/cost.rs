//! What a command costs on the gate's own path model — how long it takes, the energy it uses
//! and where it ends — so a whole mission can be checked before take-off, leg by leg, with the
//! clock and the battery the vehicle would have at each leg (`plan_mission::check`).

use super::check::energy::plan_wh;
use super::context::GateContext;
use super::plan::Plan;
use crate::command::Command;
use crate::frames::Enu;
use crate::snapshot::VehicleSnapshot;

/// The gate's prediction for one command flown from a snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandCost {
    pub duration_s: f64,
    pub energy_wh: f64,
    /// Where the vehicle is when the command is done.
    pub end: Enu,
}

/// The cost of `command` from `snapshot` at `cruise_mps`; `None` when the gate cannot plan it
/// (a target it refuses to model, such as a non-finite one). A command that does not move the
/// vehicle costs nothing and ends where it is.
pub fn command_cost(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    cruise_mps: f64,
    now_ms: u64,
) -> Option<CommandCost> {
    let plan = Plan::for_command(ctx, snapshot, command, cruise_mps, now_ms).ok()?;
    let end = plan.end();
    Some(CommandCost {
        duration_s: plan.legs.iter().map(|l| l.duration_s).sum(),
        energy_wh: plan_wh(ctx, &plan),
        end: Enu::new(end.x, end.y, end.z),
    })
}
