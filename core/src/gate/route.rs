//! The route handed over to the autopilot, and the gate's rule over it.
//!
//! Flown leg by leg, every command is judged before it is sent. Handed over (PX4 Mission,
//! ArduPilot AUTO), the autopilot flies every leg without asking again, so the gate judges the
//! whole of what remains at once: [`Command::FlyMission`] is approved only when every leg left —
//! the take-off when on the ground, each route point from the next one on, then the return or
//! landing — passes the same checks a `go_to` would, each from the position, clock and battery
//! the gate's own path model says the vehicle would have there. A leg the gate would only pass
//! clamped is refused too: the autopilot flies its items as uploaded. The runtime asks again
//! while the mission flies (the airspace changes, the battery drains faster than the model
//! said), and pauses the mission when the answer turns to no.
//!
//! [`RouteFlight`] is that walk along legs on the path model; the whole-mission check before
//! take-off ([`crate::plan_mission::check_mission`]) walks the same way.

use super::context::GateContext;
use super::cost::command_cost;
use super::evaluate::evaluate;
use super::ids;
use super::memory::GateState;
use super::verdict::{Finding, Verdict};
use crate::command::Command;
use crate::frames::Enu;
use crate::snapshot::{FlightMode, LandedState, VehicleSnapshot};
use serde::Serialize;

/// One point the autopilot flies to, in the local frame (metres above home).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoutePoint {
    pub at: Enu,
    /// The plan item it flies (`None` for a point the check added: a way around a zone).
    pub item: Option<u16>,
}

/// What the autopilot does after the last point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteEnd {
    /// Returns home and lands there (an RTL item).
    Return,
    /// Lands at the last point (a NAV_LAND item).
    Land,
    /// Stays where the last point is (loiters).
    Stay,
}

/// A route as handed over: a take-off to `takeoff_m` above home, the points in order, the end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    pub takeoff_m: f64,
    pub points: Vec<RoutePoint>,
    pub end: RouteEnd,
}

impl Route {
    /// The legs left when the autopilot flies to point `next` (0: the first) — with the
    /// take-off first when `on_ground` — as the commands the gate judges.
    pub fn legs_from(&self, next: usize, on_ground: bool) -> impl Iterator<Item = Command> + '_ {
        let takeoff = on_ground.then_some(Command::Takeoff {
            altitude_m: self.takeoff_m,
        });
        let points = self.points.iter().skip(next).map(|p| Command::GoTo {
            target: p.at,
            speed_mps: None,
        });
        let end = match self.end {
            RouteEnd::Return => Some(Command::ReturnToHome),
            RouteEnd::Land => {
                let at = self.points.last().map(|p| [p.at.x, p.at.y]);
                Some(Command::Land { site: at })
            }
            RouteEnd::Stay => None,
        };
        takeoff.into_iter().chain(points).chain(end)
    }
}

/// The vehicle as a walk along legs flies it: where the gate's path model puts it, with its
/// clock, battery and totals.
#[derive(Debug, Clone)]
pub struct RouteFlight<'a> {
    ctx: &'a GateContext,
    pub snapshot: VehicleSnapshot,
    pub now_ms: u64,
    pub duration_s: f64,
    pub energy_wh: f64,
}

impl<'a> RouteFlight<'a> {
    /// A walk from `start` (its time is the walk's clock).
    pub fn new(ctx: &'a GateContext, start: &VehicleSnapshot, now_ms: u64) -> Self {
        Self {
            ctx,
            snapshot: *start,
            now_ms,
            duration_s: 0.0,
            energy_wh: 0.0,
        }
    }

    pub fn context(&self) -> &'a GateContext {
        self.ctx
    }

    /// The gate's verdict on `command` here and now (no rate limit: the legs are one request).
    pub fn judge(&self, command: &Command) -> Verdict {
        evaluate(
            self.ctx,
            &self.snapshot,
            command,
            self.now_ms,
            &mut GateState::default(),
        )
    }

    /// Moves the vehicle as `command` would, on the gate's model.
    pub fn fly(&mut self, command: &Command) {
        match command {
            Command::Arm => self.snapshot.armed = true,
            other => {
                let v = self.ctx.vehicle();
                let (cruise, cap_wh) = (v.cruise_speed_mps, v.battery_capacity_wh);
                if let Some(cost) =
                    command_cost(self.ctx, &self.snapshot, other, cruise, self.now_ms)
                {
                    self.duration_s += cost.duration_s;
                    self.energy_wh += cost.energy_wh;
                    self.now_ms += (cost.duration_s * 1000.0) as u64;
                    self.snapshot.position = cost.end;
                    self.snapshot.battery.remaining_pct -= cost.energy_wh / cap_wh * 100.0;
                }
                self.snapshot.landed = LandedState::InAir;
                self.snapshot.mode = FlightMode::Offboard;
            }
        }
        self.snapshot.time_ms = self.now_ms;
        self.snapshot.velocity = Enu::default();
    }
}

/// The gate's rule for [`Command::FlyMission`]: approved when every leg left of the route it
/// holds passes unchanged; else denied with the first refused leg's findings (or
/// `gate.mission.leg_changed` for a leg it would clamp). Allocates nothing.
pub(super) fn judge_route(
    ctx: &GateContext,
    snapshot: &VehicleSnapshot,
    now_ms: u64,
    state: &mut GateState,
) -> Verdict {
    let Some(route) = ctx.route.as_ref() else {
        return Verdict::denied(Finding::deny(
            ids::MISSION_NONE,
            "no route is handed over: upload the mission first",
            0.0,
            0.0,
        ));
    };
    let on_ground = !snapshot.is_airborne();
    let left = route.legs_from(ctx.route_next, on_ground).count();
    let mut walk = RouteFlight::new(ctx, snapshot, now_ms);
    for (i, leg) in route.legs_from(ctx.route_next, on_ground).enumerate() {
        match walk.judge(&leg) {
            Verdict::Approved(_) => walk.fly(&leg),
            Verdict::Denied(findings) => return Verdict::Denied(findings),
            Verdict::Clamped { .. } => {
                return Verdict::denied(Finding::deny(
                    ids::MISSION_LEG_CHANGED,
                    "the gate would change a leg of the route, and the autopilot flies it as uploaded",
                    (i + 1) as f64,
                    left as f64,
                ));
            }
        }
    }
    // The first leg is the one that starts now: it spends the rate token a command would.
    let first = route
        .legs_from(ctx.route_next, on_ground)
        .next()
        .unwrap_or(Command::Hold);
    match evaluate(ctx, snapshot, &first, now_ms, state) {
        Verdict::Denied(findings) => Verdict::Denied(findings),
        _ => Verdict::Approved(super::approved::ApprovedCommand::new(
            Command::FlyMission,
            now_ms,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::airspace::Area;
    use crate::gate::testkit::*;

    fn route(points: &[[f64; 3]], end: RouteEnd) -> Route {
        Route {
            takeoff_m: points.first().map_or(20.0, |p| p[2]),
            points: points
                .iter()
                .enumerate()
                .map(|(i, p)| RoutePoint {
                    at: Enu::new(p[0], p[1], p[2]),
                    item: Some(i as u16 + 1),
                })
                .collect(),
            end,
        }
    }

    fn fly(ctx: &GateContext, snap: &VehicleSnapshot) -> Verdict {
        evaluate(
            ctx,
            snap,
            &Command::FlyMission,
            NOW,
            &mut GateState::default(),
        )
    }

    #[test]
    fn no_route_no_mission() {
        let ctx = open_field();
        let v = fly(&ctx, &hovering(0.0, 0.0, 30.0));
        assert_eq!(v.findings()[0].id, ids::MISSION_NONE);
    }

    #[test]
    fn a_route_whose_every_leg_passes_is_approved_from_the_ground_and_in_the_air() {
        let mut ctx = open_field();
        ctx.adopt_route(Some(route(
            &[[50.0, 0.0, 30.0], [50.0, 50.0, 30.0], [0.0, 50.0, 30.0]],
            RouteEnd::Return,
        )));
        let mut parked = on_ground(0.0, 0.0);
        parked.armed = true;
        assert!(
            fly(&ctx, &parked).approved().is_some(),
            "{:?}",
            fly(&ctx, &parked)
        );
        ctx.set_route_next(2);
        let v = fly(&ctx, &hovering(50.0, 40.0, 30.0));
        assert_eq!(
            v.approved().map(|a| *a.command()),
            Some(Command::FlyMission)
        );
    }

    #[test]
    fn a_leg_outside_the_fence_refuses_the_route_even_when_it_is_the_last() {
        let fence = Area::circle([0.0, 0.0], 100.0);
        let mut ctx = open_field().with_fence(&fence).unwrap();
        ctx.adopt_route(Some(route(
            &[[50.0, 0.0, 30.0], [0.0, 50.0, 30.0], [0.0, 150.0, 30.0]],
            RouteEnd::Return,
        )));
        let v = fly(&ctx, &hovering(0.0, 0.0, 30.0));
        assert!(v.approved().is_none());
        assert!(v.findings()[0].id.starts_with("gate.geofence"), "{v:?}");
        // Past the offending point, what is left passes.
        ctx.set_route_next(3);
        assert!(fly(&ctx, &hovering(0.0, 90.0, 30.0)).approved().is_some());
    }

    #[test]
    fn a_leg_the_gate_would_clamp_refuses_the_route() {
        let mut ctx = open_field();
        let top = ctx.limits().max_altitude_m;
        ctx.adopt_route(Some(route(
            &[[50.0, 0.0, 30.0], [50.0, 50.0, top + 20.0]],
            RouteEnd::Stay,
        )));
        let v = fly(&ctx, &hovering(0.0, 0.0, 30.0));
        let f = v.findings()[0];
        if ctx.limits().clamp_altitude {
            assert_eq!(f.id, ids::MISSION_LEG_CHANGED, "{v:?}");
            assert_eq!((f.limit, f.measured), (2.0, 2.0));
        } else {
            assert!(v.approved().is_none());
        }
    }

    #[test]
    fn a_route_too_long_for_the_battery_is_refused() {
        let mut ctx = open_field();
        let far: Vec<[f64; 3]> = (0..40)
            .map(|i| {
                let x = if i % 2 == 0 { 400.0 } else { -400.0 };
                [x, 0.0, 30.0]
            })
            .collect();
        ctx.adopt_route(Some(route(&far, RouteEnd::Return)));
        let v = fly(&ctx, &hovering(0.0, 0.0, 30.0));
        assert!(v.approved().is_none(), "{v:?}");
        assert!(v.findings()[0].id.starts_with("gate.energy"), "{v:?}");
    }
}
