//! The range of every number of a scenario the runtime reads ([`super::limits`] gives each
//! bound and why). JSON has no infinities, but it has 1e308: a spawn there, a band of ±1e9 or a
//! time budget of 1e300 parse fine and then overflow an allocation or a loop; they stop here.

use super::Scenario;
use super::limits::*;
use super::problems::Problems;
use crate::airspace::Area;
use serde_json::Value;

/// Checks every number's range, pushing a problem per number out of range.
pub(super) fn check(p: &mut Problems, s: &Scenario) {
    sim_and_uav(p, s);
    environment(p, s);
    airspace(p, s);
    positions(p, s);
    timeline(p, s);
    extras(p, s);
}

/// A horizontal position: each coordinate within [`MAX_EXTENT_M`] of the origin.
fn xy(p: &mut Problems, at: &str, v: &[f64]) {
    for (i, c) in v.iter().take(2).enumerate() {
        p.range(format!("{at}/{i}"), *c, -MAX_EXTENT_M, MAX_EXTENT_M);
    }
}

/// A position with a height above ground in `[0, MAX_ALTITUDE_M]`.
fn xyz(p: &mut Problems, at: &str, v: &[f64; 3]) {
    xy(p, at, v);
    p.range(format!("{at}/2"), v[2], 0.0, MAX_ALTITUDE_M);
}

fn angle(p: &mut Problems, at: impl Into<String>, v: f64) {
    p.range(at, v, -MAX_ANGLE_DEG, MAX_ANGLE_DEG);
}

fn sim_and_uav(p: &mut Problems, s: &Scenario) {
    p.range("/sim/dt", s.sim.dt, DT_RANGE_S.0, DT_RANGE_S.1);
    if let Some(f) = s.sim.policy_frequency {
        p.positive("/sim/policy_frequency", f, MAX_POLICY_HZ);
    }
    let u = &s.uav;
    p.positive("/uav/mass_kg", u.mass_kg, MAX_MASS_KG);
    p.positive("/uav/battery_Wh", u.battery_wh, MAX_BATTERY_WH);
    p.positive(
        "/uav/max_speed_mps",
        u.max_speed_mps,
        MAX_AIRFRAME_SPEED_MPS,
    );
    if let Some(r) = u.reserve_fraction
        && !(0.0..1.0).contains(&r)
    {
        p.push(
            "/uav/reserve_fraction",
            "fraction",
            format!("reserve_fraction must be in [0, 1), is {r}"),
        );
    }
    if let Some(b) = &u.battery_model {
        let at = "/uav/battery_model";
        p.positive(format!("{at}/hover_power_W"), b.hover_power_w, MAX_POWER_W);
        p.range(format!("{at}/k_drag"), b.k_drag, 0.0, MAX_POWER_W);
        p.range(format!("{at}/k_manoeuvre"), b.k_manoeuvre, 0.0, MAX_POWER_W);
    }
    if let Some(r) = &u.rotorcraft {
        if let Some(c) = r.max_climb_mps {
            p.positive("/uav/rotorcraft/max_climb_mps", c, MAX_AIRFRAME_SPEED_MPS);
        }
        if let Some(c) = r.hover_ceiling_m {
            p.positive("/uav/rotorcraft/hover_ceiling_m", c, MAX_ALTITUDE_M);
        }
    }
    for (i, payload) in u.payloads.iter().enumerate() {
        if let Some(w) = payload.get("power_W").and_then(Value::as_f64) {
            p.range(format!("/uav/payloads/{i}/power_W"), w, 0.0, MAX_POWER_W);
        }
    }
}

fn environment(p: &mut Problems, s: &Scenario) {
    let w = &s.environment.weather;
    p.range(
        "/environment/weather/wind_mps",
        w.wind_mps,
        0.0,
        MAX_WIND_MPS,
    );
    p.range(
        "/environment/weather/gust_mps",
        w.gust_mps,
        0.0,
        MAX_WIND_MPS,
    );
    angle(p, "/environment/weather/wind_dir_deg", w.wind_dir_deg);
    for (i, l) in s.environment.wind_profile.iter().enumerate() {
        let at = format!("/environment/wind_profile/{i}");
        p.range(format!("{at}/alt_m"), l.alt_m, 0.0, MAX_ALTITUDE_M);
        p.range(format!("{at}/wind_mps"), l.wind_mps, 0.0, MAX_WIND_MPS);
        angle(p, format!("{at}/dir_deg"), l.dir_deg);
    }
}

fn airspace(p: &mut Problems, s: &Scenario) {
    let a = &s.airspace;
    p.range(
        "/airspace/altitude_agl_min_m",
        a.altitude_agl_min_m,
        0.0,
        MAX_ALTITUDE_M,
    );
    p.range(
        "/airspace/altitude_agl_max_m",
        a.altitude_agl_max_m,
        0.0,
        MAX_ALTITUDE_M,
    );
    for (field, areas) in [
        ("geofence", &a.geofence),
        ("no_fly_zones", &a.no_fly_zones),
        ("no_fly_zones_dynamic", &a.no_fly_zones_dynamic),
    ] {
        for (i, area) in areas.iter().enumerate() {
            self::area(p, &format!("/airspace/{field}/{i}"), area);
        }
    }
}

/// An area's coordinates, radius, floor, ceiling and drift.
fn area(p: &mut Problems, at: &str, a: &Area) {
    match a {
        Area::Polygon { points, .. } => {
            for (j, q) in points.iter().enumerate() {
                xy(p, &format!("{at}/points/{j}"), q);
            }
        }
        Area::Circle {
            center, radius_m, ..
        } => {
            xy(p, &format!("{at}/center"), center);
            p.positive(format!("{at}/radius_m"), *radius_m, MAX_EXTENT_M);
        }
        Area::Cylinder {
            center,
            radius_m,
            floor_m,
            ceiling_m,
            vel_xy,
            ..
        } => {
            xy(p, &format!("{at}/center"), center);
            p.positive(format!("{at}/radius_m"), *radius_m, MAX_EXTENT_M);
            p.range(
                format!("{at}/floor_m"),
                *floor_m,
                -MAX_ALTITUDE_M,
                MAX_ALTITUDE_M,
            );
            p.range(
                format!("{at}/ceiling_m"),
                *ceiling_m,
                -MAX_ALTITUDE_M,
                MAX_ALTITUDE_M,
            );
            if let Some(v) = vel_xy {
                p.range(
                    format!("{at}/vel_xy"),
                    v[0].hypot(v[1]),
                    0.0,
                    MAX_OBJECT_SPEED_MPS,
                );
            }
        }
    }
}

fn positions(p: &mut Problems, s: &Scenario) {
    xyz(p, "/spawn/xyz", &s.spawn.xyz);
    angle(p, "/spawn/yaw_deg", s.spawn.yaw_deg);
    for (i, w) in s.mission.waypoints.iter().enumerate() {
        xyz(p, &format!("/mission/waypoints/{i}"), w);
    }
    if let Some(l) = &s.landing {
        for (i, site) in l.emergency_sites.iter().enumerate() {
            xyz(p, &format!("/landing/emergency_sites/{i}"), site);
        }
    }
    for (i, t) in s.traffic.iter().enumerate() {
        let at = format!("/traffic/{i}");
        xyz(p, &format!("{at}/spawn"), &t.spawn);
        p.range(
            format!("{at}/speed_mps"),
            t.speed_mps,
            0.0,
            MAX_OBJECT_SPEED_MPS,
        );
        angle(p, format!("{at}/heading_deg"), t.heading_deg);
    }
    if let Some(d) = &s.daa {
        p.positive("/daa/sep_threshold_m", d.sep_threshold_m, MAX_SEPARATION_M);
        p.positive("/daa/ttc_threshold_s", d.ttc_threshold_s, MAX_TTC_S);
    }
}

/// Times: the budget, faults and outages.
fn timeline(p: &mut Problems, s: &Scenario) {
    p.positive(
        "/mission/time_budget_s",
        s.mission.time_budget_s,
        MAX_TIME_S,
    );
    for (i, f) in s.faults.iter().enumerate() {
        let at = format!("/faults/{i}");
        p.range(format!("{at}/t_s"), f.t_s, 0.0, MAX_TIME_S);
        p.range(format!("{at}/duration_s"), f.duration_s, 0.0, MAX_TIME_S);
        p.range(format!("{at}/severity"), f.severity, 0.0, 1.0);
    }
    if let Some(c) = &s.comms {
        for (i, [a, b]) in c.loss_windows.iter().enumerate() {
            let at = format!("/comms/loss_windows/{i}");
            p.range(format!("{at}/0"), *a, 0.0, MAX_TIME_S);
            p.range(format!("{at}/1"), *b, 0.0, MAX_TIME_S);
            if a > b {
                p.push(
                    at,
                    "window",
                    format!("a loss window must start before it ends: [{a}, {b}]"),
                );
            }
        }
    }
}

/// Fields kept as untyped extras that the world reads: moving obstacles and the swarm.
fn extras(p: &mut Problems, s: &Scenario) {
    let num = |v: Option<&Value>, i: usize| v.and_then(|v| v.get(i)).and_then(Value::as_f64);
    if let Some(Value::Array(list)) = s.extra.get("moving_obstacles") {
        for (i, o) in list.iter().enumerate() {
            let at = format!("/moving_obstacles/{i}");
            let center = o.get("center");
            for k in 0..2 {
                if let Some(c) = num(center, k) {
                    p.range(format!("{at}/center/{k}"), c, -MAX_EXTENT_M, MAX_EXTENT_M);
                }
            }
            if let Some(z) = num(center, 2) {
                p.range(format!("{at}/center/2"), z, -MAX_ALTITUDE_M, MAX_ALTITUDE_M);
            }
            if let Some(r) = o.get("radius_m").and_then(Value::as_f64) {
                p.positive(format!("{at}/radius_m"), r, MAX_EXTENT_M);
            }
            let vel = o.get("vel");
            let speed = (0..3)
                .map(|k| num(vel, k).unwrap_or(0.0))
                .map(|c| c * c)
                .sum::<f64>()
                .sqrt();
            p.range(format!("{at}/vel"), speed, 0.0, MAX_OBJECT_SPEED_MPS);
        }
    }
    if let Some(sep) = s
        .extra
        .get("swarm")
        .and_then(|w| w.get("inter_uav_sep_min_m"))
        .and_then(Value::as_f64)
    {
        p.positive("/swarm/inter_uav_sep_min_m", sep, MAX_SEPARATION_M);
    }
}
