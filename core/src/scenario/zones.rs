//! Nothing the mission needs may lie inside a no-fly zone: the gate denies every target inside
//! one, so a scenario whose spawn or waypoint is in a zone cannot be flown safely, however it is
//! flown. A zone here is what the gate makes of it: a cylinder between its floor and ceiling,
//! a polygon or circle at every height. The spawn is judged against every zone where it is at
//! scenario time 0 (a moving one included: the vehicle would start inside it); a waypoint only
//! against the static zones, since a moving zone may have passed by the time it is reached.

use super::Scenario;
use super::problems::{Problems, num};
use crate::airspace::Area;

/// Whether `p` (x, y, height) is inside `zone` placed at scenario time 0.
fn inside(zone: &Area, p: [f64; 3]) -> bool {
    let within_height = match zone {
        Area::Cylinder {
            floor_m, ceiling_m, ..
        } => (*floor_m..=*ceiling_m).contains(&p[2]),
        Area::Polygon { .. } | Area::Circle { .. } => true,
    };
    within_height && zone.contains_xy([p[0], p[1]])
}

/// Whether `zone` stays where it is.
fn is_static(zone: &Area) -> bool {
    match zone {
        Area::Cylinder {
            vel_xy: Some(v), ..
        } => v[0] == 0.0 && v[1] == 0.0,
        _ => true,
    }
}

/// The spawn and every waypoint kept out of the no-fly zones. Only sound zones are judged (an
/// unsound one is reported as such already).
pub(super) fn check(p: &mut Problems, s: &Scenario) {
    let a = &s.airspace;
    let zones = a
        .no_fly_zones
        .iter()
        .enumerate()
        .map(|(i, z)| (format!("/airspace/no_fly_zones/{i}"), z))
        .chain(
            a.no_fly_zones_dynamic
                .iter()
                .enumerate()
                .map(|(i, z)| (format!("/airspace/no_fly_zones_dynamic/{i}"), z)),
        )
        .filter(|(_, z)| z.problem().is_none())
        .collect::<Vec<_>>();
    let spawn = s.spawn.xyz;
    if let Some((at, _)) = zones.iter().find(|(_, z)| inside(z, spawn)) {
        p.push(
            "/spawn/xyz",
            "spawn_in_no_fly",
            format!(
                "the spawn point ({}, {}, {}) is inside the no-fly zone {at}",
                num(spawn[0]),
                num(spawn[1]),
                num(spawn[2])
            ),
        );
    }
    for (i, w) in s.mission.waypoints.iter().enumerate() {
        let hit = zones.iter().find(|(_, z)| is_static(z) && inside(z, *w));
        if let Some((at, _)) = hit {
            p.push(
                format!("/mission/waypoints/{i}"),
                "waypoint_in_no_fly",
                format!(
                    "waypoint {i} ({}, {}, {}) is inside the no-fly zone {at}",
                    num(w[0]),
                    num(w[1]),
                    num(w[2])
                ),
            );
        }
    }
}
