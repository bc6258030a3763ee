//! The whole mission checked before take-off: every leg as the agent would ask for it (arm,
//! take off, each waypoint in order, return home) through the gate itself, from the position,
//! clock and battery the gate's own model says the vehicle would have there — so moving zones
//! are checked at the times they would be flown, and energy to finish and return with the
//! reserve in the forecast wind. Each refusal names the plan item it stops.
//!
//! A leg the gate refuses only for what a way around cures (a static no-fly zone in the way) is
//! handed to the caller's planner — the agent's own — and, when it finds a way that the gate
//! approves leg by leg, flown that way and reported as a detour, not a failure.

use super::sources::AirspaceSources;
use crate::command::Command;
use crate::frames::Enu;
use crate::gate::{GateContext, Route, RouteEnd, RouteFlight, RoutePoint, Severity, Verdict, ids};
use crate::scenario::Scenario;
use crate::snapshot::VehicleSnapshot;
use serde::Serialize;

/// One finding of the check on one leg.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegFinding {
    /// The plan item the leg flies to (`seq` as the file numbers it); `None` for the legs the
    /// runtime adds (arming, take-off, the return).
    pub item: Option<u16>,
    /// `waypoint 2 (item 3)`, `take-off to 30 m`, `return home`.
    pub leg: String,
    /// The gate's finding id, e.g. `gate.geofence.outside`.
    pub id: &'static str,
    /// `deny`, `clamp`, `info`, or `detour` (refused straight, flown around: see `via`).
    pub severity: &'static str,
    pub reason: &'static str,
    pub limit: f64,
    pub measured: f64,
    /// The way around a `detour` took (local metres, ending at the leg's target).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<[f64; 3]>,
}

/// Finds a way around static zones: via points ending at `to`, from a vehicle in state
/// `now` at `from`, flown at scenario time `t_s` (the agent's planner).
pub type Detour<'a> =
    &'a dyn Fn(&VehicleSnapshot, [f64; 3], [f64; 3], f64) -> Option<Vec<[f64; 3]>>;

/// The answer for a whole mission.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissionCheck {
    /// Legs checked, arming and the return included.
    pub legs: usize,
    /// What the gate refused or changed, in flight order.
    pub findings: Vec<LegFinding>,
    /// The gate's predicted flight time and energy, and the battery left at home.
    pub duration_s: f64,
    pub energy_wh: f64,
    pub battery_at_end_pct: f64,
    /// The route as it would be handed over to the autopilot: each waypoint, with the ways
    /// around that the check found before it (and before the return), ending with the return.
    #[serde(skip)]
    pub route: Route,
}

impl MissionCheck {
    /// Whether every leg was approved (clamps allowed).
    pub fn passed(&self) -> bool {
        self.findings.iter().all(|f| f.severity != "deny")
    }
}

/// Checks `scenario`'s mission (as [`super::plan_scenario`] built it, `sources` naming the
/// items) with `ctx` from `start`, a vehicle on the ground at the spawn point; `detour` plans
/// ways around static zones.
pub fn check_mission(
    scenario: &Scenario,
    sources: &AirspaceSources,
    ctx: &GateContext,
    start: &VehicleSnapshot,
    detour: Detour<'_>,
) -> MissionCheck {
    let limits = ctx.limits();
    let band = |z: f64| z.clamp(limits.min_altitude_m, limits.max_altitude_m);
    let waypoints = &scenario.mission.waypoints;
    let first_z = waypoints.first().map_or(limits.min_altitude_m, |w| w[2]);
    let mut legs: Vec<(Option<u16>, String, Command)> = vec![
        (None, "arm".into(), Command::Arm),
        (
            None,
            format!("take-off to {:.0} m", band(first_z)),
            Command::Takeoff {
                altitude_m: band(first_z),
            },
        ),
    ];
    for (i, w) in waypoints.iter().enumerate() {
        let item = sources.waypoint_items.get(i).copied();
        let name = match item {
            Some(seq) => format!("waypoint {} (item {seq})", i + 1),
            None => format!("waypoint {}", i + 1),
        };
        legs.push((
            item,
            name,
            Command::GoTo {
                target: Enu::new(w[0], w[1], w[2]),
                speed_mps: None,
            },
        ));
    }
    legs.push((None, "return home".into(), Command::ReturnToHome));

    let mut fly = Walk {
        walk: RouteFlight::new(ctx, start, start.time_ms),
        epoch_ms: start.time_ms,
    };
    let mut findings = Vec::new();
    let mut route = Route {
        takeoff_m: band(first_z),
        points: Vec::new(),
        end: RouteEnd::Return,
    };
    for (item, leg, command) in &legs {
        let verdict = fly.judge(command);
        if let Verdict::Denied(found) = &verdict
            && found.iter().all(|f| ids::kind(f.id).detour_helps())
            && let Some(via) = fly.way_around(command, detour)
        {
            let n = via.len();
            for (i, p) in via.iter().enumerate() {
                let last_of_goto = i + 1 == n && matches!(command, Command::GoTo { .. });
                route.points.push(RoutePoint {
                    at: Enu::new(p[0], p[1], p[2]),
                    item: if last_of_goto { *item } else { None },
                });
            }
            let first = found[0];
            findings.push(LegFinding {
                item: *item,
                leg: leg.clone(),
                id: first.id,
                severity: "detour",
                reason: first.reason,
                limit: first.limit,
                measured: first.measured,
                via,
            });
            continue;
        }
        findings.extend(verdict.findings().iter().map(|f| LegFinding {
            item: *item,
            leg: leg.clone(),
            id: f.id,
            severity: match f.severity {
                Severity::Deny => "deny",
                Severity::Clamp => "clamp",
                Severity::Info => "info",
            },
            reason: f.reason,
            limit: f.limit,
            measured: f.measured,
            via: Vec::new(),
        }));
        if let Command::GoTo { target, .. } = command {
            route.points.push(RoutePoint {
                at: *target,
                item: *item,
            });
        }
        // Carry on as if the leg were flown, so every later leg is checked too.
        let flown = verdict.approved().map_or(*command, |a| *a.command());
        fly.fly(&flown);
    }
    MissionCheck {
        legs: legs.len(),
        findings,
        duration_s: fly.walk.duration_s,
        energy_wh: fly.walk.energy_wh,
        battery_at_end_pct: fly.walk.snapshot.battery.remaining_pct,
        route,
    }
}

/// The walk along the legs, and scenario time 0 (for the planner's moving zones).
struct Walk<'a> {
    walk: RouteFlight<'a>,
    epoch_ms: u64,
}

impl Walk<'_> {
    fn judge(&self, command: &Command) -> Verdict {
        self.walk.judge(command)
    }

    fn fly(&mut self, command: &Command) {
        self.walk.fly(command);
    }

    /// Flies `command` (a move, or the return) around the zones in its way when `detour`
    /// finds a way whose every leg the gate approves; the way, or `None` (nothing flown).
    fn way_around(&mut self, command: &Command, detour: Detour<'_>) -> Option<Vec<[f64; 3]>> {
        let ctx = self.walk_ctx();
        let here = self.walk.snapshot.position;
        let to = match *command {
            Command::GoTo { target, .. } => [target.x, target.y, target.z],
            Command::ReturnToHome => {
                let home = ctx.home();
                let z = ctx.limits().return_altitude_m.max(here.z);
                [home.x, home.y, z]
            }
            _ => return None,
        };
        let t_s = (self.walk.now_ms - self.epoch_ms) as f64 / 1000.0;
        let via = detour(&self.walk.snapshot, [here.x, here.y, here.z], to, t_s)?;
        let saved = self.walk.clone();
        for p in &via {
            let step = Command::GoTo {
                target: Enu::new(p[0], p[1], p[2]),
                speed_mps: None,
            };
            match self.judge(&step).approved() {
                Some(a) => self.fly(&a.command().clone()),
                None => {
                    self.walk = saved;
                    return None;
                }
            }
        }
        if *command == Command::ReturnToHome {
            match self.judge(command).approved() {
                Some(a) => self.fly(&a.command().clone()),
                None => {
                    self.walk = saved;
                    return None;
                }
            }
        }
        Some(via)
    }

    fn walk_ctx(&self) -> &GateContext {
        self.walk.context()
    }
}
