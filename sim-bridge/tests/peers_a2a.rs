//! Peers answer A2A tasks: collision avoidance computes the real closest approach against the
//! peer's own plan and proposes a resolution that clears it; status, handover and swarm tasks
//! get answers; malformed payloads and non-cooperative traffic get typed errors.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_sim::peers::PeerError;
use common::{base, ideal_world, patch};
use serde_json::json;

fn with_head_on_traffic() -> alpha3_sim::World {
    // A UAV at (700, 100, 30) flying west at 10 m/s, straight at our spawn.
    let v = patch(
        base(),
        "/traffic",
        json!([
            { "type": "uav", "spawn": [700.0, 100.0, 30.0], "speed_mps": 10.0, "heading_deg": 270.0 },
            { "type": "helicopter", "spawn": [1500.0, 1500.0, 140.0], "speed_mps": 30.0, "heading_deg": 0.0 }
        ]),
    );
    ideal_world(&v)
}

#[test]
fn collision_avoidance_finds_the_closest_approach_and_a_resolution() {
    let mut w = with_head_on_traffic();
    // We plan east along y = 100 at 10 m/s: closing at 20 m/s from 600 m apart, they meet at
    // t = 30 s at x = 400.
    let payload = json!({ "pose": { "x": 100.0, "y": 100.0, "z": 30.0 },
        "planned_path": [{ "x": 700.0, "y": 100.0, "z": 30.0 }], "speed_mps": 10.0 });
    let r = w
        .a2a("collision_avoidance", Some("uav-1"), &payload)
        .unwrap();
    assert_eq!(r.from, "uav-1");
    let a: alpha3_core::protocol::tools::CollisionAvoidanceAnswer =
        serde_json::from_value(r.payload).unwrap();
    assert!(a.collision_risk);
    assert!(
        a.cpa_distance_m < 1.0 && (a.cpa_time_s - 30.0).abs() < 0.1,
        "{a:?}"
    );
    let resolution = a.resolution.unwrap();
    assert!(
        resolution.starts_with("climb 30 m (to 60 m)"),
        "{resolution}"
    );

    // Taking the advice clears it.
    let climbed = json!({ "pose": { "x": 100.0, "y": 100.0, "z": 60.0 },
        "planned_path": [{ "x": 700.0, "y": 100.0, "z": 60.0 }], "speed_mps": 10.0 });
    let r = w
        .a2a("collision_avoidance", Some("uav-1"), &climbed)
        .unwrap();
    assert_eq!(r.payload["collision_risk"], false);
    assert!((r.payload["cpa_distance_m"].as_f64().unwrap() - 30.0).abs() < 1e-9);
}

#[test]
fn the_coordinator_answers_for_everyone_and_helicopters_do_not_talk() {
    let mut w = with_head_on_traffic();
    let payload = json!({ "pose": { "x": 100.0, "y": 100.0, "z": 30.0 }, "planned_path": [] });
    let r = w
        .a2a("collision_avoidance", Some("uav_swarm_agent"), &payload)
        .unwrap();
    assert_eq!(r.from, "utm");
    let err = w
        .a2a(
            "status_update",
            Some("helicopter-1"),
            &json!({ "status": "ok" }),
        )
        .unwrap_err();
    assert_eq!(err, PeerError::NotCooperative("helicopter-1".into()));
    let err = w
        .a2a("collision_avoidance", None, &json!({ "pose": 3 }))
        .unwrap_err();
    assert!(matches!(err, PeerError::BadPayload { .. }), "{err}");
    assert!(matches!(
        w.a2a("dance", None, &json!({})),
        Err(PeerError::UnknownTask(_))
    ));
}

#[test]
fn status_handover_and_swarm_tasks_get_answers() {
    let mut w = with_head_on_traffic();
    let r = w
        .a2a(
            "status_update",
            Some("uav-1"),
            &json!({ "status": "inspecting", "battery_pct": 80.0 }),
        )
        .unwrap();
    assert_eq!(r.payload["ack"], true);
    let r = w
        .a2a(
            "handover",
            Some("uav-1"),
            &json!({ "task": "inspect pier 3" }),
        )
        .unwrap();
    assert!(r.payload["accepted"].is_boolean());
    assert!(r.payload["reason"].as_str().unwrap().contains("battery"));
    let r = w.a2a("handover", None, &json!({ "task": "x" })).unwrap();
    assert_eq!(r.payload["accepted"], false);
    let area =
        json!([{ "x": 0.0, "y": 0.0 }, { "x": 900.0, "y": 0.0 }, { "x": 900.0, "y": 500.0 }]);
    let r = w
        .a2a(
            "swarm_coordination",
            None,
            &json!({ "proposal": "area_split", "area": area }),
        )
        .unwrap();
    assert_eq!(r.payload["accepted"], true);
    assert!(
        r.payload["assignment"]
            .as_str()
            .unwrap()
            .contains("strip 1 of 2 (x 0–450 m)"),
        "{}",
        r.payload
    );
    let r = w
        .a2a(
            "swarm_coordination",
            Some("uav-1"),
            &json!({ "proposal": "deconflict" }),
        )
        .unwrap();
    assert!(
        r.payload["assignment"]
            .as_str()
            .unwrap()
            .contains("take 55 m"),
        "{}",
        r.payload
    );
    let r = w
        .a2a("swarm_coordination", None, &json!({ "proposal": "tango" }))
        .unwrap();
    assert_eq!(r.payload["accepted"], false);
}
