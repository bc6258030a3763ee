//! A plan as the scenario the runtime flies: the mission's positions as waypoints, the plan's
//! and the autopilot's inclusion areas intersected into the fence, every exclusion area a no-fly
//! zone, rally points as emergency landing sites, the band from the config narrowed by the
//! autopilot's limits, and the airframe from the config. The frame is centred on the
//! autopilot's home, so the plan's absolute positions land where the autopilot flies them.

use super::autopilot::AutopilotAirspace;
use super::clip::{intersect, same_area};
use super::error::PlanMissionError;
use super::sources::AirspaceSources;
use crate::airspace::Area;
use crate::config::{Limits, VehicleProfile};
use crate::frames::{Enu, Geo, LocalFrame};
use crate::mission_file::{
    AltitudeRef, Fence, Flight, GeoPoint, Handling, LatLon, MissionItem, report, report::handling,
};
use crate::scenario::{
    Airframe, BatteryModel, Environment, Landing, Mission, Rotorcraft, Scenario, ScenarioAirspace,
    SimSettings, Spawn, Weather, scenario_problems,
};
use serde_json::Map;

/// The mission type a plan flies as: no payload task is implied (the suite's kinds imply
/// captures at chosen waypoints; a plan's camera items are kept for the autopilot).
pub const PLAN_MISSION_KIND: &str = "waypoints";

/// A plan's parts, from a `.plan` or a `QGC WPL 110` mission with its fence and rally files.
#[derive(Debug, Clone, Copy)]
pub struct PlanParts<'a> {
    /// For the scenario's name (the file's stem).
    pub name: &'a str,
    /// The mission list, `seq` as in the file (home not counted).
    pub items: &'a [MissionItem],
    pub fence: &'a Fence,
    pub rally: &'a [GeoPoint],
}

/// Where the plan is flown: the autopilot's home (the frame's origin, AMSL altitude) and the
/// vehicle's position relative to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub home: Geo,
    pub vehicle: Enu,
}

/// A plan made flyable, with where each part came from.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedMission {
    pub scenario: Scenario,
    pub sources: AirspaceSources,
    /// The plan's last flown item is a return to launch: the vehicle is to be brought home and
    /// landed after its last waypoint, not left hovering there.
    pub ends_with_return: bool,
    /// The plan's last flown item is a landing (NAV_LAND): the vehicle lands where its last
    /// waypoint is (the landing's position, when it has one) after reaching it.
    pub ends_with_landing: bool,
}

/// Time a plan is given: its path at cruise speed three times over plus two minutes, capped at
/// the scenario limit.
fn time_budget_s(path_m: f64, cruise_mps: f64) -> f64 {
    (3.0 * path_m / cruise_mps.max(0.5) + 120.0).min(crate::scenario::limits::MAX_TIME_S)
}

/// Builds the scenario `plan` is flown as, in `at`'s frame, inside `autopilot`'s airspace.
pub fn plan_scenario(
    plan: &PlanParts<'_>,
    autopilot: &AutopilotAirspace,
    at: Placement,
    vehicle: &VehicleProfile,
    limits: &Limits,
) -> Result<PlannedMission, PlanMissionError> {
    let frame = LocalFrame::new(at.home);
    let mut sources = AirspaceSources {
        items: report(plan.items).iter().map(ToString::to_string).collect(),
        ..AirspaceSources::default()
    };
    let waypoints = waypoints(plan.items, &frame, at, limits, &mut sources)?;
    let geofence = inclusion(plan.fence, autopilot, &frame, &mut sources)?;
    let no_fly_zones = exclusions(plan.fence, autopilot, &frame, &mut sources);
    let mut emergency_sites = landing_sites(plan, autopilot, &frame, &mut sources);
    let last_flown = plan
        .items
        .iter()
        .rev()
        .find(|i| matches!(handling(i), Handling::Flown(_)));
    let ends_with_landing =
        last_flown.is_some_and(|i| handling(i) == Handling::Flown(Flight::Land));
    // The plan's own landing place is a place to land: where its last waypoint is.
    if ends_with_landing
        && let (Some(item), Some(w)) = (last_flown, waypoints.last())
        && !emergency_sites
            .iter()
            .any(|s| libm::hypot(s[0] - w[0], s[1] - w[1]) < 1.0)
    {
        emergency_sites.push([w[0], w[1], 0.0]);
        sources
            .landing_sites
            .push(format!("plan item {} (NAV_LAND)", item.seq));
    }
    let (min_m, max_m) = band(autopilot, limits, &mut sources);

    let mut path_m = 0.0;
    let mut last = [at.vehicle.x, at.vehicle.y, 0.0];
    for w in &waypoints {
        path_m += libm::hypot(w[0] - last[0], w[1] - last[1]) + (w[2] - last[2]).abs();
        last = *w;
    }
    path_m += libm::hypot(last[0] - at.vehicle.x, last[1] - at.vehicle.y) + last[2];
    let budget_s = time_budget_s(path_m, vehicle.cruise_speed_mps);
    let dt = 0.02;
    let scenario = Scenario {
        name: format!("plan:{}", plan.name),
        sim: SimSettings {
            dt,
            duration_steps: (budget_s / dt).ceil() as u64,
            policy_frequency: None,
            extra: Map::new(),
        },
        uav: Airframe {
            kind: vehicle.frame.clone(),
            mass_kg: vehicle.mass_kg,
            battery_wh: vehicle.battery_capacity_wh,
            max_speed_mps: vehicle.max_speed_mps,
            reserve_fraction: None,
            battery_model: Some(BatteryModel {
                hover_power_w: vehicle.hover_power_w,
                k_drag: vehicle.drag_power_w_per_mps3,
                k_manoeuvre: vehicle.manoeuvre_power_w_per_mps2,
                extra: Map::new(),
            }),
            rotorcraft: Some(Rotorcraft {
                rotor_count: None,
                max_climb_mps: Some(vehicle.max_climb_mps),
                hover_ceiling_m: None,
                extra: Map::new(),
            }),
            payloads: Vec::new(),
            extra: Map::new(),
        },
        environment: Environment {
            airspace: None,
            // No forecast is part of a plan: the gate flies in still air unless told otherwise.
            weather: Weather {
                wind_mps: 0.0,
                wind_dir_deg: 0.0,
                gust_mps: 0.0,
                extra: Map::new(),
            },
            wind_profile: Vec::new(),
            extra: Map::new(),
        },
        airspace: ScenarioAirspace {
            altitude_agl_min_m: min_m,
            altitude_agl_max_m: max_m,
            geofence: vec![geofence],
            no_fly_zones,
            no_fly_zones_dynamic: Vec::new(),
            extra: Map::new(),
        },
        spawn: Spawn {
            xyz: [at.vehicle.x, at.vehicle.y, 0.0],
            yaw_deg: 0.0,
            extra: Map::new(),
        },
        mission: Mission {
            kind: PLAN_MISSION_KIND.into(),
            waypoints,
            pattern: None,
            time_budget_s: budget_s,
            extra: Map::new(),
        },
        landing: (!emergency_sites.is_empty()).then(|| Landing {
            emergency_sites,
            extra: Map::new(),
        }),
        traffic: Vec::new(),
        faults: Vec::new(),
        comms: None,
        daa: None,
        extra: Map::new(),
    };
    let mut problems = scenario_problems(&scenario);
    if !problems.is_empty() {
        // A waypoint's problem is the plan item's: say which.
        for p in &mut problems {
            let seq = p
                .pointer
                .strip_prefix("/mission/waypoints/")
                .and_then(|rest| rest.split('/').next())
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| sources.waypoint_items.get(i));
            if let Some(seq) = seq {
                p.message = format!("plan item {seq}: {}", p.message);
            }
        }
        return Err(PlanMissionError::Unflyable { problems });
    }
    Ok(PlannedMission {
        scenario,
        sources,
        ends_with_return: last_flown
            .is_some_and(|i| handling(i) == Handling::Flown(Flight::ReturnToLaunch)),
        ends_with_landing,
    })
}

/// The positions the mission flies through, in order: waypoints and loiters where they are, a
/// take-off with a position at its place (one climbs over the vehicle when it names none), and
/// a return to launch as the point above home at the return altitude — so the way home, around
/// whatever is in it, is part of the mission. Refused items stop the plan; kept ones are
/// reported and skipped.
fn waypoints(
    items: &[MissionItem],
    frame: &LocalFrame,
    at: Placement,
    limits: &Limits,
    sources: &mut AirspaceSources,
) -> Result<Vec<[f64; 3]>, PlanMissionError> {
    let mut out = Vec::new();
    for item in items {
        let flight = match handling(item) {
            Handling::Flown(f) => f,
            Handling::Kept => continue,
            Handling::Refused(r) => {
                return Err(PlanMissionError::Item {
                    seq: item.seq,
                    what: format!("{r:?}: the plan must change before it is flown"),
                });
            }
        };
        if flight == Flight::ReturnToLaunch {
            out.push([0.0, 0.0, limits.return_altitude_m]);
            sources.waypoint_items.push(item.seq);
            continue;
        }
        if flight == Flight::Land {
            // A landing at a position: fly there at the altitude of the way in, and land at the
            // end (`PlannedMission::ends_with_landing`). One with no position lands where the
            // vehicle is.
            if let (Some(p), Some(prev)) = (position(item, frame, at), out.last().copied()) {
                out.push([p.x, p.y, prev[2]]);
                sources.waypoint_items.push(item.seq);
            }
            continue;
        }
        let Some(alt) = item.altitude() else { continue };
        let z = match alt.reference {
            AltitudeRef::AboveHome => f64::from(alt.metres),
            AltitudeRef::Amsl => f64::from(alt.metres) - at.home.alt_amsl_m,
            AltitudeRef::AboveTerrain => {
                return Err(PlanMissionError::Item {
                    seq: item.seq,
                    what: "an altitude above terrain needs terrain heights".into(),
                });
            }
        };
        if !z.is_finite() {
            return Err(PlanMissionError::Item {
                seq: item.seq,
                what: "no altitude".into(),
            });
        }
        let p = match (flight, position(item, frame, at)) {
            (_, Some(p)) => [p.x, p.y, z],
            // PX4 and ArduPilot take off over where the vehicle is when no position is given.
            (Flight::Takeoff, None) => {
                let prev = out
                    .last()
                    .copied()
                    .unwrap_or([at.vehicle.x, at.vehicle.y, 0.0]);
                [prev[0], prev[1], z]
            }
            _ => {
                return Err(PlanMissionError::Item {
                    seq: item.seq,
                    what: "a position of 0°, 0°".into(),
                });
            }
        };
        // A take-off straight up over the start adds nothing the agent must reach.
        if flight == Flight::Takeoff && libm::hypot(p[0] - at.vehicle.x, p[1] - at.vehicle.y) < 1.0
        {
            continue;
        }
        out.push(p);
        sources.waypoint_items.push(item.seq);
    }
    if out.is_empty() {
        return Err(PlanMissionError::NoWaypoint);
    }
    Ok(out)
}

/// Where `item` is in the mission's frame (at home's height); none when it names no position
/// (0°, 0°: the autopilots' "where the vehicle is").
fn position(item: &MissionItem, frame: &LocalFrame, at: Placement) -> Option<Enu> {
    item.lat_lon_deg()
        .filter(|(lat, lon)| !(*lat == 0.0 && *lon == 0.0))
        .map(|(lat, lon)| {
            frame.to_enu(Geo {
                lat_deg: lat,
                lon_deg: lon,
                alt_amsl_m: at.home.alt_amsl_m,
            })
        })
}

fn enu_of(frame: &LocalFrame, p: LatLon) -> [f64; 2] {
    let e = frame.to_enu(Geo {
        lat_deg: p.lat_deg,
        lon_deg: p.lon_deg,
        alt_amsl_m: frame.home().alt_amsl_m,
    });
    [e.x, e.y]
}

/// The areas of `fence` with `inclusion` as the flag says, in local metres, each named.
fn areas(fence: &Fence, inclusion: bool, frame: &LocalFrame, whose: &str) -> Vec<(Area, String)> {
    let polygons = fence
        .polygons
        .iter()
        .enumerate()
        .filter(|(_, p)| p.inclusion == inclusion)
        .map(|(i, p)| {
            let ring = p.vertices.iter().map(|v| enu_of(frame, *v)).collect();
            (Area::polygon(ring), format!("{whose} polygon {i}"))
        });
    let circles = fence
        .circles
        .iter()
        .enumerate()
        .filter(|(_, c)| c.inclusion == inclusion)
        .map(|(i, c)| {
            (
                Area::circle(enu_of(frame, c.center), c.radius_m),
                format!("{whose} circle {i} ({} m)", c.radius_m),
            )
        });
    polygons.chain(circles).collect()
}

/// Every inclusion area — the plan's, the autopilot's FENCE plan and its circle around home —
/// intersected into one.
fn inclusion(
    plan: &Fence,
    autopilot: &AutopilotAirspace,
    frame: &LocalFrame,
    sources: &mut AirspaceSources,
) -> Result<Area, PlanMissionError> {
    let mut all = areas(plan, true, frame, "plan fence inclusion");
    all.extend(areas(
        &autopilot.fence,
        true,
        frame,
        "autopilot FENCE plan inclusion",
    ));
    if let Some(c) = &autopilot.home_circle {
        all.push((Area::circle([0.0, 0.0], c.value), c.source.clone()));
    }
    let mut result: Option<Area> = None;
    for (area, name) in all {
        if let Some(p) = area.problem() {
            return Err(PlanMissionError::Fence(super::clip::ClipError::NotSimple(
                format!("{name}: {p}"),
            )));
        }
        sources.fence.push(name);
        result = Some(match result {
            None => area,
            Some(r) => intersect(&r, &area)?,
        });
    }
    result.ok_or(PlanMissionError::NoFence)
}

/// Every exclusion area of the plan and the autopilot, the same area counted once.
fn exclusions(
    plan: &Fence,
    autopilot: &AutopilotAirspace,
    frame: &LocalFrame,
    sources: &mut AirspaceSources,
) -> Vec<Area> {
    let mut out: Vec<Area> = Vec::new();
    let all = areas(plan, false, frame, "plan fence exclusion")
        .into_iter()
        .chain(areas(
            &autopilot.fence,
            false,
            frame,
            "autopilot FENCE plan exclusion",
        ));
    for (area, name) in all {
        match out.iter().position(|a| same_area(a, &area)) {
            Some(i) => {
                if let Some(s) = sources.no_fly.get_mut(i) {
                    s.push_str(" = ");
                    s.push_str(&name);
                }
            }
            None => {
                out.push(area);
                sources.no_fly.push(name);
            }
        }
    }
    out
}

/// Rally points (the plan's and the autopilot's) as emergency landing sites on the ground.
fn landing_sites(
    plan: &PlanParts<'_>,
    autopilot: &AutopilotAirspace,
    frame: &LocalFrame,
    sources: &mut AirspaceSources,
) -> Vec<[f64; 3]> {
    let mut out: Vec<[f64; 3]> = Vec::new();
    let named = plan
        .rally
        .iter()
        .enumerate()
        .map(|(i, p)| (p, format!("plan rally point {i}")))
        .chain(
            autopilot
                .rally
                .iter()
                .enumerate()
                .map(|(i, p)| (p, format!("autopilot RALLY plan point {i}"))),
        );
    for (p, name) in named {
        let [x, y] = enu_of(
            frame,
            LatLon {
                lat_deg: p.lat_deg,
                lon_deg: p.lon_deg,
            },
        );
        if out.iter().any(|s| libm::hypot(s[0] - x, s[1] - y) < 1.0) {
            continue;
        }
        out.push([x, y, 0.0]);
        sources.landing_sites.push(name);
    }
    out
}

/// The config's band narrowed by the autopilot's limits.
fn band(
    autopilot: &AutopilotAirspace,
    limits: &Limits,
    sources: &mut AirspaceSources,
) -> (f64, f64) {
    let max = match &autopilot.max_altitude {
        Some(l) if l.value < limits.max_altitude_m => {
            sources.max_altitude = l.source.clone();
            l.value
        }
        _ => {
            sources.max_altitude =
                format!("config limits.max_altitude_m = {}", limits.max_altitude_m);
            limits.max_altitude_m
        }
    };
    let min = match &autopilot.min_altitude {
        Some(l) if l.value > limits.min_altitude_m => {
            sources.min_altitude = l.source.clone();
            l.value
        }
        _ => {
            sources.min_altitude =
                format!("config limits.min_altitude_m = {}", limits.min_altitude_m);
            limits.min_altitude_m
        }
    };
    (min, max)
}
