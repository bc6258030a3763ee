//! Physics against numbers worked out by hand: time to climb, energy of a hover, power at
//! cruise and in wind, drift in a steady wind without GNSS, time to cover a leg.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::FixType;
use alpha3_sim::World;
use common::{base, ideal_world, patch};
use serde_json::json;

/// Steps until `done` holds; returns the scenario time in seconds.
fn time_until(w: &mut World, limit_s: f64, done: impl Fn(&World) -> bool) -> f64 {
    while w.now_s() < limit_s {
        if done(w) {
            return w.now_s();
        }
        w.step(w.dt());
    }
    panic!("not done within {limit_s} s");
}

#[test]
fn climbing_60_m_takes_distance_over_rate_plus_rate_over_acceleration() {
    // Trapezoid: accelerate to 6 m/s at 4 m/s² (1.5 s, 4.5 m), cruise 51 m (8.5 s), brake
    // 1.5 s: 60/6 + 6/4 = 11.5 s to stop on 90 m; the last 0.1 m of braking takes
    // √(2 × 0.1 / 4) = 0.224 s, so it is within 0.1 m at 11.276 s.
    let mut w = ideal_world(&base());
    assert!(
        w.execute_unchecked(&Command::SetAltitude { altitude_m: 90.0 })
            .accepted
    );
    let t = time_until(&mut w, 30.0, |w| (w.truth().position[2] - 90.0).abs() < 0.1);
    let expected = 60.0 / 6.0 + 6.0 / 4.0 - (2.0 * 0.1 / 4.0f64).sqrt();
    assert!((t - expected).abs() < 0.1, "{t} vs {expected}");
    // It never climbs faster than the limit.
    assert!(w.truth().ground_velocity[2] <= 6.0 + 1e-9);
}

#[test]
fn a_minute_of_hover_uses_hover_power_times_sixty_seconds() {
    // 176.8 W × 60 s = 10,608 J = 2.946667 Wh of 1,200 Wh.
    let mut w = ideal_world(&base());
    w.advance_to_ms(60_000);
    let used = w.battery().capacity_wh() - w.battery().energy_wh();
    assert!((used - 176.8 * 60.0 / 3600.0).abs() < 1e-6, "{used}");
    let pct = w.snapshot().battery.remaining_pct;
    assert!(
        (pct - 100.0 * (1.0 - 2.946_666_67 / 1200.0)).abs() < 1e-6,
        "{pct}"
    );
}

#[test]
fn steady_cruise_draws_hover_plus_drag_times_speed_cubed() {
    // At a steady 10 m/s: 176.8 + 0.15 × 10³ = 326.8 W; an active 18 W camera adds 18 W.
    let mut w = ideal_world(&base());
    w.execute_unchecked(&Command::GoTo {
        target: Enu::new(1900.0, 100.0, 30.0),
        speed_mps: Some(10.0),
    });
    w.advance_to_ms(20_000);
    assert!(
        (w.battery().power_w() - 326.8).abs() < 1e-6,
        "{}",
        w.battery().power_w()
    );
    w.activate_sensor("thermal");
    w.advance_to_ms(21_000);
    assert!((w.battery().power_w() - 344.8).abs() < 1e-6);
}

#[test]
fn a_400_m_leg_takes_distance_over_speed_plus_speed_over_acceleration() {
    // a = g·tan 30° = 5.662 m/s²; 400/10 + 10/5.662 = 41.77 s.
    let mut w = ideal_world(&base());
    w.execute_unchecked(&Command::GoTo {
        target: Enu::new(500.0, 100.0, 30.0),
        speed_mps: Some(10.0),
    });
    let t = time_until(&mut w, 80.0, |w| {
        (w.truth().position[0] - 500.0).abs() < 0.1
    });
    let expected = 40.0 + 10.0 / (9.80665 * (30f64).to_radians().tan());
    assert!((t - expected).abs() < 0.6, "{t} vs {expected}");
    assert!(w.mission_report().waypoints_reached == 1);
}

#[test]
fn without_gnss_a_hovering_vehicle_drifts_with_a_steady_wind() {
    // 5 m/s from the west (270°), no gusts; GNSS jammed from the start. The autopilot holds
    // zero airspeed, so the ground track is the wind: 5 m/s × 20 s = 100 m east, and the
    // estimate does not notice.
    let v = patch(
        base(),
        "/environment/weather",
        json!({ "wind_mps": 5.0, "wind_dir_deg": 270.0, "gust_mps": 0.0 }),
    );
    let v = patch(
        v,
        "/faults",
        json!([{ "t_s": 0.0, "type": "gnss_jamming", "duration_s": 100.0, "severity": 1.0 }]),
    );
    let mut w = ideal_world(&v);
    w.execute_unchecked(&Command::Hold);
    w.advance_to_ms(20_000);
    let p = w.truth().position;
    assert!(
        (p[0] - 200.0).abs() < 1e-6 && (p[1] - 100.0).abs() < 1e-6,
        "{p:?}"
    );
    let s = w.snapshot();
    assert_eq!(s.gnss.fix, FixType::None);
    assert!(
        (s.position.x - 100.0).abs() < 1e-6,
        "the estimate stays put: {:?}",
        s.position
    );
}

#[test]
fn with_gnss_the_same_wind_is_held_against_at_a_drag_cost() {
    // Holding still in 5 m/s means flying 5 m/s through the air: 176.8 + 0.15 × 125 W.
    let v = patch(
        base(),
        "/environment/weather",
        json!({ "wind_mps": 5.0, "wind_dir_deg": 270.0, "gust_mps": 0.0 }),
    );
    let mut w = ideal_world(&v);
    w.execute_unchecked(&Command::Hold);
    w.advance_to_ms(20_000);
    let p = w.truth().position;
    assert!(
        (p[0] - 100.0).abs() < 0.01 && (p[1] - 100.0).abs() < 0.01,
        "{p:?}"
    );
    assert!((w.battery().power_w() - (176.8 + 0.15 * 125.0)).abs() < 1e-6);
}

#[test]
fn a_headwind_caps_ground_speed_at_airspeed_limit_minus_wind() {
    // Max airspeed 18 m/s into a 6 m/s headwind: 12 m/s over the ground.
    let v = patch(
        base(),
        "/environment/weather",
        json!({ "wind_mps": 6.0, "wind_dir_deg": 90.0, "gust_mps": 0.0 }),
    );
    let mut w = ideal_world(&v);
    w.execute_unchecked(&Command::GoTo {
        target: Enu::new(1900.0, 100.0, 30.0),
        speed_mps: Some(18.0),
    });
    w.advance_to_ms(30_000);
    assert!(
        (w.truth().ground_velocity[0] - 12.0).abs() < 1e-6,
        "{:?}",
        w.truth()
    );
}

#[test]
fn a_motor_failure_cuts_the_climb_rate_and_a_total_one_crashes() {
    // Severity 0.5: climb limit 6 × (1 − 0.8 × 0.5) = 3.6 m/s.
    let v = patch(
        base(),
        "/faults",
        json!([{ "t_s": 1.0, "type": "motor_failure", "duration_s": 0, "severity": 0.5 }]),
    );
    let mut w = ideal_world(&v);
    w.advance_to_ms(2_000);
    w.execute_unchecked(&Command::SetAltitude { altitude_m: 130.0 });
    w.advance_to_ms(12_000);
    assert!((w.truth().ground_velocity[2] - 3.6).abs() < 1e-9);
    let v = patch(
        base(),
        "/faults",
        json!([{ "t_s": 1.0, "type": "motor_failure", "duration_s": 0, "severity": 1.0 }]),
    );
    let mut w = ideal_world(&v);
    w.advance_to_ms(60_000);
    let r = w.mission_report();
    assert!(!w.truth().airborne);
    assert!(
        r.violations.iter().any(|v| v.kind.as_str() == "crash"),
        "{r:?}"
    );
    assert!(
        !w.execute_unchecked(&Command::Takeoff { altitude_m: 30.0 })
            .accepted
    );
}

#[test]
fn a_battery_sag_takes_its_share_at_once() {
    // Severity 0.4: 0.25 × 0.4 = 10 % of the capacity is gone at t = 5 s.
    let v = patch(
        base(),
        "/faults",
        json!([{ "t_s": 5.0, "type": "battery_sag", "severity": 0.4 }]),
    );
    let mut w = ideal_world(&v);
    w.advance_to_ms(4_980);
    let before = w.battery().fraction();
    w.advance_to_ms(5_000);
    assert!((before - w.battery().fraction() - 0.1).abs() < 1e-4);
}

#[test]
fn return_to_home_climbs_flies_home_and_lands_disarmed() {
    let mut w = ideal_world(&base());
    w.execute_unchecked(&Command::GoTo {
        target: Enu::new(300.0, 300.0, 40.0),
        speed_mps: None,
    });
    assert!(w.advance_until_settled(120_000));
    w.execute_unchecked(&Command::ReturnToHome);
    assert!(w.advance_until_settled(300_000));
    let t = w.truth();
    assert!(!t.airborne && !t.armed);
    assert!(
        (t.position[0] - 100.0).abs() < 1.5 && (t.position[1] - 100.0).abs() < 1.5,
        "{t:?}"
    );
    let r = w.mission_report();
    assert!(
        r.violations.is_empty(),
        "landing at the launch point is exempt: {:?}",
        r.violations
    );
}
