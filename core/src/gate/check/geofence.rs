//! Geofence: the path must stay inside the union of the inclusion areas (polygons, possibly
//! concave, and circles), with the path model's margin. A point counts as inside when its
//! margin disc lies strictly inside one area.
//!
//! A vehicle already outside (its position-uncertainty disc not inside any area) may fly to any
//! target inside: the fence is then checked at the target only, so it can come back.

use super::input::Input;
use crate::gate::context::GateContext;
use crate::gate::geometry::{Radius, Seg, V2};
use crate::gate::ids;
use crate::gate::plan::{Leg, Plan};
use crate::gate::shape::{Run, Shape};
use crate::gate::verdict::{Finding, Findings, push_finding};

/// The best signed clearance of `x` over the areas (positive inside).
pub(crate) fn clearance(fence: &[Shape], x: V2) -> f64 {
    fence
        .iter()
        .map(|s| s.clearance(x))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The first `t` at which the moving disc is not inside any area, sweeping from one area's
/// safe stretch to the next. `None` when it stays inside throughout.
pub(crate) fn first_exit(fence: &[Shape], seg: Seg, r: Radius) -> Option<f64> {
    let edges: usize = fence.len() * 8 + 16;
    let mut cur = 0.0_f64;
    // Each round moves `cur` to a later span start, of which there are finitely many; the cap
    // only guards against rounding loops (and then answers conservatively).
    for _ in 0..edges.max(64) * 4 {
        let best = fence
            .iter()
            .filter_map(|s| s.safe_run(seg, r, cur))
            .reduce(|a: Run, b: Run| {
                if (b.reaches_end, b.end) > (a.reaches_end, a.end) {
                    b
                } else {
                    a
                }
            });
        match best {
            Some(run) if run.reaches_end => return None,
            Some(run) if run.end > cur => cur = run.end,
            _ => return Some(cur),
        }
    }
    Some(cur)
}

/// The target test: a point whose margin disc (radius `u`) is not strictly inside one area is
/// outside. Shared with [`crate::gate::check_target`].
pub(crate) fn target_outside(fence: &[Shape], xy: V2, u: f64) -> Option<Finding> {
    let target = clearance(fence, xy);
    let reason = "the target is outside the geofence (with margin)";
    (target <= u).then(|| Finding::deny(ids::GEOFENCE_OUTSIDE, reason, u, target))
}

fn leg_radius(plan: &Plan, leg: &Leg) -> Radius {
    Radius::tapered(plan.uncertainty_m, leg.taper_h)
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let fence = &input.ctx.fence;
    let Some(plan) = input.plan else { return };
    if fence.is_empty() || plan.is_empty() {
        return;
    }
    let u = plan.uncertainty_m;
    if let Some(f) = target_outside(fence, plan.end().xy(), u) {
        push_finding(out, f);
        return;
    }
    if clearance(fence, plan.start.xy()) <= u {
        return; // coming back in
    }
    for leg in &plan.legs {
        let r = leg_radius(plan, leg);
        if first_exit(fence, leg.seg(), r).is_some() {
            let measured = fence
                .iter()
                .map(|s| s.boundary_distance_from(leg.seg()))
                .fold(f64::INFINITY, f64::min);
            let reason = "the path leaves the geofence on the way";
            push_finding(
                out,
                Finding::deny(ids::GEOFENCE_PATH_LEAVES, reason, r.at(0.0), measured),
            );
            return;
        }
    }
}

/// Seconds until the coasting vehicle's uncertainty disc leaves the fence.
pub(crate) fn breach_s(ctx: &GateContext, plan: &Plan) -> Option<f64> {
    let leg = plan.legs.first()?;
    if ctx.fence.is_empty() {
        return None;
    }
    first_exit(&ctx.fence, leg.seg(), leg_radius(plan, leg)).map(|t| t * leg.duration_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airspace::Area;
    use crate::gate::testkit::*;
    use crate::gate::{GateContext, Verdict};

    /// A "U" open to the north: the notch is x ∈ [40, 60], y ∈ [40, 100].
    fn u_fence() -> GateContext {
        let u = Area::polygon(vec![
            [0.0, 0.0],
            [100.0, 0.0],
            [100.0, 100.0],
            [60.0, 100.0],
            [60.0, 40.0],
            [40.0, 40.0],
            [40.0, 100.0],
            [0.0, 100.0],
        ]);
        open_field()
            .with_fence(&u)
            .unwrap()
            .with_home(crate::frames::Enu::new(20.0, 20.0, 0.0))
    }

    #[test]
    fn a_concave_fence_that_the_straight_segment_leaves_and_re_enters_is_denied() {
        let ctx = u_fence();
        // (20, 80) → (80, 80): both ends inside, the notch in between.
        let f = only_finding(&ctx, &hovering(20.0, 80.0, 30.0), go(80.0, 80.0, 30.0));
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::GEOFENCE_PATH_LEAVES, 2.0, 0.0)
        );
        // Below the notch (y = 20: 20 m from its floor) the same crossing is fine.
        assert!(deny_ids(&ctx, &hovering(20.0, 20.0, 30.0), go(80.0, 20.0, 30.0)).is_empty());
    }

    #[test]
    fn the_target_needs_the_margin_and_speed_widens_it_at_the_start() {
        let ctx = u_fence();
        let snap = hovering(20.0, 20.0, 30.0);
        // 1.5 m from the east edge with u = 2 m: outside.
        let f = only_finding(&ctx, &snap, go(98.5, 20.0, 30.0));
        assert_eq!(
            (f.id, f.limit, f.measured),
            (ids::GEOFENCE_OUTSIDE, 2.0, 1.5)
        );
        assert!(deny_ids(&ctx, &snap, go(97.5, 20.0, 30.0)).is_empty());
        // Flying south at 5 m/s it stops 5²/(2·2.5) = 5 m on: from 6 m off the south edge
        // that leaves 1 m, less than u, whatever it is told; from 7.5 m it leaves 2.5 m.
        let mut fast = hovering(20.0, 6.0, 30.0);
        fast.velocity.y = -5.0;
        assert_eq!(
            deny_ids(&ctx, &fast, go(80.0, 20.0, 30.0)),
            [ids::GEOFENCE_PATH_LEAVES]
        );
        fast.position.y = 7.5;
        assert!(deny_ids(&ctx, &fast, go(80.0, 7.5, 30.0)).is_empty());
    }

    #[test]
    fn several_inclusion_areas_form_one_fence() {
        // Two overlapping squares: a path from one into the other stays inside the union.
        let a = Area::polygon(vec![[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]]);
        let b = Area::polygon(vec![
            [80.0, 0.0],
            [200.0, 0.0],
            [200.0, 100.0],
            [80.0, 100.0],
        ]);
        let c = Area::circle([230.0, 50.0], 40.0);
        let ctx = open_field()
            .with_fence(&a)
            .unwrap()
            .with_fence(&b)
            .unwrap()
            .with_fence(&c)
            .unwrap()
            .with_home(crate::frames::Enu::new(20.0, 50.0, 0.0));
        assert!(deny_ids(&ctx, &hovering(20.0, 50.0, 30.0), go(180.0, 50.0, 30.0)).is_empty());
        // Into the circle: at y = 50 it overlaps b for x ∈ [190, 200], so the path stays inside.
        assert!(deny_ids(&ctx, &hovering(150.0, 50.0, 30.0), go(260.0, 50.0, 30.0)).is_empty());
        // At y = 80 the circle starts at x ≈ 203.5, past b's east edge: out between them.
        assert_eq!(
            deny_ids(&ctx, &hovering(150.0, 80.0, 30.0), go(250.0, 80.0, 30.0)),
            [ids::GEOFENCE_PATH_LEAVES]
        );
    }

    #[test]
    fn a_vehicle_outside_may_come_back_in() {
        let ctx = u_fence();
        let outside = hovering(50.0, 80.0, 30.0); // in the notch
        assert!(matches!(
            verdict(&ctx, &outside, go(20.0, 20.0, 30.0)),
            Verdict::Approved(_)
        ));
        let f = only_finding(&ctx, &outside, go(50.0, 90.0, 30.0));
        assert_eq!(f.id, ids::GEOFENCE_OUTSIDE);
    }
}
