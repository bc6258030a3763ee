//! The busy airspace of the gate's benchmark and no-allocation test: a 100-vertex concave
//! polygon fence, 20 no-fly cylinders (5 moving), 10 traffic tracks, a peer's plan and layered
//! wind. The `go_to` below passes every check, so `evaluate` runs all of them to the end.

#![allow(dead_code)] // each test binary uses part of it

use alpha3_core::airspace::Area;
use alpha3_core::command::Command;
use alpha3_core::config::{Limits, VehicleProfile};
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::gate::{
    GateContext, GateContextError, PeerPlan, PlanKnot, Track, Wind, WindLayer,
};
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};
use std::f64::consts::TAU;

pub const NOW: u64 = 600_000;

pub fn limits() -> Limits {
    Limits {
        min_altitude_m: 10.0,
        max_altitude_m: 120.0,
        return_altitude_m: 50.0,
        reserve_battery_pct: 20.0,
        hard_reserve_battery_pct: 10.0,
        min_separation_m: 25.0,
        position_uncertainty_m: 2.0,
        max_commands_per_s: 5.0,
        clamp_altitude: true,
    }
}

pub fn vehicle() -> VehicleProfile {
    VehicleProfile {
        name: "hex".into(),
        frame: "hexarotor".into(),
        mass_kg: 5.2,
        max_speed_mps: 18.0,
        cruise_speed_mps: 10.0,
        max_climb_mps: 4.0,
        max_descent_mps: 3.0,
        max_accel_mps2: 3.0,
        max_yaw_rate_dps: 90.0,
        battery_capacity_wh: 1200.0,
        hover_power_w: 176.8,
        drag_power_w_per_mps3: 0.15,
        manoeuvre_power_w_per_mps2: 40.0,
    }
}

/// A wavy ring: radius 1000 ± 60 m, five lobes, 100 vertices.
pub fn fence() -> Area {
    let points = (0..100)
        .map(|i| {
            let a = TAU * i as f64 / 100.0;
            let r = 1000.0 + 60.0 * (5.0 * a).sin();
            [r * a.cos(), r * a.sin()]
        })
        .collect();
    Area::polygon(points)
}

/// 20 cylinders on a ring west and south of the flight, every fourth one drifting.
pub fn zones() -> Vec<Area> {
    (0..20)
        .map(|i| {
            let a = (100.0 + 12.0 * i as f64).to_radians();
            let r = 350.0 + 15.0 * i as f64;
            let vel = (i % 4 == 0).then_some([1.5 * a.cos(), 0.8 * a.sin()]);
            Area::Cylinder {
                center: [r * a.cos(), r * a.sin()],
                radius_m: 20.0 + i as f64,
                floor_m: 0.0,
                ceiling_m: 90.0 + i as f64,
                vel_xy: vel,
                extra: Default::default(),
            }
        })
        .collect()
}

/// 10 tracks circling far out, flying tangentially.
pub fn traffic() -> Vec<Track> {
    (0..10)
        .map(|i| {
            let a = TAU * i as f64 / 10.0;
            Track {
                time_ms: NOW - 500,
                position: Enu::new(800.0 * a.cos(), 800.0 * a.sin(), 40.0 + 5.0 * i as f64),
                velocity: Enu::new(-12.0 * a.sin(), 12.0 * a.cos(), 0.0),
            }
        })
        .collect()
}

pub fn context() -> Result<GateContext, GateContextError> {
    let mut ctx = GateContext::new(limits(), vehicle())?
        .with_epoch_ms(NOW - 120_000)
        .with_fence(&fence())?
        .with_landing_site(Enu::new(-300.0, 0.0, 0.0))
        .with_wind(Wind::layered(
            vec![
                WindLayer {
                    alt_m: 0.0,
                    speed_mps: 4.0,
                    from_deg: 240.0,
                },
                WindLayer {
                    alt_m: 100.0,
                    speed_mps: 7.0,
                    from_deg: 250.0,
                },
            ],
            2.0,
        ))?;
    for z in zones() {
        ctx = ctx.with_no_fly(&z)?;
    }
    ctx.set_traffic(traffic())?;
    let knot = |dt: u64, x: f64, y: f64| PlanKnot {
        time_ms: NOW + dt,
        position: Enu::new(x, y, 60.0),
    };
    ctx.set_peer_plans(vec![PeerPlan {
        peer: "uav-2".into(),
        knots: vec![
            knot(0, -600.0, 600.0),
            knot(30_000, -500.0, 600.0),
            knot(60_000, -400.0, 500.0),
        ],
        radius_m: 0.0,
    }])?;
    Ok(ctx)
}

/// Airborne at (0, 0, 40) flying north-east at 5 m/s, 80 % battery.
pub fn snapshot() -> VehicleSnapshot {
    let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), NOW - 50);
    s.armed = true;
    s.landed = LandedState::InAir;
    s.position = Enu::new(0.0, 0.0, 40.0);
    s.velocity = Enu::new(3.0, 4.0, 0.0);
    s.battery.remaining_pct = 80.0;
    s
}

/// The benchmark's command: 360 m north-east, climbing 10 m.
pub fn set_waypoint() -> Command {
    Command::GoTo {
        target: Enu::new(300.0, 200.0, 50.0),
        speed_mps: Some(12.0),
    }
}
