//! A small hand-checkable scenario for tests: a hexacopter (the UAVBench example's airframe)
//! in a 2 km square, no wind, no zones, no faults, unless a test patches it.
#![allow(dead_code, clippy::unwrap_used)]

use alpha3_core::scenario::Scenario;
use alpha3_sim::scenario::parse_scenario;
use alpha3_sim::{World, WorldOptions};
use serde_json::{Value, json};

pub fn base() -> Value {
    json!({
        "name": "hand_checked",
        "sim": { "dt": 0.02, "duration_steps": 30000 },
        "uav": {
            "type": "hexacopter", "mass_kg": 5.2, "battery_Wh": 1200.0, "max_speed_mps": 18.0,
            "max_tilt_deg": 30, "reserve_fraction": 0.3,
            "battery_model": { "hover_power_W": 176.8, "k_drag": 0.15, "k_manoeuvre": 40 },
            "rotorcraft": { "rotor_count": 6, "max_climb_mps": 6.0 },
            "sensors": { "gnss": true, "imu": true, "camera_rgb": true },
            "payloads": [{ "id": "thermal_camera_lwir", "type": "thermal_camera_lwir", "power_W": 18 }]
        },
        "environment": { "weather": { "wind_mps": 0.0, "wind_dir_deg": 0.0, "gust_mps": 0.0 } },
        "airspace": {
            "altitude_agl_min_m": 10, "altitude_agl_max_m": 150,
            "geofence": [{ "type": "polygon", "points": [[0, 0], [2000, 0], [2000, 2000], [0, 2000]] }]
        },
        "spawn": { "xyz": [100.0, 100.0, 30.0], "yaw_deg": 90 },
        "mission": { "type": "inspection", "waypoints": [[500.0, 100.0, 30.0]], "time_budget_s": 600 }
    })
}

/// Sets `value` at the JSON pointer `path` (parents must exist).
pub fn patch(mut v: Value, path: &str, value: Value) -> Value {
    let (parent, key) = path.rsplit_once('/').unwrap();
    let target = if parent.is_empty() {
        &mut v
    } else {
        v.pointer_mut(parent).unwrap()
    };
    target
        .as_object_mut()
        .unwrap()
        .insert(key.to_string(), value);
    v
}

pub fn scenario(v: &Value) -> Scenario {
    parse_scenario(&v.to_string()).unwrap()
}

/// A world with perfect sensors (hand-computed cases).
pub fn ideal_world(v: &Value) -> World {
    World::new(
        scenario(v),
        WorldOptions {
            sensor_noise: false,
            ..WorldOptions::seeded(1)
        },
    )
}

/// The published UAVBench example, or `None` after `require_or_skip` (a failure in CI).
pub fn example_path() -> Option<std::path::PathBuf> {
    alpha3_test_support::shared_file("uavbench/example-scenario.json")
}
