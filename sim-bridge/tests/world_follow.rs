//! The world as a twin: telemetry of a vehicle it does not fly decides the mission's progress
//! and its violations.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_sim::World;
use common::{base, ideal_world};

/// Follows a straight track at `speed` m/s from `from` to `to`, 100 ms a tick, then `rest_s`
/// more seconds there.
fn follow_track(w: &mut World, from: [f64; 3], to: [f64; 3], speed: f64, rest_s: f64) {
    let d =
        ((to[0] - from[0]).powi(2) + (to[1] - from[1]).powi(2) + (to[2] - from[2]).powi(2)).sqrt();
    let v = [
        (to[0] - from[0]) / d * speed,
        (to[1] - from[1]) / d * speed,
        (to[2] - from[2]) / d * speed,
    ];
    let start_ms = w.now_ms();
    let flight_ms = (d / speed * 1000.0) as u64;
    let end_ms = start_ms + flight_ms + (rest_s * 1000.0) as u64;
    let mut t = start_ms;
    while t < end_ms {
        t += 100;
        w.advance_to_ms(t);
        let f = ((t - start_ms) as f64 / flight_ms as f64).min(1.0);
        let at = [
            from[0] + (to[0] - from[0]) * f,
            from[1] + (to[1] - from[1]) * f,
            from[2] + (to[2] - from[2]) * f,
        ];
        let vel = if f < 1.0 { v } else { [0.0; 3] };
        assert!(w.follow(at, vel));
    }
}

#[test]
fn a_waypoint_the_real_vehicle_reaches_counts_though_the_twin_never_flew_there() {
    // The twin holds at the spawn (it got no command); the real vehicle flies to the
    // waypoint 400 m east.
    let mut twin = ideal_world(&base());
    follow_track(
        &mut twin,
        [100.0, 100.0, 30.0],
        [500.0, 100.0, 30.0],
        10.0,
        5.0,
    );
    assert_eq!(twin.mission_report().waypoints_reached, 1);
    let at = twin.truth().position;
    assert!(
        (at[0] - 500.0).abs() < 1.0,
        "the twin is where the vehicle is: {at:?}"
    );
    // Without the telemetry it would not count.
    let mut alone = ideal_world(&base());
    alone.advance_to_ms(twin.now_ms());
    assert_eq!(alone.mission_report().waypoints_reached, 0);
}

#[test]
fn a_breach_by_the_real_vehicle_is_a_violation_of_the_twin() {
    let mut twin = ideal_world(&base());
    follow_track(
        &mut twin,
        [100.0, 100.0, 30.0],
        [100.0, -60.0, 30.0],
        10.0,
        1.0,
    );
    let kinds: Vec<String> = twin
        .violations()
        .iter()
        .map(|v| format!("{:?}", v.kind))
        .collect();
    assert!(
        kinds.iter().any(|k| k.to_lowercase().contains("geofence")),
        "{kinds:?}"
    );
}

#[test]
fn on_the_ground_or_with_garbage_the_twin_keeps_its_own_state() {
    let mut w = ideal_world(&common::patch(
        base(),
        "/spawn",
        serde_json::json!({ "xyz": [100.0, 100.0, 0.0], "yaw_deg": 90 }),
    ));
    assert!(!w.follow([300.0, 100.0, 20.0], [0.0; 3]), "on the ground");
    let mut air = ideal_world(&base());
    assert!(!air.follow([f64::NAN, 100.0, 30.0], [0.0; 3]));
    assert!(!air.follow([100.0, 100.0, 30.0], [f64::INFINITY, 0.0, 0.0]));
}

/// Real PX4 began a site's landing 0.7 m from the site while braking and touched down 4.4 m
/// past it; the twin, sent to land at the site, must count that descent as the landing there
/// (no altitude violation below the band's floor), though its samples never came within its
/// own 1 m arrival radius.
#[test]
fn a_real_vehicle_that_starts_down_near_its_landing_site_is_landing_there() {
    let scenario = common::patch(
        base(),
        "/landing",
        serde_json::json!({ "emergency_sites": [[400.0, 100.0, 0.0]] }),
    );
    let land = alpha3_core::command::Command::Land {
        site: Some([400.0, 100.0]),
    };
    let fly = |descend_at: [f64; 3]| {
        let mut twin = ideal_world(&scenario);
        assert!(twin.execute_unchecked(&land).accepted);
        // The transit passes 3 m north of the site, then the vehicle descends 4 m past it.
        follow_track(&mut twin, [100.0, 103.0, 30.0], descend_at, 8.0, 0.0);
        let below = [descend_at[0], descend_at[1], 2.0];
        follow_track(&mut twin, descend_at, below, 1.5, 0.0);
        twin.violations()
            .iter()
            .map(|v| format!("{:?}: {}", v.kind, v.detail))
            .collect::<Vec<_>>()
    };
    let at_the_site = fly([404.0, 103.0, 30.0]);
    assert!(at_the_site.is_empty(), "{at_the_site:?}");
    // Far from any site the same descent stays a violation of the band.
    let elsewhere = fly([300.0, 103.0, 30.0]);
    assert!(
        elsewhere.iter().any(|v| v.starts_with("Altitude")),
        "{elsewhere:?}"
    );
}
