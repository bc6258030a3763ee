//! Separation: the closest point of approach to every traffic track and every peer's shared
//! plan over the plan's timeline must stay above `min_separation_m` plus the vehicle's margins
//! on that piece (`hypot(horizontal, vertical)`). Both sides move straight within a piece, so
//! each closest approach is a quadratic in closed form.
//!
//! A vehicle already closer than the separation (plus its position uncertainty) in the air may
//! fly any plan that never brings it closer than it is now; one on the ground may not take off
//! into the separation.

use super::input::Input;
use crate::gate::context::GateContext;
use crate::gate::geometry::quadratic_le0;
use crate::gate::ids;
use crate::gate::inputs::{PeerPlan, Track};
use crate::gate::plan::{Piece, Plan, V3};
use crate::gate::verdict::{Finding, Findings, push_finding};

/// Another aircraft's position along the timeline (seconds from now).
#[derive(Clone, Copy)]
enum Other<'a> {
    Track(&'a Track),
    Peer(&'a PeerPlan),
}

fn seconds_from(now_ms: u64, t_ms: u64) -> f64 {
    (t_ms as f64 - now_ms as f64) / 1000.0
}

impl Other<'_> {
    fn at(self, now_ms: u64, t: f64) -> V3 {
        match self {
            Other::Track(tr) => {
                let dt = t - seconds_from(now_ms, tr.time_ms);
                tr.position.to_vector() + tr.velocity.to_vector() * dt
            }
            Other::Peer(p) => {
                let k = &p.knots;
                let i = k.partition_point(|k| seconds_from(now_ms, k.time_ms) <= t);
                match (i.checked_sub(1).and_then(|j| k.get(j)), k.get(i)) {
                    (Some(a), Some(b)) => {
                        let (ta, tb) = (
                            seconds_from(now_ms, a.time_ms),
                            seconds_from(now_ms, b.time_ms),
                        );
                        let f = (t - ta) / (tb - ta);
                        a.position.to_vector() * (1.0 - f) + b.position.to_vector() * f
                    }
                    (Some(a), None) => a.position.to_vector(),
                    (None, Some(b)) => b.position.to_vector(),
                    (None, None) => V3::zeros(),
                }
            }
        }
    }

    /// Its own size: separation counts from its surface.
    fn radius(self) -> f64 {
        match self {
            Other::Track(_) => 0.0,
            Other::Peer(p) => p.radius_m,
        }
    }

    /// Times within `(t0, t1)` where this one turns. A plan's knots are in strictly increasing
    /// time (a context refuses any other), so the first is found by bisection: a plan over a
    /// whole mission has thousands of knots, and a piece spans a few.
    fn turns(self, now_ms: u64, t0: f64, t1: f64) -> impl Iterator<Item = f64> {
        let knots: &[_] = match self {
            Other::Track(_) => &[],
            Other::Peer(p) => &p.knots,
        };
        let first = knots.partition_point(|k| seconds_from(now_ms, k.time_ms) <= t0);
        knots[first..]
            .iter()
            .map(move |k| seconds_from(now_ms, k.time_ms))
            .take_while(move |t| *t < t1)
    }
}

/// Over one piece: the closest distance, and the first time the distance is at most `r`.
fn approach(piece: &Piece, other: Other<'_>, now_ms: u64, r: f64) -> (f64, Option<f64>) {
    let pos = |t: f64| {
        let f = if piece.t1 > piece.t0 {
            (t - piece.t0) / (piece.t1 - piece.t0)
        } else {
            0.0
        };
        piece.from + (piece.to - piece.from) * f
    };
    let mut closest = f64::INFINITY;
    let mut first = None;
    let mut a = piece.t0;
    let ends = other
        .turns(now_ms, piece.t0, piece.t1)
        .chain(std::iter::once(piece.t1));
    for b in ends {
        let ra = pos(a) - other.at(now_ms, a);
        let d = (pos(b) - other.at(now_ms, b)) - ra;
        let dd = d.dot(&d);
        let s = if dd > 0.0 {
            (-ra.dot(&d) / dd).clamp(0.0, 1.0)
        } else {
            0.0
        };
        closest = closest.min((ra + d * s).norm());
        if first.is_none() {
            first = quadratic_le0(dd, 2.0 * ra.dot(&d), ra.dot(&ra) - r * r)
                .map(|sp| a + sp.lo * (b - a));
        }
        a = b;
    }
    (closest, first)
}

fn others(ctx: &GateContext) -> impl Iterator<Item = Other<'_>> {
    ctx.traffic
        .iter()
        .map(Other::Track)
        .chain(ctx.peers.iter().map(Other::Peer))
}

pub(crate) fn check(input: &Input<'_>, out: &mut Findings) {
    let Some(plan) = input.plan else { return };
    let min_sep = input.ctx.limits.min_separation_m;
    let now = plan.now_ms;
    let mut reported = [false; 2];
    for other in others(input.ctx) {
        let now_distance = (plan.start - other.at(now, 0.0)).norm();
        // On the ground the separation does not count yet: a take-off must keep all of it.
        let sep = min_sep + other.radius();
        let already_close = input.snap.is_airborne() && now_distance < sep + plan.uncertainty_m;
        let mut worst: Option<(f64, f64)> = None;
        for piece in &plan.pieces {
            let r = sep + libm::hypot(piece.margin_h, piece.margin_v);
            let (closest, first) = approach(piece, other, now, r);
            let conflict = if already_close {
                closest < now_distance - 1e-9
            } else {
                first.is_some()
            };
            if conflict && worst.is_none_or(|(_, c)| closest < c) {
                worst = Some((r, closest));
            }
        }
        let (slot, id, reason) = match other {
            Other::Track(_) => (
                0,
                ids::SEPARATION_TRAFFIC,
                "too close to traffic on the way",
            ),
            Other::Peer(_) => (1, ids::SEPARATION_PEER, "too close to a peer's shared plan"),
        };
        if let Some((r, closest)) = worst.filter(|_| !reported[slot]) {
            reported[slot] = true;
            push_finding(out, Finding::deny(id, reason, r, closest));
        }
    }
}

/// Seconds until the coasting vehicle comes within the separation of anyone.
pub(crate) fn breach_s(ctx: &GateContext, plan: &Plan) -> Option<(f64, &'static str)> {
    let piece = plan.pieces.first()?;
    let r = ctx.limits.min_separation_m + piece.margin_h;
    others(ctx)
        .filter_map(|o| {
            let id = match o {
                Other::Track(_) => ids::SEPARATION_TRAFFIC,
                Other::Peer(_) => ids::SEPARATION_PEER,
            };
            approach(piece, o, plan.now_ms, r + o.radius())
                .1
                .map(|t| (t, id))
        })
        .reduce(|a, b| if b.0 < a.0 { b } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Command;
    use crate::frames::Enu;
    use crate::gate::testkit::*;
    use crate::gate::{GateContext, PlanKnot};

    fn with_track(pos: Enu, vel: Enu) -> GateContext {
        let mut ctx = open_field();
        ctx.set_traffic(vec![Track {
            time_ms: NOW,
            position: pos,
            velocity: vel,
        }])
        .unwrap();
        ctx
    }

    #[test]
    fn head_on_traffic_is_denied_and_a_passing_one_is_not() {
        // Vehicle (0,0,30) → (200,0,30) at 10 m/s; traffic from (400, 0, 30) west at 10 m/s:
        // they meet. Required: 20 + hypot(2 + 5, 5) ≈ 28.6 m.
        let snap = hovering(0.0, 0.0, 30.0);
        let ctx = with_track(Enu::new(400.0, 0.0, 30.0), Enu::new(-10.0, 0.0, 0.0));
        let f = only_finding(&ctx, &snap, go(200.0, 0.0, 30.0));
        assert_eq!(f.id, ids::SEPARATION_TRAFFIC);
        assert!((f.limit - (20.0 + 7.0f64.hypot(5.0))).abs() < 1e-9, "{f:?}");
        assert!(f.measured < 1e-9);
        // The same traffic 100 m higher passes overhead.
        let high = with_track(Enu::new(400.0, 0.0, 130.0), Enu::new(-10.0, 0.0, 0.0));
        assert!(deny_ids(&high, &snap, go(200.0, 0.0, 30.0)).is_empty());
        // Moving away at 40 m: already outside, never closer.
        let away = with_track(Enu::new(-40.0, 0.0, 30.0), Enu::new(-20.0, 0.0, 0.0));
        assert!(deny_ids(&away, &snap, go(200.0, 0.0, 30.0)).is_empty());
    }

    #[test]
    fn a_vehicle_too_close_may_only_open_the_distance() {
        // A hovering intruder 15 m east: flying west opens the gap, flying east closes it.
        let snap = hovering(0.0, 0.0, 30.0);
        let ctx = with_track(Enu::new(15.0, 0.0, 30.0), Enu::default());
        assert!(deny_ids(&ctx, &snap, go(-100.0, 0.0, 30.0)).is_empty());
        let f = only_finding(&ctx, &snap, go(100.0, 0.0, 30.0));
        assert_eq!(f.id, ids::SEPARATION_TRAFFIC);
        assert!(f.measured < 15.0);
    }

    #[test]
    fn a_take_off_within_the_separation_is_denied() {
        // Traffic 10 m east and 12 m up (15.6 m away, inside the 20 m), flying away east at
        // 2 m/s: in the air the vehicle may fly west, since the distance only opens; on the
        // ground it has no separation to keep yet, and taking off would start it inside it.
        let ctx = with_track(Enu::new(10.0, 0.0, 12.0), Enu::new(2.0, 0.0, 0.0));
        let ground = on_ground(0.0, 0.0);
        assert_eq!(
            deny_ids(&ctx, &ground, Command::Takeoff { altitude_m: 5.0 }),
            [ids::SEPARATION_TRAFFIC]
        );
        let mut low = hovering(0.0, 0.0, 1.0);
        low.velocity = Enu::default();
        assert!(deny_ids(&ctx, &low, go(-100.0, 0.0, 1.0)).is_empty());
    }

    #[test]
    fn a_peers_plan_is_followed_between_its_knots() {
        // The peer waits at (100, 50) until τ = 8 s, then flies south to (100, −50) by τ = 18 s:
        // it is at (100, 0) at τ = 13, when the vehicle (x = 10(τ − 2)) is at x = 110.
        let mut ctx = open_field();
        let knot = |t: f64, y: f64| PlanKnot {
            time_ms: NOW + (t * 1000.0) as u64,
            position: Enu::new(100.0, y, 30.0),
        };
        ctx.set_peer_plans(vec![PeerPlan {
            peer: "uav-2".into(),
            knots: vec![knot(8.0, 50.0), knot(18.0, -50.0)],
            radius_m: 0.0,
        }])
        .unwrap();
        let snap = hovering(0.0, 0.0, 30.0);
        assert_eq!(
            deny_ids(&ctx, &snap, go(200.0, 0.0, 30.0)),
            [ids::SEPARATION_PEER]
        );
        // Going north first (to (0, 200)) never comes near.
        assert!(deny_ids(&ctx, &snap, go(0.0, 200.0, 30.0)).is_empty());
    }

    #[test]
    fn separation_from_a_moving_obstacle_counts_from_its_surface() {
        // A sphere sitting 60 m north of a leg east: as a point it is clear of the 20 m (and
        // the margins), with a 45 m radius its surface is 15 m from the leg.
        let obstacle = |radius_m: f64| PeerPlan {
            peer: "obstacle-0".into(),
            knots: vec![PlanKnot {
                time_ms: NOW,
                position: Enu::new(100.0, 60.0, 30.0),
            }],
            radius_m,
        };
        let snap = hovering(0.0, 0.0, 30.0);
        let mut ctx = open_field();
        ctx.set_peer_plans(vec![obstacle(0.0)]).unwrap();
        assert!(deny_ids(&ctx, &snap, go(200.0, 0.0, 30.0)).is_empty());
        ctx.set_peer_plans(vec![obstacle(45.0)]).unwrap();
        let f = only_finding(&ctx, &snap, go(200.0, 0.0, 30.0));
        assert_eq!(f.id, ids::SEPARATION_PEER);
        assert!(f.limit > 65.0, "{f:?}");
    }
}
