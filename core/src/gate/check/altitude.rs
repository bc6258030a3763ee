//! Altitude band: the policy's min/max above ground while airborne. A target outside the band
//! is denied (the substitution step has moved it into the band first when
//! `limits.clamp_altitude` allows); the path, including the
//! vertical stopping point, must stay inside the band, except below it on take-off and landing
//! legs. A vehicle already outside the band may fly any leg that ends inside it.

use super::input::Input;
use crate::command::Command;
use crate::gate::context::GateContext;
use crate::gate::ids;
use crate::gate::plan::{Band, Plan};
use crate::gate::verdict::{Finding, Findings, push_finding};

/// Where a target altitude may be: the band less the position uncertainty at each edge, the
/// margin every other distance check adds. A vehicle sent exactly to an edge crosses it with
/// the least tracking error, and holding there leaves the band by centimetres. A band narrower than two margins leaves its
/// middle.
pub(crate) fn target_band(ctx: &GateContext) -> (f64, f64) {
    let (lo, hi) = (ctx.limits.min_altitude_m, ctx.limits.max_altitude_m);
    let margin = ctx.limits.position_uncertainty_m.max(0.0);
    if hi - lo >= 2.0 * margin {
        (lo + margin, hi - margin)
    } else {
        let middle = (lo + hi) / 2.0;
        (middle, middle)
    }
}

/// The target altitude `command` asks for and the nearest one inside the target band, when
/// it asks for one outside it.
pub(crate) fn outside_target_band(ctx: &GateContext, command: &Command) -> Option<(f64, f64)> {
    let (lo, hi) = target_band(ctx);
    let asked = match *command {
        Command::Takeoff { altitude_m } | Command::SetAltitude { altitude_m } => altitude_m,
        Command::GoTo { target, .. } => target.z,
        _ => return None,
    };
    if (lo..=hi).contains(&asked) {
        return None;
    }
    Some((asked, asked.clamp(lo, hi)))
}

/// The denial of a target altitude outside the band. The substitution step moves a target into
/// the band first when `limits.clamp_altitude` allows, so this reports only when it does not.
pub(crate) fn target(ctx: &GateContext, command: &Command) -> Option<Finding> {
    let (asked, bound) = outside_target_band(ctx, command)?;
    let reason = "target altitude outside the band";
    Some(Finding::deny(
        ids::ALTITUDE_OUT_OF_BAND,
        reason,
        bound,
        asked,
    ))
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let Some(plan) = input.plan else { return };
    if outside_target_band(input.ctx, input.command).is_some() {
        return; // the target itself is out of band: already reported (`target`)
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
    use super::*;
    use crate::config::Limits;
    use crate::frames::Enu;
    use crate::gate::evaluate;
    use crate::gate::testkit::*;

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
        // in the band: the vehicle would descend 30 m above it first.
        let ctx = open_field();
        let high = hovering(0.0, 0.0, 150.0);
        assert_eq!(
            deny_ids(&ctx, &high, Command::Land { site: None }),
            [ids::ALTITUDE_PATH_LEAVES_BAND]
        );
    }
}
