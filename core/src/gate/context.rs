//! [`GateContext`]: everything the gate checks against besides the vehicle's own state. It is
//! built (and may allocate) once per scenario or configuration change; `evaluate` only reads it.

use super::geometry::V2;
use super::inputs::{PeerPlan, Track, Tuning, Wind, WindLayer};
use super::route::Route;
use super::shape::{Polygon, Shape};
use crate::airspace::Area;
use crate::config::{Limits, VehicleProfile};
use crate::frames::Enu;
use crate::scenario::Scenario;

/// Why a context could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateContextError {
    #[error("limits.{field}: {problem}")]
    Limits {
        field: &'static str,
        problem: &'static str,
    },
    #[error("vehicle.{field} must be positive and finite, is {value}")]
    Vehicle { field: &'static str, value: f64 },
    #[error("the altitude band [{min_m}, {max_m}] m is empty")]
    EmptyBand { min_m: f64, max_m: f64 },
    #[error("{kind} area {index}: {problem}")]
    Area {
        kind: &'static str,
        index: usize,
        problem: String,
    },
    #[error("traffic track {index}: position and velocity must be finite")]
    Track { index: usize },
    #[error("peer plan `{peer}`: {problem}")]
    PeerPlan { peer: String, problem: &'static str },
    #[error("{what}: {problem}")]
    Input {
        what: &'static str,
        problem: &'static str,
    },
}

/// A no-fly zone: a shape between a floor and a ceiling (±∞ when unbounded), drifting at
/// `velocity` (zero when static) from where it was at scenario time 0.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NoFlyZone {
    pub shape: Shape,
    pub floor_m: f64,
    pub ceiling_m: f64,
    pub velocity: V2,
}

impl NoFlyZone {
    pub fn is_moving(&self) -> bool {
        self.velocity != V2::zeros()
    }
}

/// What the gate checks against: policy limits, the airframe, the airspace, other aircraft,
/// peers' shared plans, the wind and the path-model tuning.
#[derive(Debug, Clone, PartialEq)]
pub struct GateContext {
    pub(crate) limits: Limits,
    pub(crate) vehicle: VehicleProfile,
    pub(crate) tuning: Tuning,
    pub(crate) home: Enu,
    pub(crate) landing_sites: Vec<V2>,
    pub(crate) fence: Vec<Shape>,
    pub(crate) no_fly: Vec<NoFlyZone>,
    pub(crate) traffic: Vec<Track>,
    pub(crate) peers: Vec<PeerPlan>,
    pub(crate) wind: Wind,
    /// Runtime clock (ms) at scenario time 0: moving zones are placed from it.
    pub(crate) epoch_ms: u64,
    /// The route handed over to the autopilot, which `fly_mission` is judged on.
    pub(crate) route: Option<Route>,
    /// The route point the autopilot flies to now (0: the first).
    pub(crate) route_next: usize,
}

impl GateContext {
    /// A context with no airspace, traffic or wind, home at the local origin.
    pub fn new(limits: Limits, vehicle: VehicleProfile) -> Result<Self, GateContextError> {
        check_limits(&limits)?;
        check_vehicle(&vehicle)?;
        Ok(Self {
            limits,
            vehicle,
            tuning: Tuning::default(),
            home: Enu::default(),
            landing_sites: Vec::new(),
            fence: Vec::new(),
            no_fly: Vec::new(),
            traffic: Vec::new(),
            peers: Vec::new(),
            wind: Wind::calm(),
            epoch_ms: 0,
            route: None,
            route_next: 0,
        })
    }

    /// Everything a UAVBench scenario says: its altitude band narrows the limits', its
    /// `reserve_fraction` and DAA separation raise them, its `max_speed_mps` caps the profile's;
    /// the geofence areas are inclusion areas, both no-fly lists exclusion areas; traffic, wind
    /// and emergency landing sites are taken as given. Home is the spawn point on the ground.
    /// `epoch_ms` is the runtime clock at scenario time 0. Energy uses the vehicle profile.
    pub fn from_scenario(
        scenario: &Scenario,
        limits: &Limits,
        vehicle: &VehicleProfile,
        epoch_ms: u64,
    ) -> Result<Self, GateContextError> {
        let air = &scenario.airspace;
        let mut limits = limits.clone();
        limits.min_altitude_m = limits.min_altitude_m.max(air.altitude_agl_min_m);
        limits.max_altitude_m = limits.max_altitude_m.min(air.altitude_agl_max_m);
        // The same rule the simulated autopilot applies to its band.
        limits.return_altitude_m = super::autopilot::return_altitude_in_band(
            limits.return_altitude_m,
            limits.min_altitude_m,
            limits.max_altitude_m,
        );
        if let Some(f) = scenario.uav.reserve_fraction {
            limits.reserve_battery_pct = limits.reserve_battery_pct.max(f * 100.0);
        }
        if let Some(daa) = &scenario.daa {
            limits.min_separation_m = limits.min_separation_m.max(daa.sep_threshold_m);
        }
        let mut vehicle = vehicle.clone();
        vehicle.max_speed_mps = vehicle.max_speed_mps.min(scenario.uav.max_speed_mps);
        vehicle.cruise_speed_mps = vehicle.cruise_speed_mps.min(vehicle.max_speed_mps);

        let spawn = scenario.spawn.xyz;
        let mut ctx = Self::new(limits, vehicle)?
            .with_home(Enu::new(spawn[0], spawn[1], 0.0))
            .with_epoch_ms(epoch_ms);
        for area in &air.geofence {
            ctx = ctx.with_fence(area)?;
        }
        for area in air.no_fly_zones.iter().chain(&air.no_fly_zones_dynamic) {
            ctx = ctx.with_no_fly(area)?;
        }
        if let Some(landing) = &scenario.landing {
            for s in &landing.emergency_sites {
                ctx = ctx.with_landing_site(Enu::new(s[0], s[1], s[2]));
            }
        }
        let env = &scenario.environment;
        let layers = if env.wind_profile.is_empty() {
            vec![WindLayer {
                alt_m: 0.0,
                speed_mps: env.weather.wind_mps,
                from_deg: env.weather.wind_dir_deg,
            }]
        } else {
            env.wind_profile
                .iter()
                .map(|l| WindLayer {
                    alt_m: l.alt_m,
                    speed_mps: l.wind_mps,
                    from_deg: l.dir_deg,
                })
                .collect()
        };
        ctx = ctx.with_wind(Wind::layered(layers, env.weather.gust_mps))?;
        let traffic = scenario.traffic.iter().map(|t| {
            let h = t.heading_deg.to_radians();
            Track {
                time_ms: epoch_ms,
                position: Enu::new(t.spawn[0], t.spawn[1], t.spawn[2]),
                velocity: Enu::new(t.speed_mps * libm::sin(h), t.speed_mps * libm::cos(h), 0.0),
            }
        });
        ctx.set_traffic(traffic.collect())?;
        Ok(ctx)
    }

    /// Takes the airspace of `scenario` — fence, no-fly zones, emergency landing sites and the
    /// limits its band narrows from `limits` — and keeps this context's vehicle, home, tuning,
    /// wind, traffic, peers and clock: the autopilot's own fence or rally points changed during
    /// the episode, and the gate must decide on the airspace that is real now.
    pub fn adopt_airspace(
        &mut self,
        scenario: &Scenario,
        limits: &Limits,
    ) -> Result<(), GateContextError> {
        let new = Self::from_scenario(scenario, limits, &self.vehicle, self.epoch_ms)?;
        self.limits = new.limits;
        self.fence = new.fence;
        self.no_fly = new.no_fly;
        self.landing_sites = new.landing_sites;
        Ok(())
    }

    /// The route handed over to the autopilot (uploaded as its mission), or `None` when there
    /// is none (or the autopilot's mission is no longer the one uploaded). Progress starts at
    /// its first point.
    pub fn adopt_route(&mut self, route: Option<Route>) {
        self.route = route;
        self.route_next = 0;
    }

    /// The autopilot flies to route point `next` now (as its current mission item says).
    pub fn set_route_next(&mut self, next: usize) {
        self.route_next = next;
    }

    pub fn route(&self) -> Option<&Route> {
        self.route.as_ref()
    }

    pub fn route_next(&self) -> usize {
        self.route_next
    }

    pub fn with_home(mut self, home: Enu) -> Self {
        self.home = home;
        self
    }

    pub fn with_epoch_ms(mut self, epoch_ms: u64) -> Self {
        self.epoch_ms = epoch_ms;
        self
    }

    pub fn with_tuning(mut self, tuning: Tuning) -> Result<Self, GateContextError> {
        if let Some(problem) = tuning.problem() {
            return Err(GateContextError::Input {
                what: "tuning",
                problem,
            });
        }
        self.tuning = tuning;
        Ok(self)
    }

    pub fn with_wind(mut self, wind: Wind) -> Result<Self, GateContextError> {
        if let Some(problem) = wind.problem() {
            return Err(GateContextError::Input {
                what: "wind",
                problem,
            });
        }
        self.wind = wind;
        Ok(self)
    }

    /// An authorised landing (and take-off) site besides home.
    pub fn with_landing_site(mut self, site: Enu) -> Self {
        self.landing_sites.push(V2::new(site.x, site.y));
        self
    }

    /// An inclusion area: the vehicle must stay inside at least one (horizontally; the altitude
    /// band is the limits'). A cylinder counts as its circle.
    pub fn with_fence(mut self, area: &Area) -> Result<Self, GateContextError> {
        let index = self.fence.len();
        let (shape, ..) = convert(area, "fence", index)?;
        self.fence.push(shape);
        Ok(self)
    }

    /// An exclusion area (UAVBench no-fly zone, PX4 exclusion polygon or circle): static, or
    /// moving when a cylinder has `vel_xy`. Polygons and circles are unbounded vertically.
    pub fn with_no_fly(mut self, area: &Area) -> Result<Self, GateContextError> {
        let index = self.no_fly.len();
        let (shape, floor_m, ceiling_m, velocity) = convert(area, "no-fly", index)?;
        self.no_fly.push(NoFlyZone {
            shape,
            floor_m,
            ceiling_m,
            velocity,
        });
        Ok(self)
    }

    /// Replaces the known traffic (the runtime calls this as detect-and-avoid updates).
    pub fn set_traffic(&mut self, tracks: Vec<Track>) -> Result<(), GateContextError> {
        if let Some(index) = tracks.iter().position(|t| !t.is_finite()) {
            return Err(GateContextError::Track { index });
        }
        self.traffic = tracks;
        Ok(())
    }

    /// Replaces the peers' shared plans (from A2A `collision_avoidance`).
    pub fn set_peer_plans(&mut self, plans: Vec<PeerPlan>) -> Result<(), GateContextError> {
        if let Some(p) = plans.iter().find(|p| p.problem().is_some()) {
            return Err(GateContextError::PeerPlan {
                peer: p.peer.clone(),
                problem: p.problem().unwrap_or_default(),
            });
        }
        self.peers = plans;
        Ok(())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Other aircraft's plans as last given ([`GateContext::set_peer_plans`]).
    pub fn peer_plans(&self) -> &[PeerPlan] {
        &self.peers
    }

    pub fn vehicle(&self) -> &VehicleProfile {
        &self.vehicle
    }

    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    pub fn home(&self) -> Enu {
        self.home
    }

    /// The authorised landing sites besides home (the scenario's emergency sites), x/y.
    pub fn landing_sites(&self) -> impl Iterator<Item = [f64; 2]> + '_ {
        self.landing_sites.iter().map(|s| [s.x, s.y])
    }

    /// Scenario time (s) at runtime time `now_ms`.
    pub(crate) fn scenario_s(&self, now_ms: u64) -> f64 {
        (now_ms as f64 - self.epoch_ms as f64) / 1000.0
    }
}

fn convert(
    area: &Area,
    kind: &'static str,
    index: usize,
) -> Result<(Shape, f64, f64, V2), GateContextError> {
    let bad = |problem: String| GateContextError::Area {
        kind,
        index,
        problem,
    };
    if let Some(problem) = area.problem() {
        return Err(bad(problem));
    }
    let finite2 = |p: &[f64; 2]| p[0].is_finite() && p[1].is_finite();
    let unbounded = (f64::NEG_INFINITY, f64::INFINITY);
    match area {
        Area::Polygon { points, .. } => {
            let poly = Polygon::new(points).ok_or_else(|| bad("invalid polygon".into()))?;
            Ok((Shape::Polygon(poly), unbounded.0, unbounded.1, V2::zeros()))
        }
        Area::Circle {
            center, radius_m, ..
        } if finite2(center) => Ok((
            circle(center, *radius_m),
            unbounded.0,
            unbounded.1,
            V2::zeros(),
        )),
        Area::Cylinder {
            center,
            radius_m,
            floor_m,
            ceiling_m,
            vel_xy,
            ..
        } if finite2(center) && floor_m.is_finite() && ceiling_m.is_finite() => {
            let v = vel_xy.unwrap_or([0.0, 0.0]);
            if !finite2(&v) {
                return Err(bad("vel_xy must be finite".into()));
            }
            Ok((
                circle(center, *radius_m),
                *floor_m,
                *ceiling_m,
                V2::new(v[0], v[1]),
            ))
        }
        _ => Err(bad("coordinates must be finite".into())),
    }
}

fn circle(center: &[f64; 2], radius_m: f64) -> Shape {
    Shape::Circle {
        center: V2::new(center[0], center[1]),
        radius_m,
    }
}

fn check_limits(l: &Limits) -> Result<(), GateContextError> {
    let err = |field, problem| Err(GateContextError::Limits { field, problem });
    let values = [
        ("min_altitude_m", l.min_altitude_m),
        ("max_altitude_m", l.max_altitude_m),
        ("return_altitude_m", l.return_altitude_m),
        ("reserve_battery_pct", l.reserve_battery_pct),
        ("hard_reserve_battery_pct", l.hard_reserve_battery_pct),
        ("min_separation_m", l.min_separation_m),
        ("position_uncertainty_m", l.position_uncertainty_m),
        ("max_commands_per_s", l.max_commands_per_s),
    ];
    for (field, v) in values {
        if !(v.is_finite() && v >= 0.0) {
            return err(field, "must be finite and non-negative");
        }
    }
    if l.min_altitude_m > l.max_altitude_m {
        return Err(GateContextError::EmptyBand {
            min_m: l.min_altitude_m,
            max_m: l.max_altitude_m,
        });
    }
    if !(l.min_altitude_m..=l.max_altitude_m).contains(&l.return_altitude_m) {
        return err("return_altitude_m", "must lie inside the altitude band");
    }
    if l.max_commands_per_s == 0.0 {
        return err("max_commands_per_s", "must be positive");
    }
    Ok(())
}

fn check_vehicle(v: &VehicleProfile) -> Result<(), GateContextError> {
    let positive = [
        ("max_speed_mps", v.max_speed_mps),
        ("cruise_speed_mps", v.cruise_speed_mps),
        ("max_climb_mps", v.max_climb_mps),
        ("max_descent_mps", v.max_descent_mps),
        ("max_accel_mps2", v.max_accel_mps2),
        ("battery_capacity_wh", v.battery_capacity_wh),
    ];
    let non_negative = [
        ("hover_power_w", v.hover_power_w),
        ("drag_power_w_per_mps3", v.drag_power_w_per_mps3),
        ("manoeuvre_power_w_per_mps2", v.manoeuvre_power_w_per_mps2),
    ];
    let bad = positive
        .into_iter()
        .find(|(_, x)| !(x.is_finite() && *x > 0.0));
    let bad = bad.or(non_negative
        .into_iter()
        .find(|(_, x)| !(x.is_finite() && *x >= 0.0)));
    match bad {
        Some((field, value)) => Err(GateContextError::Vehicle { field, value }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::{Verdict, ids};
    use super::*;
    use crate::command::Command;

    /// The parts of UAVBench's example scenario the gate reads.
    const SCENARIO: &str = r#"{
      "name": "harbor", "sim": {"dt": 0.02, "duration_steps": 1200},
      "uav": {"type": "hexacopter", "mass_kg": 5.2, "battery_Wh": 1200.0, "max_speed_mps": 12.0,
              "reserve_fraction": 0.3},
      "environment": {"weather": {"wind_mps": 6.2, "wind_dir_deg": 240, "gust_mps": 3.8},
                      "wind_profile": [{"alt_m": 0, "wind_mps": 6.2, "dir_deg": 240},
                                       {"alt_m": 100, "wind_mps": 7.8, "dir_deg": 250}]},
      "airspace": {"altitude_agl_min_m": 15, "altitude_agl_max_m": 150,
        "geofence": [{"type": "polygon", "points": [[0,0],[800,0],[800,600],[0,600]]}],
        "no_fly_zones": [{"type": "cylinder", "center": [400,300], "radius_m": 50,
                          "floor_m": 10, "ceiling_m": 150}],
        "no_fly_zones_dynamic": [{"type": "cylinder", "center": [200,150], "radius_m": 30,
                                  "floor_m": 15, "ceiling_m": 60, "vel_xy": [1.5, 0.8]}]},
      "spawn": {"xyz": [100.0, 100.0, 30.0], "yaw_deg": 90},
      "mission": {"type": "inspection", "waypoints": [[150,150,40]], "time_budget_s": 600},
      "landing": {"emergency_sites": [[700,500,0],[600,100,0]]},
      "traffic": [{"type": "uav", "spawn": [750,550,40], "speed_mps": 12.0, "heading_deg": 270}],
      "daa": {"sep_threshold_m": 25.0, "ttc_threshold_s": 8.0}
    }"#;

    #[test]
    fn from_scenario_takes_its_airspace_traffic_wind_and_sites() {
        let scenario: Scenario = serde_json::from_str(SCENARIO).unwrap();
        let ctx = GateContext::from_scenario(&scenario, &limits(), &vehicle(), NOW).unwrap();
        let l = ctx.limits();
        // Band [10, 120] ∩ [15, 150]; reserve 20 % raised to 30 %; separation 20 → 25 m.
        assert_eq!((l.min_altitude_m, l.max_altitude_m), (15.0, 120.0));
        assert_eq!((l.reserve_battery_pct, l.min_separation_m), (30.0, 25.0));
        assert_eq!(ctx.vehicle().max_speed_mps, 12.0);
        assert_eq!(ctx.home(), Enu::new(100.0, 100.0, 0.0));
        assert_eq!(
            (ctx.fence.len(), ctx.no_fly.len(), ctx.landing_sites.len()),
            (1, 2, 2)
        );
        assert!(ctx.no_fly[1].is_moving() && !ctx.no_fly[0].is_moving());
        let v = ctx.traffic[0].velocity;
        assert!((v.x + 12.0).abs() < 1e-9 && v.y.abs() < 1e-9, "{v:?}");
        assert!((ctx.wind.at(0.0).norm() - 6.2).abs() < 1e-9);

        // The first mission waypoint is fine; a point in the drifting zone's way is not.
        let snap = hovering(100.0, 100.0, 30.0);
        assert!(matches!(
            verdict(&ctx, &snap, go(150.0, 150.0, 40.0)),
            Verdict::Approved(_)
        ));
        assert_eq!(
            deny_ids(&ctx, &snap, go(230.0, 160.0, 40.0)),
            [ids::NO_FLY_MOVING_CONFLICT]
        );
        // Landing at an emergency site is authorised.
        let over_site = hovering(600.0, 100.0, 30.0);
        assert!(deny_ids(&ctx, &over_site, Command::Land { site: None }).is_empty());
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let two = Area::polygon(vec![[0.0, 0.0], [1.0, 0.0]]);
        assert!(matches!(
            open_field().with_fence(&two),
            Err(GateContextError::Area {
                kind: "fence",
                index: 0,
                ..
            })
        ));
        let inverted = Limits {
            min_altitude_m: 50.0,
            max_altitude_m: 40.0,
            ..limits()
        };
        assert!(matches!(
            GateContext::new(inverted, vehicle()),
            Err(GateContextError::EmptyBand { .. })
        ));
        let stalled = VehicleProfile {
            max_accel_mps2: 0.0,
            ..vehicle()
        };
        let err = GateContext::new(limits(), stalled).unwrap_err();
        assert_eq!(
            err.to_string(),
            "vehicle.max_accel_mps2 must be positive and finite, is 0"
        );
        let mut ctx = open_field();
        let lost = Track {
            time_ms: 0,
            position: Enu::new(f64::NAN, 0.0, 0.0),
            velocity: Enu::default(),
        };
        assert_eq!(
            ctx.set_traffic(vec![lost]),
            Err(GateContextError::Track { index: 0 })
        );
        let empty = PeerPlan {
            peer: "uav-2".into(),
            knots: vec![],
            radius_m: 0.0,
        };
        assert!(matches!(
            ctx.set_peer_plans(vec![empty]),
            Err(GateContextError::PeerPlan { .. })
        ));
    }
}
