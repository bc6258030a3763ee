//! No-fly zones: shapes between a floor and a ceiling that the path must keep out of, with the
//! path model's margins horizontally and vertically. Static zones are checked on the legs;
//! moving zones on the timeline, in the zone's own frame, where the vehicle's relative motion
//! is again a straight segment per piece — so "in the way only later" is found in closed form.
//!
//! A vehicle already inside a zone (with its position uncertainty) may leave it: that zone is
//! then checked only where the plan ends (the target, or the hold there).

use super::input::Input;
use crate::gate::context::{GateContext, NoFlyZone};
use crate::gate::geometry::{Radius, Seg, Span, linear_le0};
use crate::gate::ids;
use crate::gate::plan::{Band, Leg, Piece, Plan, V3};
use crate::gate::verdict::{Finding, Findings, push_finding};

/// `t` in [0, 1] where `z(t)` (from `za` to `zb`) is within the zone's floor and ceiling widened
/// by `margin(t)`.
fn vertical(zone: &NoFlyZone, za: f64, zb: f64, margin: Radius) -> Option<Span> {
    let dz = zb - za;
    let above_floor = linear_le0(-margin.r1 - dz, zone.floor_m - margin.r0 - za)?;
    let below_ceiling = linear_le0(dz - margin.r1, za - zone.ceiling_m - margin.r0)?;
    above_floor.intersect(below_ceiling)
}

/// First conflict on a static leg: `(t, clearance)`.
fn leg_conflict(zone: &NoFlyZone, leg: &Leg, u: f64) -> Option<(f64, f64)> {
    let within = vertical(
        zone,
        leg.from.z,
        leg.to.z,
        Radius::tapered(0.0, leg.taper_v),
    )?;
    let seg = leg.seg();
    let t = zone
        .shape
        .first_touch(seg, Radius::tapered(u, leg.taper_h), within)?;
    let part = Seg::new(seg.at(within.lo), seg.at(within.hi));
    Some((t, zone.shape.distance_from(part)))
}

/// The piece's horizontal motion relative to a moving zone (the zone's frame at scenario 0).
fn relative(zone: &NoFlyZone, piece: &Piece, scenario_s: f64) -> Seg {
    let at = |p: V3, t: f64| p.xy() - zone.velocity * (scenario_s + t);
    Seg::new(at(piece.from, piece.t0), at(piece.to, piece.t1))
}

/// First conflict on a piece against a moving zone: `(time from now, clearance)`.
fn piece_conflict(zone: &NoFlyZone, piece: &Piece, scenario_s: f64) -> Option<(f64, f64)> {
    let within = vertical(
        zone,
        piece.from.z,
        piece.to.z,
        Radius::constant(piece.margin_v),
    )?;
    let seg = relative(zone, piece, scenario_s);
    let t = zone
        .shape
        .first_touch(seg, Radius::constant(piece.margin_h), within)?;
    let part = Seg::new(seg.at(within.lo), seg.at(within.hi));
    Some((
        piece.t0 + t * (piece.t1 - piece.t0),
        zone.shape.distance_from(part),
    ))
}

/// The target test for a static zone: the clearance when the disc of radius `u` held at `p`
/// meets it. Shared with [`crate::gate::check_target`].
pub(crate) fn target_conflict(zone: &NoFlyZone, p: V3, u: f64) -> Option<f64> {
    let held = Leg {
        from: p,
        to: p,
        taper_h: 0.0,
        taper_v: 0.0,
        band: Band::Checked,
        velocity: V3::zeros(),
        entry_velocity: V3::zeros(),
        duration_s: 0.0,
    };
    leg_conflict(zone, &held, u).map(|(_, clearance)| clearance)
}

/// The zone's signed horizontal clearance from `p` (positive inside) where it is at scenario
/// time `scenario_s`, when `p` is between its floor and ceiling.
pub(crate) fn clearance_at(zone: &NoFlyZone, p: V3, scenario_s: f64) -> Option<f64> {
    (zone.floor_m..=zone.ceiling_m)
        .contains(&p.z)
        .then(|| zone.shape.clearance(p.xy() - zone.velocity * scenario_s))
}

/// Whether the disc of radius `u` around `p`, at time `t`, overlaps the zone.
pub(crate) fn point_in(zone: &NoFlyZone, p: V3, t: f64, scenario_s: f64, u: f64) -> bool {
    let x = p.xy() - zone.velocity * (scenario_s + t);
    (zone.floor_m..=zone.ceiling_m).contains(&p.z) && zone.shape.clearance(x) >= -u
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let Some(plan) = input.plan else { return };
    if plan.is_empty() {
        return;
    }
    let (u, s0) = (plan.uncertainty_m, plan.scenario_s);
    let mut reported = [false; 3];
    let mut report = |slot: usize, id, reason, limit, measured| {
        if !reported[slot] {
            reported[slot] = true;
            push_finding(out, Finding::deny(id, reason, limit, measured));
        }
    };
    for zone in &input.ctx.no_fly {
        let leaving = point_in(zone, plan.start, 0.0, s0, u);
        if zone.is_moving() {
            let last = plan.pieces.len().saturating_sub(1);
            let hit = plan
                .pieces
                .iter()
                .enumerate()
                .filter(|(i, _)| !leaving || *i == last)
                .find_map(|(_, p)| piece_conflict(zone, p, s0).map(|c| (p, c)));
            if let Some((piece, (_, clearance))) = hit {
                let reason = "a moving no-fly zone meets the vehicle on its way or at the target";
                report(
                    2,
                    ids::NO_FLY_MOVING_CONFLICT,
                    reason,
                    piece.margin_h,
                    clearance,
                );
            }
            continue;
        }
        let Some(last) = plan.legs.last() else { return };
        if let Some(clearance) = target_conflict(zone, last.to, u) {
            let reason = "the target is inside a no-fly zone (with margin)";
            report(0, ids::NO_FLY_TARGET_INSIDE, reason, u, clearance);
        } else if !leaving
            && let Some((leg, (_, clearance))) = plan
                .legs
                .iter()
                .find_map(|l| leg_conflict(zone, l, u).map(|c| (l, c)))
        {
            let reason = "the path crosses a no-fly zone";
            let limit = u + leg.taper_h;
            report(1, ids::NO_FLY_PATH_CROSSES, reason, limit, clearance);
        }
    }
}

/// Seconds until the coasting vehicle meets a zone, and which kind.
pub(crate) fn breach_s(ctx: &GateContext, plan: &Plan) -> Option<(f64, &'static str)> {
    let leg = plan.legs.first()?;
    let piece = plan.pieces.first()?;
    ctx.no_fly
        .iter()
        .filter_map(|zone| {
            if zone.is_moving() {
                piece_conflict(zone, piece, plan.scenario_s)
                    .map(|(t, _)| (t, ids::NO_FLY_MOVING_CONFLICT))
            } else {
                leg_conflict(zone, leg, plan.uncertainty_m)
                    .map(|(t, _)| (t * leg.duration_s, ids::NO_FLY_PATH_CROSSES))
            }
        })
        .reduce(|a, b| if b.0 < a.0 { b } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airspace::Area;
    use crate::gate::testkit::*;
    use crate::gate::{GateContext, Verdict};
    use serde_json::Map;

    fn cylinder(c: [f64; 2], r: f64, floor: f64, ceiling: f64, vel: Option<[f64; 2]>) -> Area {
        Area::Cylinder {
            center: c,
            radius_m: r,
            floor_m: floor,
            ceiling_m: ceiling,
            vel_xy: vel,
            extra: Map::new(),
        }
    }

    fn with(zone: Area) -> GateContext {
        open_field().with_no_fly(&zone).unwrap().with_epoch_ms(NOW)
    }

    #[test]
    fn a_segment_that_grazes_a_cylinder_is_denied() {
        // The path runs along y = 0, 10 m from the centre at (100, 10); u = 2 m.
        let snap = hovering(0.0, 0.0, 30.0);
        let grazing = with(cylinder([100.0, 10.0], 8.5, 0.0, 100.0, None));
        let f = only_finding(&grazing, &snap, go(200.0, 0.0, 30.0));
        assert_eq!((f.id, f.limit), (ids::NO_FLY_PATH_CROSSES, 2.0));
        assert!((f.measured - 1.5).abs() < 1e-9, "{f:?}");
        let clear = with(cylinder([100.0, 10.0], 7.9, 0.0, 100.0, None));
        assert!(deny_ids(&clear, &snap, go(200.0, 0.0, 30.0)).is_empty());
    }

    #[test]
    fn a_target_inside_an_exclusion_polygon_is_denied() {
        let square = Area::polygon(vec![[50.0, 50.0], [70.0, 50.0], [70.0, 70.0], [50.0, 70.0]]);
        let ctx = with(square);
        let f = only_finding(&ctx, &hovering(0.0, 0.0, 30.0), go(60.0, 60.0, 30.0));
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::NO_FLY_TARGET_INSIDE, 2.0, 0.0)
        );
        // Passing beside it, 3 m off its west side, is fine; 1 m off is not.
        assert!(deny_ids(&ctx, &hovering(47.0, 0.0, 30.0), go(47.0, 100.0, 30.0)).is_empty());
        assert_eq!(
            deny_ids(&ctx, &hovering(49.0, 0.0, 30.0), go(49.0, 100.0, 30.0)),
            [ids::NO_FLY_PATH_CROSSES]
        );
    }

    #[test]
    fn floor_and_ceiling_bound_a_cylinder() {
        let ctx = with(cylinder([100.0, 0.0], 20.0, 40.0, 100.0, None));
        let snap = hovering(0.0, 0.0, 30.0);
        assert!(deny_ids(&ctx, &snap, go(200.0, 0.0, 30.0)).is_empty());
        // Climbing to 40 m reaches the floor only at the target, 100 m past the zone; flying
        // level at the floor touches it.
        assert!(deny_ids(&ctx, &snap, go(200.0, 0.0, 40.0)).is_empty());
        let level = hovering(0.0, 0.0, 40.0);
        assert_eq!(
            deny_ids(&ctx, &level, go(200.0, 0.0, 40.0)),
            [ids::NO_FLY_PATH_CROSSES]
        );
        // Climbing at 4 m/s it may rise 4²/(2·2.5) = 3.2 m, a margin that tapers to 0 at the
        // target. Over (0,0) → (200,0) the zone (r 20, u 2) is near for x ∈ [78, 122], i.e.
        // t ≥ 0.39, where the margin is at most 3.2·0.61 = 1.952 m: a floor at 32 m is clear
        // of 30 m, one at 31.9 m is not.
        let mut climbing = hovering(0.0, 0.0, 30.0);
        climbing.velocity.z = 4.0;
        let floor = |f| with(cylinder([100.0, 0.0], 20.0, f, 100.0, None));
        assert!(deny_ids(&floor(32.0), &climbing, go(200.0, 0.0, 30.0)).is_empty());
        assert_eq!(
            deny_ids(&floor(31.9), &climbing, go(200.0, 0.0, 30.0)),
            [ids::NO_FLY_PATH_CROSSES]
        );
    }

    #[test]
    fn a_moving_zone_that_will_be_in_the_way_only_later_is_denied() {
        // Zone r = 10 starting at (100, −100), moving north at 10 m/s. The vehicle flies
        // (0,0) → (200,0) at 10 m/s: wait 2 s, then x = 10(τ − 2). Relative to the zone it
        // is at (10τ − 120, 100 − 10τ): closest at τ = 11, 14.1 m, inside r + u + v²/8a = 17 m.
        // Now the zone is 100 m from the path, so a check of the present would pass it.
        let ctx = with(cylinder(
            [100.0, -100.0],
            10.0,
            0.0,
            100.0,
            Some([0.0, 10.0]),
        ));
        let f = only_finding(&ctx, &hovering(0.0, 0.0, 30.0), go(200.0, 0.0, 30.0));
        assert_eq!((f.id, f.limit), (ids::NO_FLY_MOVING_CONFLICT, 7.0));
        assert!((f.measured - (200f64.sqrt() - 10.0)).abs() < 1e-9, "{f:?}");
        // The same zone 200 m further south crosses y = 0 at τ = 30, after the vehicle passed
        // x = 100 (τ = 12) and while it holds 100 m away at (200, 0).
        let later = with(cylinder(
            [100.0, -300.0],
            10.0,
            0.0,
            100.0,
            Some([0.0, 10.0]),
        ));
        assert!(deny_ids(&later, &hovering(0.0, 0.0, 30.0), go(200.0, 0.0, 30.0)).is_empty());
        // But one that reaches the target while the vehicle holds there is in the way.
        let at_target = with(cylinder(
            [200.0, -300.0],
            10.0,
            0.0,
            100.0,
            Some([0.0, 10.0]),
        ));
        let v = verdict(&at_target, &hovering(0.0, 0.0, 30.0), go(200.0, 0.0, 30.0));
        assert!(matches!(v, Verdict::Denied(_)), "{v:?}");
    }

    #[test]
    fn a_vehicle_inside_a_zone_may_leave_it() {
        let ctx = with(cylinder([0.0, 0.0], 20.0, 0.0, 100.0, None));
        let inside = hovering(5.0, 0.0, 30.0);
        assert!(deny_ids(&ctx, &inside, go(100.0, 0.0, 30.0)).is_empty());
        assert_eq!(
            deny_ids(&ctx, &inside, go(10.0, 0.0, 30.0)),
            [ids::NO_FLY_TARGET_INSIDE]
        );
        let moving = with(cylinder([0.0, 0.0], 20.0, 0.0, 100.0, Some([1.0, 0.0])));
        assert!(deny_ids(&moving, &inside, go(-100.0, 0.0, 30.0)).is_empty());
    }
}
