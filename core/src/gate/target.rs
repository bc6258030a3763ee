//! Where a move may end, asked of a point without a command (`check_geofence`): the gate's own
//! target tests, with its own limits — the fence with the position uncertainty `u` as margin,
//! the band a target altitude may be in (the config's limits narrowed by the scenario's, less
//! the limits' `position_uncertainty_m` at each edge), and the no-fly zones with `u` as margin — in the gate's frame. A tool
//! that reports a limit reports the one the gate enforces: a point fails these tests exactly
//! when a `go_to` there is denied (or its altitude clamped) for its end point. The path there,
//! traffic, energy and the vehicle's state are judged only when the move is asked for; moving
//! zones are taken where they are at `now_ms`.

use super::check::{altitude, geofence, no_fly};
use super::context::GateContext;
use super::ids;
use super::plan::uncertainty_m;
use super::verdict::{Finding, Findings, push_finding};
use crate::command::Command;
use crate::frames::Enu;
use crate::snapshot::VehicleSnapshot;

/// The gate's answer for one point.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetCheck {
    /// What a `go_to` there would be refused (or clamped) for, as the gate words it.
    pub findings: Findings,
    /// How far the point is inside every limit once the gate's margins are taken off, metres
    /// (negative: outside one).
    pub margin_m: f64,
    /// The position uncertainty used as the margin, metres.
    pub uncertainty_m: f64,
}

impl TargetCheck {
    /// The point passes every target test.
    pub fn inside(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The gate's target tests at `point` for the vehicle as `snap` shows it at `now_ms` (its
/// GNSS sets the margin, as it does for a command).
pub fn check_target(
    ctx: &GateContext,
    snap: &VehicleSnapshot,
    point: Enu,
    now_ms: u64,
) -> TargetCheck {
    let u = uncertainty_m(ctx, snap);
    let p = point.to_vector();
    let mut findings = Findings::new();
    let go = Command::GoTo {
        target: point,
        speed_mps: None,
    };
    if let Some(f) = altitude::target(ctx, &go) {
        push_finding(&mut findings, f);
    }
    let (lo, hi) = altitude::target_band(ctx);
    let mut margin = (point.z - lo).min(hi - point.z);
    if !ctx.fence.is_empty() {
        if let Some(f) = geofence::target_outside(&ctx.fence, p.xy(), u) {
            push_finding(&mut findings, f);
        }
        margin = margin.min(geofence::clearance(&ctx.fence, p.xy()) - u);
    }
    let s0 = ctx.scenario_s(now_ms);
    for zone in &ctx.no_fly {
        let Some(clearance) = no_fly::clearance_at(zone, p, s0) else {
            continue;
        };
        margin = margin.min(-clearance - u);
        let found = if zone.is_moving() {
            no_fly::point_in(zone, p, 0.0, s0, u).then(|| {
                let reason = "a moving no-fly zone is at the point now (with margin)";
                let measured = (-clearance).max(0.0);
                Finding::deny(ids::NO_FLY_MOVING_CONFLICT, reason, u, measured)
            })
        } else {
            no_fly::target_conflict(zone, p, u).map(|measured| {
                let reason = "the target is inside a no-fly zone (with margin)";
                Finding::deny(ids::NO_FLY_TARGET_INSIDE, reason, u, measured)
            })
        };
        if let Some(f) = found {
            push_finding(&mut findings, f);
        }
    }
    TargetCheck {
        findings,
        margin_m: margin,
        uncertainty_m: u,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airspace::Area;
    use crate::gate::testkit::*;
    use crate::gate::{GateContext, Verdict};
    use proptest::prelude::*;
    use serde_json::Map;

    /// A 200 m square fence; the vehicle hovers at its centre at 50 m with a GNSS EPH of
    /// 1.5 m, so the margin is u = 3 m (twice the EPH, above the limits' 2 m).
    fn square() -> (GateContext, VehicleSnapshot) {
        let fence = Area::polygon(vec![[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]]);
        let ctx = open_field()
            .with_fence(&fence)
            .unwrap()
            .with_home(Enu::new(100.0, 100.0, 0.0));
        let mut snap = hovering(100.0, 100.0, 50.0);
        snap.gnss.eph_m = 1.5;
        (ctx, snap)
    }

    /// Whether the gate flies a `go_to` to `p` as asked (approved, not clamped).
    fn gate_flies(ctx: &GateContext, snap: &VehicleSnapshot, p: Enu) -> bool {
        matches!(verdict(ctx, snap, go(p.x, p.y, p.z)), Verdict::Approved(_))
    }

    #[test]
    fn the_tool_and_the_gate_agree_at_the_fence_edge_and_above_the_ceiling() {
        let (ctx, snap) = square();
        // Metres inside the east edge: the gate wants more than u = 3 m.
        for (d, inside) in [(0.0, false), (1.0, false), (2.9, false), (3.1, true)] {
            let p = Enu::new(200.0 - d, 100.0, 50.0);
            let t = check_target(&ctx, &snap, p, NOW);
            assert_eq!(t.inside(), inside, "{d} m inside the edge: {t:?}");
            assert_eq!(gate_flies(&ctx, &snap, p), inside, "{d} m: the gate");
            assert!((t.margin_m - (d - 3.0)).abs() < 1e-9, "{t:?}");
            if !inside {
                assert_eq!(t.findings[0].id, ids::GEOFENCE_OUTSIDE);
            }
        }
        // The limits' ceiling (120 m), not a wider one, less the limits' own uncertainty (2 m:
        // the band's edges do not move with the GNSS).
        for (z, inside) in [
            (117.9, true),
            (118.1, false),
            (121.0, false),
            (150.0, false),
        ] {
            let p = Enu::new(100.0, 100.0, z);
            let t = check_target(&ctx, &snap, p, NOW);
            assert_eq!(t.inside(), inside, "{z} m: {t:?}");
            assert_eq!(gate_flies(&ctx, &snap, p), inside, "{z} m: the gate");
        }
        let t = check_target(&ctx, &snap, Enu::new(100.0, 100.0, 121.0), NOW);
        assert_eq!(t.findings[0].id, ids::ALTITUDE_OUT_OF_BAND);
        assert!((t.margin_m + 3.0).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn the_tool_and_the_gate_agree_next_to_a_no_fly_zone() {
        let (ctx, snap) = square();
        let zone = Area::Cylinder {
            center: [160.0, 100.0],
            radius_m: 10.0,
            floor_m: 0.0,
            ceiling_m: 80.0,
            vel_xy: None,
            extra: Map::new(),
        };
        let ctx = ctx.with_no_fly(&zone).unwrap().with_epoch_ms(NOW);
        // On the vehicle's side of the zone, so the path there ends at the point.
        for (d, inside) in [(0.0, false), (1.0, false), (2.9, false), (3.1, true)] {
            let p = Enu::new(150.0 - d, 100.0, 50.0);
            let t = check_target(&ctx, &snap, p, NOW);
            assert_eq!(t.inside(), inside, "{d} m off the zone: {t:?}");
            assert_eq!(gate_flies(&ctx, &snap, p), inside, "{d} m: the gate");
        }
        // Above its ceiling the zone is no limit.
        let above = check_target(&ctx, &snap, Enu::new(160.0, 100.0, 90.0), NOW);
        assert!(above.inside(), "{above:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Anywhere near the fence's edges and the band's edges, the tool says inside exactly
        /// when the gate flies a `go_to` there as asked.
        #[test]
        fn the_tool_says_inside_exactly_where_the_gate_flies(
            edge in 0usize..4,
            along in 20.0f64..180.0,
            depth in -6.0f64..8.0,
            z in prop_oneof![0.0f64..20.0, 20.0f64..110.0, 110.0f64..130.0],
            eph in prop_oneof![Just(0.5), Just(1.5), 0.0f64..3.0],
        ) {
            let (ctx, mut snap) = square();
            snap.gnss.eph_m = eph;
            let (x, y) = match edge {
                0 => (200.0 - depth, along),
                1 => (depth, along),
                2 => (along, 200.0 - depth),
                _ => (along, depth),
            };
            let p = Enu::new(x, y, z);
            let t = check_target(&ctx, &snap, p, NOW);
            prop_assert_eq!(t.inside(), gate_flies(&ctx, &snap, p), "{:?} {:?}", p, t);
        }
    }
}
