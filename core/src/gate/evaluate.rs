//! `evaluate`: one command through the ordered checks to a [`Verdict`].
//!
//! Pure: the clock is `now_ms`, the only memory is the [`GateState`] the caller owns, and
//! nothing is allocated (the plan and the findings are fixed-capacity).

use super::approved::ApprovedCommand;
use super::context::GateContext;
use super::plan::Plan;
use super::rate::RateState;
use super::verdict::{Finding, Findings, Severity, Verdict, push_finding};
use super::{
    altitude, energy, escape, geofence, ids, landing, no_fly, rate, separation, site, state,
    unreported,
};
use crate::command::Command;
use crate::snapshot::VehicleSnapshot;
use serde::{Deserialize, Serialize};

/// What the gate remembers between commands. The caller owns it and passes it to every
/// `evaluate`; replaying the same commands with the same states gives the same verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct GateState {
    pub rate: RateState,
    /// The cruise speed last approved with `set_speed` (a `go_to` without a speed flies at it);
    /// the profile's cruise speed until then.
    pub cruise_speed_mps: Option<f64>,
}

/// What every check sees.
pub(crate) struct Input<'a> {
    pub ctx: &'a GateContext,
    pub snap: &'a VehicleSnapshot,
    /// The command after clamping.
    pub command: &'a Command,
    /// `None` when the command does not move the vehicle or its path could not be built.
    pub plan: Option<&'a Plan>,
    pub state: &'a GateState,
    pub now_ms: u64,
}

type Check = fn(&Input<'_>, &mut Findings);

/// The checks in the order they run (and report, within a severity).
pub const CHECK_ORDER: [&str; 8] = [
    "state",
    "rate",
    "altitude",
    "site",
    "geofence",
    "no_fly",
    "separation",
    "energy",
];

const CHECKS: [Check; 8] = [
    state::check,
    rate::check,
    altitude::check,
    site::check,
    geofence::check,
    no_fly::check,
    separation::check,
    energy::check,
];

/// Decides whether `command` may be sent to the vehicle now.
///
/// A vehicle landing below the band is committed to it (`landing`): a hold there continues
/// the landing (clamped), anything else that moves it is denied; one taking off below the band
/// may only continue (a hold is denied too) or land. Otherwise `hold` is always
/// approved: it is what every failure falls back to — as a hold, or, when holding here is
/// predicted to breach the separation soon, as the move out of the way (`escape`) that passes
/// every check, or the return when hovering on would leave too little battery for the way
/// home. Any other command first needs every input its checks read to have been reported
/// (`unreported`: "battery not yet reported" rather than "battery low"), then runs
/// through [`CHECK_ORDER`]; an out-of-band target altitude is clamped into the band first when
/// `limits.clamp_altitude` allows it. On approval, `state` records the command (rate limit,
/// cruise speed); on denial it is left as it was. A clamped command evaluated again with the
/// state from before comes back approved, unchanged.
pub fn evaluate(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
    state: &mut GateState,
) -> Verdict {
    match landing::committed(ctx, snapshot, command) {
        Some(Ok((landing, finding))) => return clamped(landing, finding, now_ms),
        Some(Err(finding)) => return denied(finding),
        None => {}
    }
    if *command == Command::Hold {
        let usable = state::invalid(snapshot, command).is_none();
        return usable
            .then(|| escape::instead_of_hold(ctx, snapshot, now_ms))
            .flatten()
            .unwrap_or(Verdict::Approved(ApprovedCommand::new(*command, now_ms)));
    }
    if let Some(f) = state::invalid(snapshot, command) {
        return denied(f);
    }
    let missing = unreported::check(snapshot, command);
    if !missing.is_empty() {
        return Verdict::Denied(missing);
    }
    let mut findings = Findings::new();
    let (command, clamp) = altitude::clamp(ctx, command);
    if let Some(f) = clamp {
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
    for check in CHECKS {
        check(&input, &mut findings);
    }
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

/// The watchdog's way through the gate: `hold`, `return_to_home` and `land` (anywhere) are
/// approved without the path checks, because the ladder exists for the moments those checks
/// fail (no link, no decision, a breach already under way) and must never be blocked by them.
/// Anything else is denied. No rate limit, no state.
pub fn evaluate_failsafe(snapshot: &VehicleSnapshot, command: &Command, now_ms: u64) -> Verdict {
    let allowed = match command {
        Command::Hold => true,
        Command::ReturnToHome | Command::Land { .. } => {
            snapshot.is_airborne() && state::invalid(snapshot, command).is_none()
        }
        _ => false,
    };
    if allowed {
        Verdict::Approved(ApprovedCommand::new(*command, now_ms))
    } else {
        denied(Finding::deny(
            ids::FAILSAFE_NOT_FAILSAFE,
            "the failsafe path takes only hold, return or land while airborne",
            0.0,
            0.0,
        ))
    }
}

/// [`evaluate_failsafe`] knowing the airspace: a hold or return asked of a vehicle landing
/// below the band continues the landing instead (clamped; `landing`), since either would leave
/// it low and no longer landing; asked of one taking off below the band they are denied (the
/// take-off goes on into the band); a hold where another aircraft or a moving zone is about to
/// pass becomes the approved move out of the way (`escape`), as in [`evaluate`].
pub fn evaluate_failsafe_in(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
) -> Verdict {
    if matches!(command, Command::Hold | Command::ReturnToHome) {
        match landing::committed(ctx, snapshot, &Command::Hold) {
            Some(Ok((landing, finding))) => return clamped(landing, finding, now_ms),
            Some(Err(finding)) => return denied(finding),
            None => {}
        }
    }
    if *command == Command::Hold
        && state::invalid(snapshot, command).is_none()
        && let Some(v) = escape::instead_of_hold(ctx, snapshot, now_ms)
    {
        return v;
    }
    evaluate_failsafe(snapshot, command, now_ms)
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

fn clamped(command: Command, f: Finding, now_ms: u64) -> Verdict {
    let mut findings = Findings::new();
    push_finding(&mut findings, f);
    Verdict::Clamped {
        approved: ApprovedCommand::new(command, now_ms),
        findings,
    }
}

fn denied(f: Finding) -> Verdict {
    let mut findings = Findings::new();
    push_finding(&mut findings, f);
    Verdict::Denied(findings)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;

    #[test]
    fn the_failsafe_path_takes_hold_return_and_land_only() {
        // Outside the fence, over nowhere authorised: evaluate refuses to land here,
        // the failsafe path does not.
        let fence = crate::airspace::Area::circle([0.0, 0.0], 50.0);
        let ctx = open_field().with_fence(&fence).unwrap();
        let lost = hovering(300.0, 0.0, 30.0);
        let land = Command::Land { site: None };
        assert!(verdict(&ctx, &lost, land).approved().is_none());
        for c in [Command::Hold, Command::ReturnToHome, land] {
            assert!(
                matches!(evaluate_failsafe(&lost, &c, NOW), Verdict::Approved(_)),
                "{c:?}"
            );
        }
        let f = evaluate_failsafe(&lost, &go(0.0, 0.0, 30.0), NOW);
        assert_eq!(f.findings()[0].id, ids::FAILSAFE_NOT_FAILSAFE);
        let parked = on_ground(0.0, 0.0);
        assert!(
            evaluate_failsafe(&parked, &Command::ReturnToHome, NOW)
                .approved()
                .is_none()
        );
    }

    #[test]
    fn findings_from_several_checks_come_together_most_severe_first() {
        // Too fast, above the band (clamped) and out of the fence at once.
        let fence = crate::airspace::Area::circle([0.0, 0.0], 50.0);
        let ctx = open_field().with_fence(&fence).unwrap();
        let cmd = Command::GoTo {
            target: crate::frames::Enu::new(300.0, 0.0, 500.0),
            speed_mps: Some(99.0),
        };
        let v = verdict(&ctx, &hovering(0.0, 0.0, 30.0), cmd);
        let got: Vec<_> = v.findings().iter().map(|f| (f.id, f.severity)).collect();
        assert_eq!(
            got,
            [
                (ids::STATE_SPEED, Severity::Deny),
                (ids::GEOFENCE_OUTSIDE, Severity::Deny),
                (ids::ALTITUDE_CLAMPED, Severity::Clamp),
            ]
        );
        assert_eq!(CHECK_ORDER.len(), CHECKS.len());
    }
}
