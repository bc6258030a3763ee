//! A hold that holding would not keep safe becomes something else.
//!
//! When holding here is predicted to come within the separation of traffic or a peer, or to
//! meet a moving zone, within [`escape_lead_ms`] (plus [`SLACK_S`]), a hold — the policy's or
//! the failsafe's — becomes the first of a few short moves (up, down, sideways, home) that the
//! judgement approves in full ([`clamped_and_judged`], as `evaluate` judges a move): its path
//! and the hold at its end are checked like any command's. When none is approved it stays a
//! hold; the watchdog's step on a predicted breach is a hold, so this is what moves a holding
//! vehicle out of the way.
//!
//! When hovering on would leave the battery short of the way home and the reserve within
//! [`ENERGY_SLACK_S`], a hold becomes the return, judged the same way — or, when the gate
//! refuses the return, the landing where the vehicle is: holding only burns more battery.

use crate::command::Command;
use crate::frames::Enu;
use crate::gate::approved::ApprovedCommand;
use crate::gate::check::{energy, no_fly, separation, state};
use crate::gate::context::GateContext;
use crate::gate::horizon::{ESCAPE_SEPARATIONS, SLACK_S, escape_lead_ms};
use crate::gate::ids;
use crate::gate::memory::GateState;
use crate::gate::plan::{Plan, uncertainty_m};
use crate::gate::substitute::altitude::clamped_and_judged;
use crate::gate::verdict::{Finding, Verdict};
use crate::snapshot::VehicleSnapshot;

/// A hold this close to leaving too little battery for the way home and the reserve becomes
/// the return, seconds (the watchdog acts 3 s before such a breach by default).
pub(crate) const ENERGY_SLACK_S: f64 = 10.0;

/// Seconds until holding where the vehicle is would come within the separation of another
/// aircraft or meet a moving zone, within the breach horizon.
pub(crate) fn hold_breach_s(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Option<f64> {
    if !snap.is_airborne() {
        return None;
    }
    let mut still = *snap;
    still.velocity = Enu::default();
    let plan = Plan::coast(ctx, &still, now_ms);
    let traffic = separation::breach_s(ctx, &plan).map(|(t, _)| t);
    let zone = no_fly::breach_s(ctx, &plan)
        .filter(|(_, id)| *id == ids::NO_FLY_MOVING_CONFLICT)
        .map(|(t, _)| t);
    match (traffic, zone) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The verdict on a hold at `snap`: what it becomes instead ([`instead_of_hold`]) when the
/// telemetry is usable, else the hold, approved.
pub(crate) fn hold_or_instead(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Verdict {
    let usable = state::invalid(snap, &Command::Hold).is_none();
    usable
        .then(|| instead_of_hold(ctx, snap, now_ms))
        .flatten()
        .unwrap_or(Verdict::Approved(ApprovedCommand::new(
            Command::Hold,
            now_ms,
        )))
}

/// What a hold at `snap` becomes instead, if anything: the return when the battery is about to
/// run short (see the module doc), else the move out of the way of [`escape`].
fn instead_of_hold(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Option<Verdict> {
    energy_return(ctx, snap, now_ms).or_else(|| escape(ctx, snap, now_ms))
}

/// The return, approved in full, for a vehicle whose battery would, hovering on, stop covering
/// the way home and the reserve within [`ENERGY_SLACK_S`].
fn energy_return(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Option<Verdict> {
    if !snap.is_airborne() {
        return None;
    }
    let t = energy::breach_s(ctx, snap, uncertainty_m(ctx, snap), now_ms)?;
    if t > ENERGY_SLACK_S {
        return None;
    }
    // The return, else the landing here: a hold is the one answer that only burns battery.
    let judged = |command: Command| {
        let verdict = clamped_and_judged(ctx, snap, &command, now_ms, &mut GateState::default());
        verdict.approved().map(|a| *a.command())
    };
    let (approved, reason) = match judged(Command::ReturnToHome) {
        Some(approved) => (
            approved,
            "holding on would leave too little battery for the way home: returning instead",
        ),
        None => (
            judged(Command::Land { site: None })?,
            "holding on would leave too little battery and the way home is refused: landing here instead",
        ),
    };
    Some(Verdict::instead(
        approved,
        Finding::clamp(ids::ENERGY_HOLD_RETURN, reason, ENERGY_SLACK_S, t),
        now_ms,
    ))
}

/// The move out of the way for a vehicle about to hold at `snap`, when holding there is
/// predicted to breach within [`escape_lead_ms`] (plus [`SLACK_S`]) and some move is approved;
/// `None` otherwise.
fn escape(ctx: &GateContext, snap: &VehicleSnapshot, now_ms: u64) -> Option<Verdict> {
    let t = hold_breach_s(ctx, snap, now_ms)?;
    let lead_s = escape_lead_ms(ctx) as f64 / 1000.0;
    if t > lead_s + SLACK_S {
        return None;
    }
    let p = snap.position;
    let d = ESCAPE_SEPARATIONS * ctx.limits.min_separation_m;
    let go = |dx: f64, dy: f64| Command::GoTo {
        target: Enu::new(p.x + dx, p.y + dy, p.z),
        speed_mps: None,
    };
    let candidates = [
        Command::SetAltitude {
            altitude_m: p.z + d,
        },
        Command::SetAltitude {
            altitude_m: p.z - d,
        },
        go(d, 0.0),
        go(-d, 0.0),
        go(0.0, d),
        go(0.0, -d),
        Command::ReturnToHome,
    ];
    candidates.iter().find_map(|c| {
        let verdict = clamped_and_judged(ctx, snap, c, now_ms, &mut GateState::default());
        let approved = *verdict.approved()?.command();
        Some(Verdict::instead(
            approved,
            Finding::clamp(
                ids::SEPARATION_HOLD_ESCAPE,
                "holding here would breach the separation: out of the way instead",
                lead_s,
                t,
            ),
            now_ms,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testkit::*;
    use crate::gate::{Track, evaluate_failsafe_in};

    /// Traffic at 30 m from `east_m` east of the origin flying west at 10 m/s.
    fn traffic_from_east(east_m: f64) -> GateContext {
        let mut ctx = open_field();
        ctx.set_traffic(vec![Track {
            time_ms: NOW,
            position: Enu::new(east_m, 0.0, 30.0),
            velocity: Enu::new(-10.0, 0.0, 0.0),
        }])
        .unwrap();
        ctx
    }

    #[test]
    fn a_hold_in_the_way_of_traffic_becomes_a_move_out_of_it() {
        // It reaches the 22 m (separation + uncertainty) sphere in 17.8 s. A move takes
        // 2·20/10 + 10/2.5 = 8 s, the hover horizon is max(10, 8 + 5) = 13 s: the lead is 21 s.
        let ctx = traffic_from_east(200.0);
        assert_eq!(ctx.hover_horizon_s(), 13.0);
        assert_eq!(escape_lead_ms(&ctx), 21_000);
        let snap = hovering(0.0, 0.0, 30.0);
        let t = hold_breach_s(&ctx, &snap, NOW).unwrap();
        assert!((t - 17.8).abs() < 1e-9, "{t}");
        let v = verdict(&ctx, &snap, Command::Hold);
        let Verdict::Clamped { approved, findings } = &v else {
            panic!("{v:?}")
        };
        assert_eq!(findings[0].id, ids::SEPARATION_HOLD_ESCAPE);
        // Up by two separations, which the gate itself approves.
        assert_eq!(
            *approved.command(),
            Command::SetAltitude { altitude_m: 70.0 }
        );
        let again = verdict(&ctx, &snap, *approved.command());
        assert!(again.approved().is_some(), "{again:?}");
        // The watchdog's hold does the same.
        let f = evaluate_failsafe_in(&ctx, &snap, &Command::Hold, NOW);
        assert_eq!(
            f.approved().map(|a| *a.command()),
            Some(*approved.command())
        );
    }

    #[test]
    fn a_hold_with_traffic_far_off_or_passing_clear_stays_a_hold() {
        let snap = hovering(0.0, 0.0, 30.0);
        // Far: the breach is 57.8 s away, beyond the lead and its slack; the watchdog will
        // ask again.
        let far = traffic_from_east(600.0);
        assert!(matches!(
            verdict(&far, &snap, Command::Hold),
            Verdict::Approved(_)
        ));
        // Passing 100 m higher: no breach at all.
        let mut high = open_field();
        high.set_traffic(vec![Track {
            time_ms: NOW,
            position: Enu::new(100.0, 0.0, 130.0),
            velocity: Enu::new(-10.0, 0.0, 0.0),
        }])
        .unwrap();
        assert_eq!(hold_breach_s(&high, &snap, NOW), None);
        assert!(matches!(
            verdict(&high, &snap, Command::Hold),
            Verdict::Approved(_)
        ));
    }

    #[test]
    fn a_hold_that_would_drain_the_battery_below_the_reserve_becomes_the_return() {
        // 3,600 W: one second of hover is 1 % of the 100 Wh pack. Hovering at home at 50 m,
        // the way home is the landing (35.4 s, see `energy`), the reserve 20 %.
        let thirsty = crate::config::VehicleProfile {
            hover_power_w: 3_600.0,
            ..vehicle()
        };
        let ctx = GateContext::new(limits(), thirsty).unwrap();
        let mut snap = hovering(0.0, 0.0, 50.0);
        let landing_s = 20.8 + 0.14 + 10.0 / 0.7 + 0.14;
        // 8 s of hover left: the hold becomes the return.
        snap.battery.remaining_pct = 20.0 + landing_s + 8.0;
        let v = verdict(&ctx, &snap, Command::Hold);
        let Verdict::Clamped { approved, findings } = &v else {
            panic!("{v:?}")
        };
        assert_eq!(*approved.command(), Command::ReturnToHome);
        assert_eq!(findings[0].id, ids::ENERGY_HOLD_RETURN);
        assert!((findings[0].measured - 8.0).abs() < 1e-9, "{findings:?}");
        let f = evaluate_failsafe_in(&ctx, &snap, &Command::Hold, NOW);
        assert_eq!(
            f.approved().map(|a| *a.command()),
            Some(Command::ReturnToHome)
        );
        // A minute left: still a hold.
        snap.battery.remaining_pct = 20.0 + landing_s + 60.0;
        assert!(matches!(
            verdict(&ctx, &snap, Command::Hold),
            Verdict::Approved(_)
        ));
    }

    /// Issue 30 item 14: the watchdog's hold, short of energy, stayed a hold when the return was
    /// refused: a hold is the one answer that only burns battery.
    #[test]
    fn a_hold_short_of_energy_whose_return_is_refused_becomes_the_landing_here() {
        // 3,600 W: a second of hover is 1 % of the 100 Wh pack. 400 m out at 50 m with 40 %:
        // the return (40 s of cruise, then the landing) would end below the 10 % hard reserve
        // and costs more than landing here; no site is reachable, so this is a forced landing.
        let thirsty = crate::config::VehicleProfile {
            hover_power_w: 3_600.0,
            ..vehicle()
        };
        let ctx = GateContext::new(limits(), thirsty).unwrap();
        let mut snap = hovering(400.0, 0.0, 50.0);
        snap.battery.remaining_pct = 40.0;
        for v in [
            verdict(&ctx, &snap, Command::Hold),
            evaluate_failsafe_in(&ctx, &snap, &Command::Hold, NOW),
        ] {
            let Verdict::Clamped { approved, findings } = &v else {
                panic!("{v:?}")
            };
            assert_eq!(*approved.command(), Command::Land { site: None });
            assert_eq!(findings[0].id, ids::ENERGY_HOLD_RETURN);
        }
    }

    #[test]
    fn with_every_move_refused_it_stays_a_hold() {
        // Boxed in: a 10 m fence around the vehicle refuses every sideways move and the band
        // (here 25–35 m) every vertical one; home is outside the fence.
        let fence = crate::airspace::Area::circle([0.0, 0.0], 10.0);
        let limits = crate::config::Limits {
            min_altitude_m: 25.0,
            max_altitude_m: 35.0,
            return_altitude_m: 30.0,
            ..limits()
        };
        let mut ctx = GateContext::new(limits, vehicle())
            .unwrap()
            .with_fence(&fence)
            .unwrap()
            .with_home(Enu::new(500.0, 0.0, 0.0));
        ctx.set_traffic(vec![Track {
            time_ms: NOW,
            position: Enu::new(100.0, 0.0, 30.0),
            velocity: Enu::new(-10.0, 0.0, 0.0),
        }])
        .unwrap();
        let snap = hovering(0.0, 0.0, 30.0);
        assert!(hold_breach_s(&ctx, &snap, NOW).is_some());
        assert!(matches!(
            verdict(&ctx, &snap, Command::Hold),
            Verdict::Approved(_)
        ));
    }
}
