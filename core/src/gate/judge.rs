//! Judgement: one command, as it is, through the checks to a [`Verdict`]. It substitutes
//! nothing; `evaluate` runs the substitution step around it.
//!
//! Pure: the clock is `now_ms`, the only memory is the [`GateState`] the caller owns, and
//! nothing is allocated (the plan and the findings are fixed-capacity).

use super::approved::ApprovedCommand;
use super::check::{self, Input, altitude, rate, state, unreported};
use super::context::GateContext;
use super::memory::GateState;
use super::plan::Plan;
use super::verdict::{Finding, Findings, Severity, Verdict, push_finding};
use crate::command::Command;
use crate::snapshot::VehicleSnapshot;

/// The denial of a command the checks cannot judge: an argument or the telemetry is not a
/// finite number (`state::invalid`), or a value its checks read has not been reported yet
/// (`unreported`: "battery not yet reported" rather than "battery low"). `None` admits it.
pub(crate) fn refused(snapshot: &VehicleSnapshot, command: &Command) -> Option<Verdict> {
    if let Some(f) = state::invalid(snapshot, command) {
        return Some(Verdict::denied(f));
    }
    let missing = unreported::check(snapshot, command);
    (!missing.is_empty()).then_some(Verdict::Denied(missing))
}

/// Judges an admitted command: its target altitude (`altitude::target`), its path (`plan`),
/// then every check of [`check::CHECKS`]. `noted` is what the substitution step did to the
/// command (a clamp), reported first. On approval, `state` records the command (rate limit,
/// cruise speed) and a move without a speed is approved at the cruise speed it was planned
/// with; on denial `state` is left as it was.
pub(crate) fn judge(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: Command,
    noted: Option<Finding>,
    now_ms: u64,
    state: &mut GateState,
) -> Verdict {
    let mut findings = Findings::new();
    if let Some(f) = noted {
        push_finding(&mut findings, f);
    }
    if let Some(f) = altitude::target(ctx, &command) {
        push_finding(&mut findings, f);
    }
    let cruise = state
        .cruise_speed_mps
        .unwrap_or(ctx.vehicle.cruise_speed_mps);
    let plan = if command.moves_vehicle() && snapshot.armed {
        match Plan::for_command(ctx, snapshot, &command, cruise, now_ms) {
            Ok(p) => Some(p),
            Err(f) => {
                push_finding(&mut findings, f);
                None
            }
        }
    } else {
        None
    };
    let input = Input {
        ctx,
        snap: snapshot,
        command: &command,
        plan: plan.as_ref(),
        state,
        now_ms,
    };
    check::run(&input, &mut findings);
    match findings.first().map(|f| f.severity) {
        Some(Severity::Deny) => Verdict::Denied(findings),
        worst => {
            rate::consume(&mut state.rate, ctx, now_ms);
            if let Command::SetSpeed { speed_mps } = command {
                state.cruise_speed_mps = Some(speed_mps);
            }
            let approved = ApprovedCommand::new(with_planned_speed(command, cruise), now_ms);
            if worst == Some(Severity::Clamp) {
                Verdict::Clamped { approved, findings }
            } else {
                Verdict::Approved(approved)
            }
        }
    }
}

/// A move without a speed is planned — and checked against traffic in time — at the cruise
/// speed; the approved command says so, so the autopilot flies the speed that was checked
/// instead of its own default (PX4's MPC_XY_CRUISE is 5 m/s).
fn with_planned_speed(command: Command, cruise_mps: f64) -> Command {
    match command {
        Command::GoTo {
            target,
            speed_mps: None,
        } => Command::GoTo {
            target,
            speed_mps: Some(cruise_mps),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::Enu;
    use crate::gate::testkit::*;

    #[test]
    fn a_move_without_a_speed_is_approved_at_the_speed_it_was_checked_at() {
        // An autopilot flies a speedless reposition at its own default (PX4: 5 m/s), not at
        // the cruise speed the gate timed the path — and the traffic around it — with.
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let v = verdict(&ctx, &snap, go(100.0, 0.0, 30.0));
        let Command::GoTo { speed_mps, .. } = *v.approved().unwrap().command() else {
            panic!("{v:?}")
        };
        assert_eq!(speed_mps, Some(ctx.vehicle().cruise_speed_mps));
        let fast = Command::GoTo {
            target: Enu::new(100.0, 0.0, 30.0),
            speed_mps: Some(4.0),
        };
        let v = verdict(&ctx, &snap, fast);
        assert_eq!(
            v.approved().map(|a| *a.command()),
            Some(fast),
            "a given speed stays"
        );
    }
}
