//! Time to breach: if the vehicle kept its present velocity, how long until it would cross any
//! limit the gate enforces — the altitude band, the geofence, a no-fly zone (static or moving),
//! the separation from traffic or a peer, or the battery needed to get home with the reserve.
//! The watchdog uses it to act before a breach (PX4's own geofence acts only after one).
//!
//! Distances use the position uncertainty only, not the stopping distance: `brake_ms` says how
//! long stopping takes, so the caller can act when `in_ms` comes within it plus its own margin.

use super::check::{altitude, energy, geofence, no_fly, separation};
use super::context::GateContext;
use super::horizon::escape_lead_ms;
use super::ids;
use super::plan::{Plan, uncertainty_m};
use crate::snapshot::VehicleSnapshot;
use serde::Serialize;

/// The first predicted breach.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Breach {
    /// The finding id of the limit that would be crossed.
    pub id: &'static str,
    /// Milliseconds from `now_ms` (0 when already in breach).
    pub in_ms: u64,
    /// Milliseconds the vehicle needs to stop from its present speed.
    pub brake_ms: u64,
    /// Milliseconds a (nearly) still vehicle needs to get out of the way of another aircraft
    /// or a moving zone ([`escape_lead_ms`](super::escape_lead_ms)); 0 for other breaches or
    /// a moving vehicle. A watchdog should act when `in_ms − escape_ms` comes within its
    /// margin: holding does not help a holding vehicle, the gate's move out of the way does.
    pub escape_ms: u64,
}

impl Breach {
    /// Milliseconds left before the vehicle must act: `in_ms` less `escape_ms`.
    pub fn act_in_ms(&self) -> u64 {
        self.in_ms.saturating_sub(self.escape_ms)
    }
}

/// Below this speed a vehicle counts as holding (m/s): a breach by traffic or a moving zone
/// then needs a move out of the way, not a stop.
const HOLDING_SPEED_MPS: f64 = 1.0;

/// The first limit the coasting vehicle would cross within `tuning.breach_horizon_s`, if any.
/// Only for an airborne vehicle with finite telemetry.
pub fn time_to_breach(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    now_ms: u64,
) -> Option<Breach> {
    let p = snapshot.position;
    let v = snapshot.velocity;
    let finite = [
        p.x,
        p.y,
        p.z,
        v.x,
        v.y,
        v.z,
        snapshot.battery.remaining_pct,
        snapshot.gnss.eph_m,
    ]
    .iter()
    .all(|x| x.is_finite());
    if !snapshot.is_airborne() || !finite {
        return None;
    }
    let plan = Plan::coast(ctx, snapshot, now_ms);
    let horizon = ctx.tuning.breach_horizon_s;
    let u = uncertainty_m(ctx, snapshot);
    let candidates = [
        altitude::breach_s(ctx, &plan).map(|t| (t, ids::ALTITUDE_PATH_LEAVES_BAND)),
        geofence::breach_s(ctx, &plan).map(|t| (t, ids::GEOFENCE_PATH_LEAVES)),
        no_fly::breach_s(ctx, &plan),
        separation::breach_s(ctx, &plan),
        energy::breach_s(ctx, snapshot, u, now_ms).map(|t| (t, ids::ENERGY_RESERVE)),
    ];
    let (t, id) = candidates
        .into_iter()
        .flatten()
        .filter(|(t, _)| *t <= horizon)
        .reduce(|a, b| if b.0 < a.0 { b } else { a })?;
    let speed = v.to_vector().norm();
    let meets_others = [
        ids::SEPARATION_TRAFFIC,
        ids::SEPARATION_PEER,
        ids::NO_FLY_MOVING_CONFLICT,
    ]
    .contains(&id);
    let escape_ms = if meets_others && speed < HOLDING_SPEED_MPS {
        escape_lead_ms(ctx)
    } else {
        0
    };
    Some(Breach {
        id,
        in_ms: (t.max(0.0) * 1000.0).round() as u64,
        brake_ms: (speed / ctx.vehicle.max_accel_mps2 * 1000.0).round() as u64,
        escape_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::airspace::Area;
    use crate::frames::Enu;

    #[test]
    fn flying_at_a_fence_edge_breaches_when_the_uncertainty_disc_reaches_it() {
        // Square fence [0, 200]², flying east at 10 m/s from x = 100: the 2 m disc touches
        // x = 200 after 9.8 s. It needs 4 s to stop.
        let fence = Area::polygon(vec![[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]]);
        let ctx = open_field()
            .with_fence(&fence)
            .unwrap()
            .with_home(Enu::new(100.0, 100.0, 0.0));
        let mut snap = hovering(100.0, 100.0, 30.0);
        snap.velocity.x = 10.0;
        let b = time_to_breach(&ctx, &snap, NOW).unwrap();
        assert_eq!(
            b,
            Breach {
                id: ids::GEOFENCE_PATH_LEAVES,
                in_ms: 9_800,
                brake_ms: 4_000,
                escape_ms: 0,
            }
        );
    }

    #[test]
    fn a_descent_through_the_floor_is_a_breach_unless_the_vehicle_is_landing() {
        // 14 m up, descending at 1.5 m/s, floor of the band at 10 m (open_field): 2.67 s.
        use crate::snapshot::{FlightMode, LandedState};
        let ctx = open_field();
        let floor = ctx.limits.min_altitude_m;
        let mut snap = hovering(0.0, 0.0, floor + 4.0);
        snap.velocity.z = -1.5;
        let b = time_to_breach(&ctx, &snap, NOW).unwrap();
        assert_eq!(b.id, ids::ALTITUDE_PATH_LEAVES_BAND);
        assert_eq!(b.in_ms, 2_667);
        // Landing (the mode, or the landing state): that descent is the landing.
        let mut landing = snap;
        landing.mode = FlightMode::Land;
        assert_eq!(time_to_breach(&ctx, &landing, NOW), None);
        let mut landing = snap;
        landing.landed = LandedState::Landing;
        assert_eq!(time_to_breach(&ctx, &landing, NOW), None);
        // Climbing out of the top of the band while landing is still one.
        let mut up = landing;
        up.position.z = ctx.limits.max_altitude_m - 1.0;
        up.velocity.z = 2.0;
        assert!(time_to_breach(&ctx, &up, NOW).is_some());
    }

    #[test]
    fn a_moving_zone_arriving_at_a_hovering_vehicle_is_a_breach() {
        // r = 10 at (100, 0), moving west at 5 m/s; the vehicle hovers at the origin: the
        // zone's edge plus 2 m reaches it when the centre is 12 m away, after 17.6 s.
        let zone = Area::Cylinder {
            center: [100.0, 0.0],
            radius_m: 10.0,
            floor_m: 0.0,
            ceiling_m: 100.0,
            vel_xy: Some([-5.0, 0.0]),
            extra: Default::default(),
        };
        let ctx = open_field().with_no_fly(&zone).unwrap().with_epoch_ms(NOW);
        let b = time_to_breach(&ctx, &hovering(0.0, 0.0, 30.0), NOW).unwrap();
        assert_eq!(
            (b.id, b.in_ms, b.brake_ms),
            (ids::NO_FLY_MOVING_CONFLICT, 17_600, 0)
        );
        // Holding does not help a hovering vehicle: it must act the escape lead earlier
        // (see `escape`: 21 s).
        assert_eq!(b.escape_ms, 21_000);
        assert_eq!(b.act_in_ms(), 0);
    }

    #[test]
    fn climbing_out_of_the_band_and_nothing_ahead() {
        let ctx = open_field();
        let mut snap = hovering(0.0, 0.0, 100.0);
        snap.velocity.z = 2.0;
        let b = time_to_breach(&ctx, &snap, NOW).unwrap();
        assert_eq!((b.id, b.in_ms), (ids::ALTITUDE_PATH_LEAVES_BAND, 10_000));
        assert_eq!(time_to_breach(&ctx, &hovering(0.0, 0.0, 30.0), NOW), None);
        assert_eq!(time_to_breach(&ctx, &on_ground(0.0, 0.0), NOW), None);
    }
}
