//! The simulated autopilot in gusty wind: a return lands gently and flies the path the gate
//! plans (straight up over where it began, straight home at the return altitude), and a long
//! descent stays over its start. Found by the adversarial policies: a return landed at 2.2 m/s
//! in a downdraft (a crash with no fault), and legs drifted 12–17 m off their line.
#![allow(clippy::unwrap_used)]

mod common;

use alpha3_core::command::Command;
use alpha3_core::gate::autopilot;
use alpha3_sim::{World, WorldOptions};
use common::{base, patch, scenario};
use serde_json::json;

/// The hand-checked scenario in strong, gusty, turbulent wind; the airframe climbs at 6 m/s
/// (descends at 3).
fn gusty(seed: u64) -> World {
    let v = patch(
        base(),
        "/environment/weather",
        json!({ "wind_mps": 8.0, "wind_dir_deg": 250.0, "gust_mps": 6.0 }),
    );
    World::new(scenario(&v), WorldOptions::seeded(seed))
}

/// What a return did: the fastest sink in the last metre above the ground, the largest
/// horizontal distance from the climb's start while climbing, and the largest altitude error
/// on the way home.
struct Return {
    touchdown_sink_mps: f64,
    climb_drift_m: f64,
    cruise_altitude_error_m: f64,
    landed_from_home_m: f64,
}

/// Flies to (`x`, `y`, `z`), waits until `t_ms`, returns home and lands.
fn fly_return(seed: u64, to: [f64; 3], t_ms: u64) -> Return {
    let mut w = gusty(seed);
    let target = alpha3_core::frames::Enu::new(to[0], to[1], to[2]);
    w.execute_unchecked(&Command::GoTo {
        target,
        speed_mps: None,
    });
    w.advance_to_ms(t_ms);
    let start = w.truth().position;
    let z_home = autopilot::return_cruise_altitude_m(start[2], autopilot::RETURN_ALTITUDE_M);
    assert!(w.execute_unchecked(&Command::ReturnToHome).accepted);
    let home = w.launch_point();
    let mut out = Return {
        touchdown_sink_mps: 0.0,
        climb_drift_m: 0.0,
        cruise_altitude_error_m: 0.0,
        landed_from_home_m: 0.0,
    };
    let mut climbing = true;
    let end_ms = t_ms + 600_000;
    while w.truth().airborne && w.now_ms() < end_ms {
        w.step(w.dt());
        let t = w.truth();
        let p = t.position;
        let from_start = (p[0] - start[0]).hypot(p[1] - start[1]);
        let from_home = (p[0] - home[0]).hypot(p[1] - home[1]);
        climbing &= p[2] < z_home - 1.0;
        if climbing {
            out.climb_drift_m = out.climb_drift_m.max(from_start);
        } else if from_home > 10.0 {
            out.cruise_altitude_error_m = out.cruise_altitude_error_m.max((p[2] - z_home).abs());
        }
        if t.airborne && p[2] < 1.0 {
            out.touchdown_sink_mps = out.touchdown_sink_mps.max(-t.ground_velocity[2]);
        }
        out.landed_from_home_m = from_home;
    }
    assert!(!w.truth().airborne, "seed {seed}: still flying");
    assert!(
        w.violations().iter().all(|v| v.kind.as_str() != "crash"),
        "seed {seed}: {:?}",
        w.violations()
    );
    out
}

#[test]
fn a_return_in_gusts_lands_gently_on_the_path_the_gate_plans() {
    let mut worst = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for seed in 1..=8 {
        // Low (climbs to the return altitude), and high (returns at its own altitude); the
        // waits vary the turbulence met on the way down.
        for (to, t_ms) in [
            ([400.0, 300.0, 25.0], 60_000 + 7_000 * seed),
            ([300.0, 500.0, 110.0], 90_000 + 5_000 * seed),
        ] {
            let r = fly_return(seed, to, t_ms);
            worst.0 = worst.0.max(r.touchdown_sink_mps);
            worst.1 = worst.1.max(r.climb_drift_m);
            worst.2 = worst.2.max(r.cruise_altitude_error_m);
            worst.3 = worst.3.max(r.landed_from_home_m);
        }
    }
    let (sink, drift, alt_err, off_home) = worst;
    // The landing speed plus what turbulence leaves, well under the 2 m/s of a crash.
    assert!(
        sink <= autopilot::LAND_SPEED_MPS + 0.5,
        "touchdown at {sink:.2} m/s"
    );
    // Within the gate's position margins (2 m plus the leg's own tracking allowance).
    assert!(drift <= 4.0, "drifted {drift:.1} m off the climb");
    assert!(alt_err <= 4.0, "{alt_err:.1} m off the return altitude");
    assert!(off_home <= 5.0, "landed {off_home:.1} m from home");
}

#[test]
fn a_long_descent_in_gusts_stays_over_its_start() {
    for seed in 1..=6 {
        let mut w = gusty(seed);
        w.execute_unchecked(&Command::SetAltitude { altitude_m: 140.0 });
        w.advance_to_ms(60_000);
        let start = w.truth().position;
        w.execute_unchecked(&Command::SetAltitude { altitude_m: 15.0 });
        let mut worst = 0.0f64;
        for _ in 0..3_000 {
            w.step(w.dt());
            let p = w.truth().position;
            worst = worst.max((p[0] - start[0]).hypot(p[1] - start[1]));
        }
        assert!(
            (w.truth().position[2] - 15.0).abs() < 2.0,
            "{:?}",
            w.truth()
        );
        // 6 m/s gusts (the suite has at most 4) and the GNSS error: within 4 m.
        assert!(worst <= 4.0, "seed {seed}: {worst:.1} m off the vertical");
    }
}

/// Where a 500 m leg east-north-east puts the vehicle along it, every step, from the leg's
/// start at `t0_ms`.
fn progress_along_a_leg(mut w: World, t0_ms: u64) -> Vec<f64> {
    w.execute_unchecked(&Command::SetAltitude { altitude_m: 60.0 });
    w.advance_to_ms(t0_ms);
    let start = w.truth().position;
    let dir = [0.8, 0.6];
    let target =
        alpha3_core::frames::Enu::new(start[0] + 500.0 * dir[0], start[1] + 500.0 * dir[1], 60.0);
    assert!(
        w.execute_unchecked(&Command::GoTo {
            target,
            speed_mps: None
        })
        .accepted
    );
    let mut along = Vec::new();
    let steps = 60_000 / w.dt().as_millis().max(1);
    for _ in 0..steps {
        w.step(w.dt());
        let p = w.truth().position;
        along.push((p[0] - start[0]) * dir[0] + (p[1] - start[1]) * dir[1]);
    }
    along
}

#[test]
fn a_leg_in_gusts_keeps_the_timeline_of_the_same_leg_in_steady_wind() {
    // The gate checks traffic against where the leg puts the vehicle when; its margin for
    // the speed profile is a few metres. Turbulence that went straight into the ground speed
    // put the vehicle 7+ m off that timeline over a 17 s return (the 10k corpus, sc-0039).
    let steady = |seed| {
        let v = patch(
            base(),
            "/environment/weather",
            json!({ "wind_mps": 8.0, "wind_dir_deg": 250.0, "gust_mps": 0.0 }),
        );
        World::new(scenario(&v), WorldOptions::seeded(seed))
    };
    // The first 10 s (accelerating, when a gust competes with the leg for the tilt) may
    // leave a gap; after that, until it brakes, it must not grow: the velocity loop rejects
    // the gusts.
    let settle = (10_000 / gusty(1).dt().as_millis().max(1)) as usize;
    let mut worst = 0.0f64;
    for seed in 1..=8 {
        let t0 = 30_000 + 3_000 * seed;
        let calm = progress_along_a_leg(steady(seed), t0);
        let gusts = progress_along_a_leg(gusty(seed), t0);
        let gap: Vec<f64> = calm.iter().zip(&gusts).map(|(a, b)| a - b).collect();
        // Until the steady leg brakes (the gap closes on arrival).
        let cruise_end = calm.iter().position(|a| *a > 480.0).unwrap_or(calm.len());
        for g in &gap[settle..cruise_end] {
            worst = worst.max((g - gap[settle]).abs());
        }
    }
    // 6 m/s gusts (the suite has at most 4) and the GNSS error: within the gate's 2 m position
    // margin plus its allowance for the speed profile. (Gusts straight into the ground
    // velocity: 47 m.)
    assert!(
        worst <= 4.0,
        "the gap to the steady leg's timeline grew by {worst:.1} m"
    );
}
