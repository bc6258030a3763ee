//! `evaluate`: one command to a [`Verdict`] — the substitution step (`substitute`) around the
//! judgement (`judge`). Also the watchdog's narrow way through, `evaluate_failsafe` and
//! `evaluate_failsafe_in`.
//!
//! Pure: the clock is `now_ms`, the only memory is the [`GateState`] the caller owns, and
//! nothing is allocated (the plan and the findings are fixed-capacity).

use super::approved::ApprovedCommand;
use super::check::state;
use super::context::GateContext;
use super::ids;
use super::memory::GateState;
use super::substitute::{altitude, hold, landing};
use super::verdict::{Finding, Verdict};
use crate::command::Command;
use crate::snapshot::VehicleSnapshot;

/// Decides whether `command` may be sent to the vehicle now.
///
/// A vehicle landing below the band is committed to it (`substitute::landing`): a hold there
/// continues the landing (clamped), anything else that moves it is denied; one taking off
/// below the band may only continue (a hold is denied too) or land. Otherwise `hold` is always
/// approved: it is what every failure falls back to — as a hold, or, when holding here is
/// predicted to breach the separation soon, as the move out of the way that passes every check,
/// or the return when hovering on would leave too little battery for the way home
/// (`substitute::hold`). Any other command is first refused when its checks cannot judge it (a
/// non-finite value, or an input not yet reported: "battery not yet reported" rather than
/// "battery low"), then has an out-of-band target altitude clamped into the band when
/// `limits.clamp_altitude` allows (`substitute::altitude`), then runs through
/// [`CHECK_ORDER`](super::CHECK_ORDER) (`judge`). On approval, `state` records the command
/// (rate limit, cruise speed); on denial it is left as it was. A clamped command evaluated
/// again with the state from before comes back approved, unchanged.
pub fn evaluate(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
    state: &mut GateState,
) -> Verdict {
    if let Some(v) = landing::commitment(ctx, snapshot, command, now_ms) {
        return v;
    }
    if *command == Command::Hold {
        return hold::hold_or_instead(ctx, snapshot, now_ms);
    }
    if *command == Command::FlyMission {
        return super::route::judge_route(ctx, snapshot, now_ms, state);
    }
    altitude::clamped_and_judged(ctx, snapshot, command, now_ms, state)
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
        Verdict::denied(Finding::deny(
            ids::FAILSAFE_NOT_FAILSAFE,
            "the failsafe path takes only hold, return or land while airborne",
            0.0,
            0.0,
        ))
    }
}

/// [`evaluate_failsafe`] knowing the airspace: a hold or return asked of a vehicle landing
/// below the band continues the landing instead (clamped; `substitute::landing`), since either
/// would leave it low and no longer landing; asked of one taking off below the band they are
/// denied (the take-off goes on into the band); a hold where another aircraft or a moving zone
/// is about to pass becomes the approved move out of the way (`substitute::hold`), as in
/// [`evaluate`].
pub fn evaluate_failsafe_in(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    command: &Command,
    now_ms: u64,
) -> Verdict {
    if matches!(command, Command::Hold | Command::ReturnToHome)
        && let Some(v) = landing::commitment(ctx, snapshot, &Command::Hold, now_ms)
    {
        return v;
    }
    if *command == Command::Hold {
        return hold::hold_or_instead(ctx, snapshot, now_ms);
    }
    evaluate_failsafe(snapshot, command, now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::check::{CHECK_ORDER, CHECKS};
    use crate::gate::testkit::*;
    use crate::gate::verdict::Severity;

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
