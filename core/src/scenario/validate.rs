//! The rules a scenario must keep to be flown, beyond its schema: one function,
//! [`scenario_problems`], that `validate` reports and every loader of the runtime applies before
//! flying, so the two cannot disagree. Sizes come first (a list over its cap is reported without
//! looking into it), then the range of every number ([`super::ranges`]), then the rules across
//! fields: a non-empty containment, sound areas, a spawn inside the fence and the band, and the
//! spawn and waypoints out of the no-fly zones ([`super::zones`]).

use super::Scenario;
use super::limits::*;
use super::problems::{Problems, num};
use crate::airspace::Area;
use crate::episode::StructureProblem;
use serde_json::Value;

/// The problem with a scenario file of `bytes` bytes, if it is over [`MAX_SCENARIO_BYTES`]; ask
/// before reading or parsing it.
pub fn scenario_size_problem(bytes: u64) -> Option<StructureProblem> {
    (bytes > MAX_SCENARIO_BYTES).then(|| StructureProblem {
        pointer: String::new(),
        rule: "max_size",
        message: format!(
            "the file has {bytes} bytes, a scenario may have at most {MAX_SCENARIO_BYTES}"
        ),
    })
}

/// Every rule `scenario` breaks, with JSON pointers; empty when the runtime can fly it.
pub fn scenario_problems(s: &Scenario) -> Vec<StructureProblem> {
    let mut p = Problems::default();
    sizes(&mut p, s);
    if !p.0.is_empty() {
        return p.0;
    }
    super::ranges::check(&mut p, s);
    airspace(&mut p, s);
    spawn(&mut p, s);
    super::zones::check(&mut p, s);
    p.0
}

fn sizes(p: &mut Problems, s: &Scenario) {
    let a = &s.airspace;
    if s.mission.waypoints.is_empty() {
        p.push(
            "/mission/waypoints",
            "min_items",
            "a mission needs at least one waypoint".into(),
        );
    }
    p.max_items(
        "/mission/waypoints",
        s.mission.waypoints.len(),
        MAX_WAYPOINTS,
    );
    p.max_items("/airspace/geofence", a.geofence.len(), MAX_FENCE_AREAS);
    let zones = a.no_fly_zones.len() + a.no_fly_zones_dynamic.len();
    if zones > MAX_NO_FLY_ZONES {
        p.push(
            "/airspace/no_fly_zones",
            "max_items",
            format!(
                "{zones} no-fly zones (static and moving together), at most {MAX_NO_FLY_ZONES} \
                 are flown"
            ),
        );
    }
    for (field, areas) in [
        ("geofence", &a.geofence),
        ("no_fly_zones", &a.no_fly_zones),
        ("no_fly_zones_dynamic", &a.no_fly_zones_dynamic),
    ] {
        for (i, area) in areas.iter().enumerate() {
            if let Area::Polygon { points, .. } = area {
                let at = format!("/airspace/{field}/{i}/points");
                p.max_items(&at, points.len(), MAX_POLYGON_VERTICES);
            }
        }
    }
    p.max_items("/traffic", s.traffic.len(), MAX_TRAFFIC);
    p.max_items("/faults", s.faults.len(), MAX_LIST);
    p.max_items(
        "/environment/wind_profile",
        s.environment.wind_profile.len(),
        MAX_LIST,
    );
    p.max_items("/uav/payloads", s.uav.payloads.len(), MAX_LIST);
    if let Some(c) = &s.comms {
        p.max_items("/comms/loss_windows", c.loss_windows.len(), MAX_LIST);
    }
    if let Some(l) = &s.landing {
        p.max_items(
            "/landing/emergency_sites",
            l.emergency_sites.len(),
            MAX_LIST,
        );
    }
    if let Some(Value::Array(list)) = s.extra.get("moving_obstacles") {
        p.max_items("/moving_obstacles", list.len(), MAX_MOVING_OBSTACLES);
    }
    let swarm = s.extra.get("swarm");
    if let Some(n) = swarm.and_then(|w| w.get("size")).and_then(Value::as_u64)
        && n > MAX_SWARM_SIZE
    {
        p.push(
            "/swarm/size",
            "range",
            format!("{n} swarm members, at most {MAX_SWARM_SIZE} are flown"),
        );
    }
}

/// Containment and the soundness of every area.
fn airspace(p: &mut Problems, s: &Scenario) {
    let a = &s.airspace;
    if a.altitude_agl_min_m >= a.altitude_agl_max_m {
        p.push(
            "/airspace/altitude_agl_min_m",
            "altitude_band",
            format!(
                "altitude_agl_min_m ({}) must be below altitude_agl_max_m ({})",
                a.altitude_agl_min_m, a.altitude_agl_max_m
            ),
        );
    }
    if a.geofence.is_empty() {
        p.push(
            "/airspace/geofence",
            "containment",
            "no inclusion area: a scenario must bound the flight laterally with at least one \
             geofence area"
                .into(),
        );
    }
    for (field, areas) in [
        ("geofence", &a.geofence),
        ("no_fly_zones", &a.no_fly_zones),
        ("no_fly_zones_dynamic", &a.no_fly_zones_dynamic),
    ] {
        for (i, area) in areas.iter().enumerate() {
            if let Some(problem) = area.problem() {
                p.push(format!("/airspace/{field}/{i}"), "area", problem);
            }
        }
    }
}

/// The vehicle starts inside the fence, and on the ground or inside the band.
fn spawn(p: &mut Problems, s: &Scenario) {
    let a = &s.airspace;
    let [x, y, z] = s.spawn.xyz;
    let sound = |area: &Area| area.problem().is_none();
    let judged = !a.geofence.is_empty() && a.geofence.iter().all(sound);
    if judged && !a.geofence.iter().any(|f| f.contains_xy([x, y])) {
        p.push(
            "/spawn/xyz",
            "spawn_in_fence",
            format!(
                "the spawn point ({}, {}) is outside every geofence area",
                num(x),
                num(y)
            ),
        );
    }
    let (lo, hi) = (a.altitude_agl_min_m, a.altitude_agl_max_m);
    if z != 0.0 && !(lo..=hi).contains(&z) {
        p.push(
            "/spawn/xyz/2",
            "spawn_in_band",
            format!(
                "the spawn height {} m is neither on the ground (0) nor in the band [{lo}, {hi}]",
                num(z)
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shape of the shipped suite's scenarios, small.
    fn good() -> Value {
        json!({
            "name": "t",
            "sim": {"dt": 0.02, "duration_steps": 1200},
            "uav": {"type": "quadcopter", "mass_kg": 2.0, "battery_Wh": 100.0,
                    "max_speed_mps": 15.0, "reserve_fraction": 0.2},
            "environment": {"weather": {"wind_mps": 3.0, "wind_dir_deg": 90.0}},
            "airspace": {
                "altitude_agl_min_m": 10.0, "altitude_agl_max_m": 120.0,
                "geofence": [{"type": "polygon",
                              "points": [[0, 0], [800, 0], [800, 800], [0, 800]]}],
                "no_fly_zones": [{"type": "cylinder", "center": [400, 400], "radius_m": 40,
                                  "floor_m": 0, "ceiling_m": 120}]
            },
            "spawn": {"xyz": [100.0, 100.0, 30.0]},
            "mission": {"type": "inspection", "waypoints": [[300, 300, 40]],
                        "time_budget_s": 600},
            "traffic": [{"type": "uav", "spawn": [700, 700, 50], "speed_mps": 10,
                         "heading_deg": 270}]
        })
    }

    /// The problems of `good()` after `edit`.
    fn problems(edit: impl FnOnce(&mut Value)) -> Vec<StructureProblem> {
        let mut v = good();
        edit(&mut v);
        let s: Scenario = serde_json::from_value(v).unwrap();
        scenario_problems(&s)
    }

    /// The (pointer, rule) pairs of the problems of `good()` after `edit`.
    fn found(edit: impl FnOnce(&mut Value)) -> Vec<(String, &'static str)> {
        problems(edit)
            .into_iter()
            .map(|p| (p.pointer, p.rule))
            .collect()
    }

    fn one(pointer: &str, rule: &'static str) -> Vec<(String, &'static str)> {
        vec![(pointer.to_string(), rule)]
    }

    #[test]
    fn the_sample_is_sound() {
        assert_eq!(problems(|_| {}), vec![]);
    }

    #[test]
    fn absurd_numbers_are_refused_with_their_path() {
        let cases: [(&str, Value, &str, &str); 8] = [
            (
                "/mission/time_budget_s",
                json!(1e300),
                "/mission/time_budget_s",
                "range",
            ),
            (
                "/uav/max_speed_mps",
                json!(-5.0),
                "/uav/max_speed_mps",
                "positive",
            ),
            (
                "/airspace/altitude_agl_max_m",
                json!(1e9),
                "/airspace/altitude_agl_max_m",
                "range",
            ),
            ("/spawn/xyz/0", json!(1e308), "/spawn/xyz/0", "range"),
            ("/sim/dt", json!(1e-9), "/sim/dt", "range"),
            (
                "/traffic/0/speed_mps",
                json!(-1.0),
                "/traffic/0/speed_mps",
                "range",
            ),
            (
                "/mission/waypoints/0/2",
                json!(-3.0),
                "/mission/waypoints/0/2",
                "range",
            ),
            ("/uav/battery_Wh", json!(0.0), "/uav/battery_Wh", "positive"),
        ];
        for (at, value, pointer, rule) in cases {
            let f = found(|v| *v.pointer_mut(at).unwrap() = value.clone());
            assert!(
                f.contains(&(pointer.to_string(), rule)),
                "{at} = {value}: {f:?}"
            );
        }
    }

    #[test]
    fn a_huge_altitude_band_is_refused_at_both_ends() {
        let f = found(|v| {
            v["airspace"]["altitude_agl_min_m"] = json!(-1e9);
            v["airspace"]["altitude_agl_max_m"] = json!(1e9);
        });
        assert!(
            f.contains(&("/airspace/altitude_agl_min_m".into(), "range")),
            "{f:?}"
        );
        assert!(
            f.contains(&("/airspace/altitude_agl_max_m".into(), "range")),
            "{f:?}"
        );
    }

    #[test]
    fn degenerate_fences_and_zones_are_refused() {
        let bow = json!([[0, 0], [800, 800], [800, 0], [0, 600]]);
        assert_eq!(
            found(|v| v["airspace"]["geofence"][0]["points"] = bow),
            one("/airspace/geofence/0", "area")
        );
        let line = json!([[0, 0], [400, 0], [800, 0]]);
        let f = found(|v| v["airspace"]["geofence"][0]["points"] = line);
        assert!(
            f.contains(&("/airspace/geofence/0".into(), "area")),
            "{f:?}"
        );
        let two = json!([[0, 0], [800, 0]]);
        assert!(
            found(|v| v["airspace"]["no_fly_zones"][0] = json!({"type": "polygon", "points": two}))
                .contains(&("/airspace/no_fly_zones/0".into(), "area"))
        );
    }

    #[test]
    fn an_empty_containment_is_refused() {
        assert_eq!(
            found(|v| v["airspace"]["geofence"] = json!([])),
            one("/airspace/geofence", "containment")
        );
    }

    #[test]
    fn the_spawn_must_be_inside_the_fence_and_on_the_ground_or_in_the_band() {
        assert_eq!(
            found(|v| v["spawn"]["xyz"] = json!([900.0, 100.0, 30.0])),
            one("/spawn/xyz", "spawn_in_fence")
        );
        assert_eq!(
            found(|v| v["spawn"]["xyz"] = json!([100.0, 100.0, 5.0])),
            one("/spawn/xyz/2", "spawn_in_band")
        );
        assert_eq!(
            found(|v| v["spawn"]["xyz"] = json!([100.0, 100.0, 0.0])),
            vec![]
        );
        // A circle fence counts too.
        assert_eq!(
            found(|v| v["airspace"]["geofence"] =
                json!([{"type": "circle", "center": [0, 0], "radius_m": 200}])),
            vec![]
        );
    }

    #[test]
    fn a_spawn_or_waypoint_inside_a_no_fly_zone_is_refused() {
        // The sample's static zone: a cylinder at (400, 400), radius 40, from 0 to 120 m.
        assert_eq!(
            found(|v| v["spawn"]["xyz"] = json!([400.0, 410.0, 0.0])),
            one("/spawn/xyz", "spawn_in_no_fly")
        );
        assert_eq!(
            found(|v| v["mission"]["waypoints"] = json!([[300, 300, 40], [390, 400, 60]])),
            one("/mission/waypoints/1", "waypoint_in_no_fly")
        );
        // Above the cylinder's ceiling is outside it.
        assert_eq!(
            found(|v| {
                v["airspace"]["no_fly_zones"][0]["ceiling_m"] = json!(50);
                v["mission"]["waypoints"] = json!([[400, 400, 60]]);
            }),
            vec![]
        );
        // A moving zone is judged at the spawn only (it may have gone by the waypoint).
        let moving = json!([{"type": "cylinder", "center": [200, 200], "radius_m": 30,
                             "floor_m": 0, "ceiling_m": 120, "vel_xy": [1.0, 0.0]}]);
        assert_eq!(
            found(|v| {
                v["airspace"]["no_fly_zones_dynamic"] = moving.clone();
                v["mission"]["waypoints"] = json!([[200, 200, 40]]);
            }),
            vec![]
        );
        assert_eq!(
            found(|v| {
                v["airspace"]["no_fly_zones_dynamic"] = moving;
                v["spawn"]["xyz"] = json!([210.0, 200.0, 0.0]);
            }),
            one("/spawn/xyz", "spawn_in_no_fly")
        );
    }

    #[test]
    fn lists_over_their_cap_are_refused_before_anything_else() {
        let zones: Vec<Value> = (0..=MAX_NO_FLY_ZONES)
            .map(|i| json!({"type": "circle", "center": [i as f64, 0.0], "radius_m": -1.0}))
            .collect();
        // Only the size is reported: the broken radii are not looked at.
        assert_eq!(
            found(|v| v["airspace"]["no_fly_zones"] = json!(zones)),
            one("/airspace/no_fly_zones", "max_items")
        );
        let points: Vec<Value> = (0..=MAX_POLYGON_VERTICES)
            .map(|i| {
                let a = i as f64 / MAX_POLYGON_VERTICES as f64 * std::f64::consts::TAU;
                json!([400.0 + 300.0 * a.cos(), 400.0 + 300.0 * a.sin()])
            })
            .collect();
        assert_eq!(
            found(|v| v["airspace"]["geofence"][0]["points"] = json!(points)),
            one("/airspace/geofence/0/points", "max_items")
        );
        let wps: Vec<Value> = (0..=MAX_WAYPOINTS).map(|_| json!([300, 300, 40])).collect();
        assert_eq!(
            found(|v| v["mission"]["waypoints"] = json!(wps)),
            one("/mission/waypoints", "max_items")
        );
        assert_eq!(
            found(|v| v["mission"]["waypoints"] = json!([])),
            one("/mission/waypoints", "min_items")
        );
        let traffic: Vec<Value> = (0..=MAX_TRAFFIC)
            .map(|_| good()["traffic"][0].clone())
            .collect();
        assert_eq!(
            found(|v| v["traffic"] = json!(traffic)),
            one("/traffic", "max_items")
        );
        assert_eq!(
            found(|v| v["swarm"] = json!({"enabled": true, "size": 1_000_000_000u64})),
            one("/swarm/size", "range")
        );
    }

    #[test]
    fn huge_and_tiny_numbers_are_written_short() {
        assert_eq!(num(1e300), "1e300");
        assert_eq!(num(-1e9), "-1e9");
        assert_eq!(num(1e-9), "1e-9");
        assert_eq!(
            (num(120.0), num(0.0), num(-5.5)),
            ("120".into(), "0".into(), "-5.5".into())
        );
    }

    #[test]
    fn the_file_size_is_capped_before_parsing() {
        assert!(scenario_size_problem(MAX_SCENARIO_BYTES).is_none());
        let p = scenario_size_problem(50 << 20).unwrap();
        assert_eq!((p.pointer.as_str(), p.rule), ("", "max_size"));
    }
}
