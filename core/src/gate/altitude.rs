//! Altitude band: the policy's min/max above ground while airborne. A target outside the band
//! is clamped into it when `limits.clamp_altitude` allows, else denied; the path, including the
//! vertical stopping point, must stay inside the band, except below it on take-off and landing
//! legs. A vehicle already outside the band may fly any leg that ends inside it.

use super::context::GateContext;
use super::evaluate::Input;
use super::ids;
use super::plan::{Band, Plan};
use super::verdict::{Finding, Findings, push_finding};
use crate::command::Command;

/// Where a target altitude may be: the band less the position uncertainty at each edge, the
/// margin every other distance check adds. A vehicle sent exactly to an edge crosses it with
/// the least tracking error (found by the adversarial policies: clamped to the edge, then
/// holding there, it left the band by centimetres). A band narrower than two margins leaves its
/// middle.
fn target_band(ctx: &GateContext) -> (f64, f64) {
    let (lo, hi) = (ctx.limits.min_altitude_m, ctx.limits.max_altitude_m);
    let margin = ctx.limits.position_uncertainty_m.max(0.0);
    if hi - lo >= 2.0 * margin {
        (lo + margin, hi - margin)
    } else {
        let middle = (lo + hi) / 2.0;
        (middle, middle)
    }
}

/// The command with its target altitude moved into the band, and what was done.
pub(crate) fn clamp(ctx: &GateContext, command: &Command) -> (Command, Option<Finding>) {
    let (lo, hi) = target_band(ctx);
    let asked = match *command {
        Command::Takeoff { altitude_m } | Command::SetAltitude { altitude_m } => altitude_m,
        Command::GoTo { target, .. } => target.z,
        _ => return (*command, None),
    };
    if (lo..=hi).contains(&asked) {
        return (*command, None);
    }
    let bound = asked.clamp(lo, hi);
    if !ctx.limits.clamp_altitude {
        let reason = "target altitude outside the band";
        return (
            *command,
            Some(Finding::deny(
                ids::ALTITUDE_OUT_OF_BAND,
                reason,
                bound,
                asked,
            )),
        );
    }
    let clamped = match *command {
        Command::Takeoff { .. } => Command::Takeoff { altitude_m: bound },
        Command::SetAltitude { .. } => Command::SetAltitude { altitude_m: bound },
        Command::GoTo {
            mut target,
            speed_mps,
        } => {
            target.z = bound;
            Command::GoTo { target, speed_mps }
        }
        other => other,
    };
    let reason = "target altitude moved into the band";
    (
        clamped,
        Some(Finding::clamp(ids::ALTITUDE_CLAMPED, reason, bound, asked)),
    )
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let Some(plan) = input.plan else { return };
    if clamp(input.ctx, input.command).1.is_some() {
        return; // the target itself is out of band and clamping is off: already reported
    }
    let (lo, hi) = (
        input.ctx.limits.min_altitude_m,
        input.ctx.limits.max_altitude_m,
    );
    let z0 = plan.start.z;
    for (i, leg) in plan.legs.iter().enumerate() {
        let first = i == 0;
        let stop_z = if first { plan.stop.z } else { leg.from.z };
        let low = leg.from.z.min(leg.to.z).min(stop_z);
        let high = leg.from.z.max(leg.to.z).max(stop_z);
        let ends_inside = (lo..=hi).contains(&leg.to.z);
        // Already outside: leaving the band further is not asked of it, only arriving inside
        // (on a checked leg: a landing's first part ends inside only to go on below).
        let recovering =
            |already_out: bool| first && already_out && ends_inside && leg.band == Band::Checked;
        let below = leg.band == Band::Checked && low < lo && !recovering(z0 < lo);
        let above = high > hi && !recovering(z0 > hi);
        if below || above {
            let (bound, extreme) = if above { (hi, high) } else { (lo, low) };
            let reason = "the path leaves the altitude band";
            let f = Finding::deny(ids::ALTITUDE_PATH_LEAVES_BAND, reason, bound, extreme);
            push_finding(out, f);
            return;
        }
    }
}

/// Seconds until the coasting vehicle leaves the band through the top, or through the bottom
/// from inside it (below it may be a take-off or a landing).
pub(crate) fn breach_s(ctx: &GateContext, plan: &Plan) -> Option<f64> {
    let (lo, hi) = (ctx.limits.min_altitude_m, ctx.limits.max_altitude_m);
    let leg = plan.legs.first()?;
    let (z0, vz) = (leg.from.z, leg.velocity.z);
    if z0 > hi {
        return Some(0.0);
    }
    let t = if vz > 0.0 {
        (hi - z0) / vz
    } else if vz < 0.0 && z0 >= lo && leg.band == Band::Checked {
        (z0 - lo) / -vz
    } else {
        return None;
    };
    (t <= leg.duration_s).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{Severity, Verdict, evaluate};
    use super::*;
    use crate::config::Limits;
    use crate::frames::Enu;

    #[test]
    fn an_out_of_band_target_is_clamped_and_the_clamped_command_passes_unchanged() {
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        let v = verdict(&ctx, &snap, go(100.0, 0.0, 150.0));
        let Verdict::Clamped { approved, findings } = &v else {
            panic!("{v:?}")
        };
        // The band is 10–120 m, less the 2 m position uncertainty at each edge; the move is
        // approved at the cruise speed it was checked at.
        let cruise = Some(ctx.vehicle().cruise_speed_mps);
        let clamped = Command::GoTo {
            target: Enu::new(100.0, 0.0, 118.0),
            speed_mps: cruise,
        };
        assert_eq!(*approved.command(), clamped);
        let f = findings[0];
        assert_eq!(
            (f.id, f.severity, f.limit, f.measured),
            (ids::ALTITUDE_CLAMPED, Severity::Clamp, 118.0, 150.0)
        );
        let again = verdict(&ctx, &snap, *approved.command());
        assert_eq!(again.approved().map(|a| *a.command()), Some(clamped));
        assert!(matches!(again, Verdict::Approved(_)));
    }

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

    #[test]
    fn without_clamping_an_out_of_band_target_is_denied() {
        let limits = Limits {
            clamp_altitude: false,
            ..limits()
        };
        let ctx = GateContext::new(limits, vehicle()).unwrap();
        let f = only_finding(
            &ctx,
            &hovering(0.0, 0.0, 30.0),
            Command::SetAltitude { altitude_m: 5.0 },
        );
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::ALTITUDE_OUT_OF_BAND, 12.0, 5.0)
        );
    }

    #[test]
    fn a_target_on_the_edge_of_the_band_is_moved_inside_by_the_uncertainty() {
        // Regression (adversarial policies): clamped exactly to 10 m, a holding vehicle dipped
        // below the band. Targets keep the 2 m position uncertainty from both edges.
        let ctx = open_field();
        let snap = hovering(0.0, 0.0, 30.0);
        for (asked, expected) in [(0.0, 12.0), (10.0, 12.0), (119.0, 118.0), (1e300, 118.0)] {
            let v = verdict(&ctx, &snap, Command::SetAltitude { altitude_m: asked });
            let Verdict::Clamped { approved, .. } = &v else {
                panic!("{asked}: {v:?}")
            };
            assert_eq!(
                *approved.command(),
                Command::SetAltitude {
                    altitude_m: expected
                }
            );
        }
        let inside = verdict(&ctx, &snap, Command::SetAltitude { altitude_m: 12.0 });
        assert!(matches!(inside, Verdict::Approved(_)), "{inside:?}");
    }

    #[test]
    fn the_vertical_stopping_point_counts() {
        // Climbing at 5 m/s at 115 m: it stops 5²/(2·2.5) = 5 m higher, at 120 m: just inside.
        let ctx = open_field();
        let mut snap = hovering(0.0, 0.0, 115.0);
        snap.velocity = Enu::new(0.0, 0.0, 5.0);
        assert!(deny_ids(&ctx, &snap, go(50.0, 0.0, 100.0)).is_empty());
        // At 116 m it would stop at 121 m.
        snap.position.z = 116.0;
        let f = only_finding(&ctx, &snap, go(50.0, 0.0, 100.0));
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::ALTITUDE_PATH_LEAVES_BAND, 120.0, 121.0)
        );
    }

    #[test]
    fn takeoff_and_landing_may_be_below_the_band_and_a_low_vehicle_may_climb_back() {
        let ctx = open_field();
        let ground = on_ground(0.0, 0.0);
        assert!(deny_ids(&ctx, &ground, Command::Takeoff { altitude_m: 30.0 }).is_empty());
        let low = hovering(0.0, 0.0, 4.0);
        assert!(deny_ids(&ctx, &low, Command::Land { site: None }).is_empty());
        assert!(deny_ids(&ctx, &low, go(30.0, 0.0, 30.0)).is_empty());
        let mut state = Default::default();
        let v = evaluate(&ctx, &low, &Command::ReturnToHome, NOW, &mut state);
        assert!(v.approved().is_some(), "{v:?}");
    }

    #[test]
    fn a_landing_from_above_the_band_is_not_a_way_back_into_it() {
        // The landing's first part (down to 10 m, inside the band) must not count as arriving
        // in the band: the vehicle would descend 30 m above it first (found by the oracle when
        // the landing was split at the slow-descent height).
        let ctx = open_field();
        let high = hovering(0.0, 0.0, 150.0);
        assert_eq!(
            deny_ids(&ctx, &high, Command::Land { site: None }),
            [ids::ALTITUDE_PATH_LEAVES_BAND]
        );
    }
}
