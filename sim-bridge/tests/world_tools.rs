//! The tool-facing side of the world: geofence checks, slice switches, sensors, telemetry and
//! the flight controller's own refusals.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_core::command::Command;
use alpha3_core::config::Config;
use alpha3_core::frames::Enu;
use alpha3_core::gate::GateContext;
use alpha3_core::link::Slice;
use alpha3_core::record::Event;
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_sim::World;
use common::{base, ideal_world, patch};
use serde_json::json;

/// The gate of `configs/alpha3.toml` (band 10–120 m, 2 m position uncertainty) over `v`.
fn gate(v: &serde_json::Value) -> GateContext {
    let text =
        std::fs::read_to_string(alpha3_test_support::root().join("configs/alpha3.toml")).unwrap();
    let config = Config::from_toml(&text).unwrap();
    let s = common::scenario(v);
    GateContext::from_scenario(&s, &config.limits.unwrap(), &config.vehicle.unwrap(), 0).unwrap()
}

#[test]
fn check_geofence_answers_with_the_gate_s_limits_and_margins() {
    let v = patch(
        base(),
        "/airspace/no_fly_zones",
        json!([{ "type": "cylinder", "center": [500.0, 500.0], "radius_m": 50, "floor_m": 0, "ceiling_m": 100 }]),
    );
    let w = ideal_world(&v);
    let g = gate(&v);
    let (snap, now) = (w.snapshot(), w.now_ms());
    let check = |x, y, z| World::check_geofence(&g, &snap, now, Enu::new(x, y, z));
    let inside = check(100.0, 300.0, 50.0);
    assert!(inside.inside && inside.findings.is_empty(), "{inside:?}");
    assert_eq!(
        inside.margin_m, 38.0,
        "38 m above the lowest target altitude (10 m band floor + 2 m)"
    );
    let zone = check(520.0, 500.0, 50.0);
    assert!(!zone.inside);
    assert_eq!(
        zone.margin_m, -32.0,
        "30 m inside the zone's edge, and 2 m of margin"
    );
    assert_eq!(zone.findings[0].id, "gate.no_fly.target_inside");
    assert!(
        check(520.0, 500.0, 110.0).inside,
        "above the zone's ceiling"
    );
    // The config's 120 m ceiling, not the scenario's 150 m.
    let high = check(100.0, 300.0, 121.0);
    assert!(!high.inside);
    assert_eq!(high.findings[0].id, "gate.altitude.out_of_band");
    // 1 m inside the fence is within the 2 m margin.
    let edge = check(1.0, 300.0, 50.0);
    assert!(!edge.inside);
    assert_eq!(edge.margin_m, -1.0);
    assert_eq!(check(-5.0, 300.0, 50.0).margin_m, -7.0);
}

#[test]
fn slice_switches_take_their_delay_through_the_world() {
    let mut w = ideal_world(&base());
    assert_eq!(w.link_sample().slice, Slice::Urllc);
    let r = w.switch_slice(Slice::Embb);
    assert_eq!(r.effective_after_ms, 50);
    w.advance_to_ms(40);
    assert_eq!(w.link_sample().slice, Slice::Urllc);
    w.advance_to_ms(60);
    assert_eq!(w.link_sample().slice, Slice::Embb);
}

#[test]
fn the_flight_controller_refuses_what_an_autopilot_refuses() {
    let v = patch(base(), "/spawn/xyz", json!([100.0, 100.0, 0.0]));
    let mut w = ideal_world(&v);
    let s = w.snapshot();
    assert_eq!((s.armed, s.landed), (false, LandedState::OnGround));
    assert!(
        !w.execute_unchecked(&Command::Takeoff { altitude_m: 30.0 })
            .accepted
    );
    assert!(
        !w.execute_unchecked(&Command::GoTo {
            target: Enu::new(200.0, 100.0, 30.0),
            speed_mps: None
        })
        .accepted
    );
    assert!(w.execute_unchecked(&Command::Arm).accepted);
    assert!(
        w.execute_unchecked(&Command::Takeoff { altitude_m: 30.0 })
            .accepted
    );
    w.advance_to_ms(1_000);
    assert_eq!(w.snapshot().mode, FlightMode::Takeoff);
    assert!(!w.execute_unchecked(&Command::Disarm).accepted);
    assert!(w.advance_until_settled(30_000));
    let t = w.truth();
    assert!((t.position[2] - 30.0).abs() < 1.0 && t.airborne);
    assert!(
        w.violations().is_empty(),
        "take-off at the launch point is exempt from the band"
    );
    match w.truth_event() {
        Event::Truth {
            airborne, armed, ..
        } => assert!(airborne && armed),
        other => panic!("{other:?}"),
    }
}

#[test]
fn offline_sensors_cannot_be_used() {
    let v = patch(
        base(),
        "/faults",
        json!([{ "t_s": 1.0, "type": "sensor_offline", "duration_s": 10, "sensor": "thermal_camera_lwir" }]),
    );
    let mut w = ideal_world(&v);
    assert!(w.activate_sensor("thermal").active);
    w.advance_to_ms(2_000);
    assert!(!w.activate_sensor("thermal_camera_lwir").active);
    assert_eq!(
        w.capture("thermal", alpha3_core::protocol::tools::CaptureKind::Image)
            .capture_id,
        None
    );
    w.advance_to_ms(12_000);
    assert!(
        w.capture("thermal", alpha3_core::protocol::tools::CaptureKind::Image)
            .capture_id
            .is_some()
    );
    assert!(!w.activate_sensor("sonar").active);
}

#[test]
fn the_briefing_states_the_reserve_as_an_operator_would() {
    // 100 × 0.28 is 28.000000000000004 and 100 × 0.29 is 28.999999999999996 in binary.
    for (fraction, said) in [(0.28, "Keep 28 % battery"), (0.29, "Keep 29 % battery")] {
        let v = patch(base(), "/uav/reserve_fraction", json!(fraction));
        let b = ideal_world(&v).briefing();
        assert!(b.contains(said), "{b}");
    }
}
