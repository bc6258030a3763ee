//! Property test of the gate against an independent oracle.
//!
//! For random airspaces, vehicle states and commands: whatever the gate approves or clamps must
//! keep every limit anywhere along its path with the margins the gate states (`gate::plan`
//! module docs), as seen by this oracle, which samples the path densely in space and time
//! instead of solving it in closed form, and shares no code with the gate; and a clamped
//! command evaluated again must come back approved, unchanged.
//!
//! 2,000 cases by default; set `PROPTEST_CASES` for more. The dedicated run is
//! `PROPTEST_CASES=1000000 cargo test -p alpha3-core --release --test gate_oracle`.

use alpha3_core::airspace::Area;
use alpha3_core::command::Command;
use alpha3_core::config::{Limits, VehicleProfile};
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::gate::{
    GateContext, GateContextError, GateState, PeerPlan, PlanKnot, Track, Tuning, Verdict, Wind,
    WindLayer, autopilot, evaluate,
};
use alpha3_core::snapshot::{LandedState, VehicleSnapshot};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::cell::Cell;

const NOW: u64 = 1_000_000;
/// Slack in the gate's favour for rounding (metres, percent).
const TOL: f64 = 1e-6;

type P2 = [f64; 2];
type P3 = [f64; 3];

#[derive(Debug, Clone)]
enum Shape {
    Circle(P2, f64),
    Poly(Vec<P2>),
}

#[derive(Debug, Clone)]
struct Zone {
    shape: Shape,
    floor: f64,
    ceiling: f64,
    vel: P2,
}

#[derive(Debug, Clone)]
struct World {
    limits: Limits,
    vehicle: VehicleProfile,
    fence: Vec<Shape>,
    zones: Vec<Zone>,
    tracks: Vec<Track>,
    peer: Vec<PlanKnot>,
    /// (altitude, speed, from-direction) and the gust.
    wind: Vec<(f64, f64, f64)>,
    gust: f64,
    sites: Vec<P2>,
    epoch_ms: u64,
}

#[derive(Debug, Clone)]
struct Case {
    world: World,
    snap: VehicleSnapshot,
    command: Command,
}

// ---------------------------------------------------------------- geometry (oracle's own)

fn sub(a: P2, b: P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}
fn norm(a: P2) -> f64 {
    (a[0] * a[0] + a[1] * a[1]).sqrt()
}
fn dist3(a: P3, b: P3) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}
fn lerp3(a: P3, b: P3, f: f64) -> P3 {
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
    ]
}
fn xy(p: P3) -> P2 {
    [p[0], p[1]]
}

fn seg_dist(x: P2, a: P2, b: P2) -> f64 {
    let (ab, ax) = (sub(b, a), sub(x, a));
    let l2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if l2 > 0.0 {
        ((ax[0] * ab[0] + ax[1] * ab[1]) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    norm(sub(x, [a[0] + ab[0] * t, a[1] + ab[1] * t]))
}

/// Winding number (a different test from the gate's crossing count).
fn winding(x: P2, pts: &[P2]) -> i32 {
    let mut w = 0;
    for i in 0..pts.len() {
        let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
        let side = (b[0] - a[0]) * (x[1] - a[1]) - (x[0] - a[0]) * (b[1] - a[1]);
        if a[1] <= x[1] {
            if b[1] > x[1] && side > 0.0 {
                w += 1;
            }
        } else if b[1] <= x[1] && side < 0.0 {
            w -= 1;
        }
    }
    w
}

/// Signed distance to the boundary, positive inside.
fn inside_by(shape: &Shape, x: P2) -> f64 {
    match shape {
        Shape::Circle(c, r) => r - norm(sub(x, *c)),
        Shape::Poly(pts) => {
            let d = (0..pts.len())
                .map(|i| seg_dist(x, pts[i], pts[(i + 1) % pts.len()]))
                .fold(f64::INFINITY, f64::min);
            if winding(x, pts) != 0 { d } else { -d }
        }
    }
}

fn shifted(shape: &Shape, by: P2) -> Shape {
    match shape {
        Shape::Circle(c, r) => Shape::Circle([c[0] + by[0], c[1] + by[1]], *r),
        Shape::Poly(p) => Shape::Poly(p.iter().map(|q| [q[0] + by[0], q[1] + by[1]]).collect()),
    }
}

// ---------------------------------------------------------------- the stated path model

#[derive(Debug, Clone, Copy)]
struct Leg {
    from: P3,
    to: P3,
    exempt_below: bool,
    vel: P3,
    entry: P3,
    wait: f64,
    travel: f64,
    brake: f64,
    eps: f64,
}

struct Path {
    legs: Vec<Leg>,
    landed: bool,
    p0: P3,
    stop: P3,
    u: f64,
}

fn wind_at(w: &World, z: f64) -> P2 {
    let v = |&(_, s, from): &(f64, f64, f64)| {
        let r: f64 = f64::to_radians(from);
        [-s * r.sin(), -s * r.cos()]
    };
    let mut layers = w.wind.clone();
    layers.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(first) = layers.first() else {
        return [0.0, 0.0];
    };
    if z <= first.0 {
        return v(first);
    }
    for pair in layers.windows(2) {
        if z <= pair[1].0 {
            let f = (z - pair[0].0) / (pair[1].0 - pair[0].0);
            let (a, b) = (v(&pair[0]), v(&pair[1]));
            return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
        }
    }
    v(&layers[layers.len() - 1])
}

/// Largest ground speed along `d` (unit) with airspeed + gust ≤ max, by bisection.
fn best_ground_speed(w: &World, d: P2, z: f64) -> f64 {
    let wind = wind_at(w, z);
    let air = |g: f64| norm([g * d[0] - wind[0], g * d[1] - wind[1]]) + w.gust;
    let max = w.vehicle.max_speed_mps;
    let g0 = (d[0] * wind[0] + d[1] * wind[1]).max(0.0);
    if air(g0) > max {
        return 0.0;
    }
    let (mut lo, mut hi) = (g0, 1_000.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if air(mid) <= max { lo = mid } else { hi = mid }
    }
    lo
}

/// Worst along-track distance between a trapezoid starting at `v_a` and the wait-then-fly model.
fn start_error(v_a: f64, v_e: f64, a: f64, wait: f64) -> f64 {
    if v_a >= v_e {
        return (v_a - v_e).powi(2) / (2.0 * a);
    }
    let t1 = (v_e - v_a) / a;
    let end = t1.max(wait);
    (0..=2_000)
        .map(|i| {
            let t = end * i as f64 / 2_000.0;
            let real = if t <= t1 {
                v_a * t + 0.5 * a * t * t
            } else {
                v_e * (t - wait)
            };
            (real - (v_e * (t - wait)).max(0.0)).abs()
        })
        .fold(0.0, f64::max)
}

impl Path {
    fn new(w: &World, p0: P3, v0: P3, u: f64) -> Self {
        let a = w.vehicle.max_accel_mps2;
        let vh = norm(xy(v0));
        let stop = [
            p0[0] + v0[0] * vh / (2.0 * a),
            p0[1] + v0[1] * vh / (2.0 * a),
            p0[2] + v0[2] * v0[2].abs() / (2.0 * a),
        ];
        Self {
            legs: vec![],
            landed: false,
            p0,
            stop,
            u,
        }
    }

    fn at(&self) -> P3 {
        self.legs.last().map_or(self.p0, |l| l.to)
    }

    fn fly(&mut self, w: &World, to: P3, exempt_below: bool, asked: f64, v0: P3) {
        self.fly_descending_at_most(w, to, exempt_below, asked, w.vehicle.max_descent_mps, v0);
    }

    /// A leg whose descent rate is at most `descent_mps` (a landing's slow final part).
    fn fly_descending_at_most(
        &mut self,
        w: &World,
        to: P3,
        exempt_below: bool,
        asked: f64,
        descent_mps: f64,
        v0: P3,
    ) {
        let v = &w.vehicle;
        let a = v.max_accel_mps2;
        let from = self.at();
        let d = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
        let (l3, lh) = (dist3(from, to), norm(xy(d)));
        let mut ground = asked;
        if lh > 0.0 {
            let dir = [d[0] / lh, d[1] / lh];
            let mut zs = vec![from[2], to[2]];
            zs.extend(
                w.wind
                    .iter()
                    .map(|l| l.0)
                    .filter(|z| *z > from[2].min(to[2]) && *z < from[2].max(to[2])),
            );
            for z in zs {
                ground = ground.min(best_ground_speed(w, dir, z));
            }
        }
        let t_h = if lh > 0.0 { lh / ground } else { 0.0 };
        let rate = if d[2] > 0.0 {
            v.max_climb_mps
        } else {
            descent_mps.min(v.max_descent_mps)
        };
        let t_c = t_h.max(d[2].abs() / rate);
        let v_e = if l3 > 0.0 && t_c > 0.0 {
            (l3 / t_c).min((a * l3).sqrt())
        } else {
            0.0
        };
        let unit = if l3 > 0.0 {
            [d[0] / l3, d[1] / l3, d[2] / l3]
        } else {
            [0.0; 3]
        };
        let entry = if self.legs.is_empty() { v0 } else { [0.0; 3] };
        let v_a = entry[0] * unit[0] + entry[1] * unit[1] + entry[2] * unit[2];
        let wait = if v_e > 0.0 && v_a < v_e {
            (v_e - v_a).powi(2) / (2.0 * a * v_e)
        } else {
            0.0
        };
        let eps = if v_e > 0.0 {
            start_error(v_a, v_e, a, wait).max(v_e * v_e / (8.0 * a))
        } else {
            0.0
        };
        self.legs.push(Leg {
            from,
            to,
            exempt_below,
            vel: [unit[0] * v_e, unit[1] * v_e, unit[2] * v_e],
            entry,
            wait,
            travel: if v_e > 0.0 { l3 / v_e } else { 0.0 },
            brake: v_e / (2.0 * a),
            eps,
        });
    }

    fn home(&mut self, w: &World, v0: P3) {
        let at = self.at();
        let z = at[2].max(w.limits.return_altitude_m);
        let cruise = w.vehicle.cruise_speed_mps;
        if z != at[2] {
            self.fly(w, [at[0], at[1], z], false, cruise, v0);
        }
        self.fly(w, [0.0, 0.0, z], false, cruise, v0);
        self.land(w, 0.0, v0);
    }

    /// PX4's landing: the maximum descent rate down to `LAND_SLOW_BELOW_M` above the ground,
    /// then the landing speed. (One leg at the maximum rate would be shorter in time, with a
    /// larger along-track error, and so disagree with the autopilot near the ground.)
    fn land(&mut self, w: &World, ground: f64, v0: P3) {
        let cruise = w.vehicle.cruise_speed_mps;
        let at = self.at();
        let slow_from = ground + autopilot::LAND_SLOW_BELOW_M;
        if at[2] > slow_from {
            self.fly(w, [at[0], at[1], slow_from], true, cruise, v0);
        }
        let at = self.at();
        let slow = autopilot::land_speed_mps(w.vehicle.max_descent_mps);
        self.fly_descending_at_most(w, [at[0], at[1], ground], true, cruise, slow, v0);
        self.landed = true;
    }

    fn for_command(w: &World, s: &VehicleSnapshot, c: &Command) -> Self {
        let p0 = [s.position.x, s.position.y, s.position.z];
        let v0 = [s.velocity.x, s.velocity.y, s.velocity.z];
        let u = w.limits.position_uncertainty_m.max(2.0 * s.gnss.eph_m);
        let mut p = Path::new(w, p0, v0, u);
        let cruise = w.vehicle.cruise_speed_mps;
        match *c {
            Command::Takeoff { altitude_m } => {
                p.fly(w, [p0[0], p0[1], altitude_m], true, cruise, v0)
            }
            Command::GoTo { target, speed_mps } => p.fly(
                w,
                [target.x, target.y, target.z],
                false,
                speed_mps.unwrap_or(cruise),
                v0,
            ),
            Command::SetAltitude { altitude_m } => {
                p.fly(w, [p0[0], p0[1], altitude_m], false, cruise, v0)
            }
            Command::ReturnToHome => p.home(w, v0),
            Command::Land { site } => {
                if let Some([x, y]) = site {
                    p.fly(w, [x, y, p0[2]], false, cruise, v0);
                }
                p.land(w, 0.0, v0);
            }
            _ => {}
        }
        p
    }

    /// Position at time `t` on the model timeline, with that moment's (horizontal, vertical)
    /// margins; `None` past the end (hold included).
    fn timeline(&self, hold_s: f64) -> Vec<(f64, f64, P3, f64, f64)> {
        // (t0, t1, from→to start, margin_h, margin_v) segments, expanded later by sampling.
        let mut out = vec![];
        let mut t = 0.0;
        let d_h = norm(sub(xy(self.stop), xy(self.p0)));
        let d_v = (self.stop[2] - self.p0[2]).abs();
        for (i, l) in self.legs.iter().enumerate() {
            let (mh, mv) = if i == 0 {
                (self.u + d_h + l.eps, d_v + l.eps)
            } else {
                (self.u + l.eps, l.eps)
            };
            out.push((t, t + l.wait, l.from, mh, mv));
            t += l.wait;
            out.push((t, t + l.travel, l.from, mh, mv));
            t += l.travel;
            out.push((t, t + l.brake, l.to, mh, mv));
            t += l.brake;
        }
        if !self.landed
            && let Some(l) = self.legs.last()
        {
            let (th, tv) = if self.legs.len() == 1 {
                (d_h, d_v)
            } else {
                (0.0, 0.0)
            };
            out.push((t, t + hold_s, l.to, self.u + l.eps + th, l.eps + tv));
        }
        out
    }

    fn position(&self, t: f64) -> P3 {
        let mut t0 = 0.0;
        for l in &self.legs {
            if t < t0 + l.wait {
                return l.from;
            }
            t0 += l.wait;
            if t < t0 + l.travel {
                return lerp3(l.from, l.to, (t - t0) / l.travel);
            }
            t0 += l.travel + l.brake;
        }
        self.at()
    }

    /// Energy, Wh, integrated over the model timeline.
    fn energy_wh(&self, w: &World) -> f64 {
        let v = &w.vehicle;
        let power = |vel: P3, z: f64| {
            let wind = wind_at(w, z);
            let air = dist3(vel, [wind[0], wind[1], 0.0]) + w.gust;
            v.hover_power_w + v.drag_power_w_per_mps3 * air.powi(3)
        };
        let mut joules = 0.0;
        for l in &self.legs {
            joules += power([0.0; 3], l.from[2]) * l.wait + power([0.0; 3], l.to[2]) * l.brake;
            let n = 200;
            for i in 0..n {
                let z = l.from[2] + (l.to[2] - l.from[2]) * (i as f64 + 0.5) / n as f64;
                joules += power(l.vel, z) * l.travel / n as f64;
            }
            let dv = dist3(l.vel, l.entry) + dist3(l.vel, [0.0; 3]);
            joules += v.manoeuvre_power_w_per_mps2 * dv;
        }
        joules / 3600.0
    }
}

// ---------------------------------------------------------------- the oracle

fn zone_at(z: &Zone, t: f64, s0: f64) -> Shape {
    shifted(&z.shape, [z.vel[0] * (s0 + t), z.vel[1] * (s0 + t)])
}

/// Whether the disc of radius `r` around `p` overlaps the zone's shape within its altitudes
/// widened by `rv` (a negative `r`/`rv` asks for a clear overlap).
fn overlaps(shape: &Shape, z: &Zone, p: P3, r: f64, rv: f64) -> bool {
    p[2] >= z.floor - rv && p[2] <= z.ceiling + rv && inside_by(shape, xy(p)) > -r
}

/// Points of the path in space: the first leg's triangle P0, S, T (edges and a grid inside),
/// then the later legs; with the leg index.
fn spatial_samples(path: &Path) -> Vec<(usize, P3)> {
    let mut out = vec![];
    for (i, l) in path.legs.iter().enumerate() {
        let n = 300;
        for k in 0..=n {
            out.push((i, lerp3(l.from, l.to, k as f64 / n as f64)));
        }
        if i == 0 {
            let (p, s, t) = (path.p0, path.stop, l.to);
            for k in 0..=n {
                let f = k as f64 / n as f64;
                out.push((0, lerp3(p, s, f)));
                out.push((0, lerp3(s, t, f)));
            }
            let g = 24;
            for b in 0..=g {
                for c in 0..=(g - b) {
                    let (b, c) = (b as f64 / g as f64, c as f64 / g as f64);
                    let q = |k: usize| p[k] + b * (s[k] - p[k]) + c * (t[k] - p[k]);
                    out.push((0, [q(0), q(1), q(2)]));
                }
            }
        }
    }
    out
}

fn peer_at(knots: &[PlanKnot], t_ms: f64) -> P3 {
    let p = |k: &PlanKnot| [k.position.x, k.position.y, k.position.z];
    let first = &knots[0];
    if t_ms <= first.time_ms as f64 {
        return p(first);
    }
    for pair in knots.windows(2) {
        let (a, b) = (pair[0].time_ms as f64, pair[1].time_ms as f64);
        if t_ms <= b {
            return lerp3(p(&pair[0]), p(&pair[1]), (t_ms - a) / (b - a));
        }
    }
    p(&knots[knots.len() - 1])
}

fn sites(w: &World) -> Vec<P2> {
    let mut s = vec![[0.0, 0.0]];
    s.extend(&w.sites);
    s
}

fn near_site(w: &World, x: P2) -> bool {
    sites(w)
        .iter()
        .any(|s| norm(sub(x, *s)) <= Tuning::default().site_radius_m + TOL)
}

fn left_pct(w: &World, s: &VehicleSnapshot, wh: f64) -> f64 {
    let cap = w.vehicle.battery_capacity_wh;
    (s.battery.remaining_pct / 100.0 * cap - wh) / cap * 100.0
}

/// Every limit along the approved command's path, by sampling. `Err` names the first breach.
fn oracle(case: &Case, cmd: &Command) -> Result<(), String> {
    let (w, s) = (&case.world, &case.snap);
    let airborne = s.armed && s.landed != LandedState::OnGround;
    match cmd {
        Command::Takeoff { .. } if !s.armed || airborne => return Err("takeoff state".into()),
        Command::Takeoff { .. } if !near_site(w, xy([s.position.x, s.position.y, 0.0])) => {
            return Err("takeoff away from a site".into());
        }
        Command::GoTo { .. }
        | Command::SetAltitude { .. }
        | Command::ReturnToHome
        | Command::Land { .. }
            if !airborne =>
        {
            return Err("flight command on the ground".into());
        }
        Command::Disarm if airborne => return Err("disarm in the air".into()),
        _ => {}
    }
    let path = Path::for_command(w, s, cmd);
    if path.legs.is_empty() {
        return Ok(());
    }
    let (u, p0, end) = (path.u, path.p0, path.at());
    let (lo, hi) = (w.limits.min_altitude_m, w.limits.max_altitude_m);
    let samples = spatial_samples(&path);

    // Geofence: inside one area, margin u, except a vehicle coming back in.
    if !w.fence.is_empty() {
        let best = |x: P2| {
            w.fence
                .iter()
                .map(|f| inside_by(f, x))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        if best(xy(end)) < u - TOL {
            return Err(format!("target outside the fence by {}", u - best(xy(end))));
        }
        if best(xy(p0)) > u + TOL
            && let Some((i, q)) = samples.iter().find(|(_, q)| best(xy(*q)) < u - TOL)
        {
            return Err(format!("leg {i} leaves the fence at {q:?}"));
        }
    }
    // Altitude band.
    let first_to = path.legs[0].to[2];
    let ends_in = first_to >= lo - TOL && first_to <= hi + TOL;
    let (rec_low, rec_high) = (p0[2] < lo + TOL && ends_in, p0[2] > hi - TOL && ends_in);
    for (i, q) in &samples {
        let leg = &path.legs[*i];
        let low_ok = leg.exempt_below || (*i == 0 && rec_low) || q[2] >= lo - TOL;
        let high_ok = (*i == 0 && rec_high) || q[2] <= hi + TOL;
        if !(low_ok && high_ok) {
            return Err(format!("leg {i} leaves the band at z = {}", q[2]));
        }
    }
    // Static zones: margin u, except the one being left (checked at the target only).
    let s0 = (NOW as f64 - w.epoch_ms as f64) / 1000.0;
    for (k, z) in w
        .zones
        .iter()
        .enumerate()
        .filter(|(_, z)| z.vel == [0.0, 0.0])
    {
        if overlaps(&z.shape, z, end, u - TOL, -TOL) {
            return Err(format!("target in static zone {k}"));
        }
        if overlaps(&z.shape, z, p0, u + TOL, TOL) {
            continue;
        }
        if let Some((i, q)) = samples
            .iter()
            .find(|(_, q)| overlaps(&z.shape, z, *q, u - TOL, -TOL))
        {
            return Err(format!("leg {i} crosses static zone {k} at {q:?}"));
        }
    }
    // Time: moving zones, traffic, the peer, on the model timeline with its margins.
    let timeline = path.timeline(Tuning::default().hold_horizon_s);
    let times: Vec<(usize, f64, f64, f64)> = timeline
        .iter()
        .enumerate()
        .flat_map(|(j, &(t0, t1, _, mh, mv))| {
            (0..=200).map(move |k| (j, t0 + (t1 - t0) * k as f64 / 200.0, mh, mv))
        })
        .collect();
    let last = timeline.len() - 1;
    for (k, z) in w
        .zones
        .iter()
        .enumerate()
        .filter(|(_, z)| z.vel != [0.0, 0.0])
    {
        let leaving = overlaps(&zone_at(z, 0.0, s0), z, p0, u + TOL, TOL);
        for &(j, t, mh, mv) in times.iter().filter(|(j, ..)| !leaving || *j == last) {
            if overlaps(&zone_at(z, t, s0), z, path.position(t), mh - TOL, mv - TOL) {
                return Err(format!(
                    "moving zone {k} meets the vehicle at t = {t} (piece {j})"
                ));
            }
        }
    }
    let min_sep = w.limits.min_separation_m;
    let track_at = |tr: &Track, t: f64| {
        let dt = (NOW as f64 - tr.time_ms as f64) / 1000.0 + t;
        let (p, v) = (tr.position, tr.velocity);
        [p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt]
    };
    let others: Vec<Box<dyn Fn(f64) -> P3 + '_>> = w
        .tracks
        .iter()
        .map(|tr| Box::new(move |t| track_at(tr, t)) as Box<dyn Fn(f64) -> P3>)
        .chain((!w.peer.is_empty()).then(|| {
            Box::new(|t: f64| peer_at(&w.peer, NOW as f64 + t * 1000.0)) as Box<dyn Fn(f64) -> P3>
        }))
        .collect();
    for (k, other) in others.iter().enumerate() {
        let d0 = dist3(p0, other(0.0));
        let close = d0 < min_sep + u + TOL;
        for &(_, t, mh, mv) in &times {
            let d = dist3(path.position(t), other(t));
            if close && d < d0 - TOL {
                return Err(format!("closer to aircraft {k} at t = {t}: {d} < {d0}"));
            }
            if !close && d < min_sep + mh.hypot(mv) - TOL {
                return Err(format!("aircraft {k} at {d} m at t = {t}"));
            }
        }
    }
    // Energy.
    let used = path.energy_wh(w);
    match cmd {
        // Landing in place away from a site is the forced landing: its energy rule is the
        // gate's own estimate, which the oracle does not second-guess.
        Command::Land { site: None } => {}
        Command::Land { site: Some(site) } if !near_site(w, *site) => {
            return Err("landing away from a site".into());
        }
        _ if path.landed => {
            // Below the hard reserve a landing is still flown when it costs no more than what
            // refusing it leaves: holding until the next decision, then descending here.
            let v0 = [s.velocity.x, s.velocity.y, s.velocity.z];
            let mut here = Path::new(w, p0, v0, u);
            here.land(w, 0.0, v0);
            let otherwise = here.energy_wh(w)
                + w.vehicle.hover_power_w * Tuning::default().hold_horizon_s / 3600.0;
            if left_pct(w, s, used) < w.limits.hard_reserve_battery_pct - TOL
                && used > otherwise * (1.0 + 1e-3) + TOL
            {
                return Err(format!(
                    "ends below the hard reserve: {}, costing {used} Wh against {otherwise} Wh",
                    left_pct(w, s, used)
                ));
            }
        }
        _ => {
            let mut home = Path::new(w, end, [0.0; 3], u);
            home.home(w, [0.0; 3]);
            let left = left_pct(w, s, used + home.energy_wh(w));
            if left < w.limits.reserve_battery_pct - TOL {
                return Err(format!("reserve: {left} % left"));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- generators

fn star(
    center: P2,
    radius: std::ops::Range<f64>,
    n: std::ops::Range<usize>,
) -> impl Strategy<Value = Vec<P2>> {
    prop::collection::vec((radius, 0.0..0.9f64), n)
        .prop_map(move |v| {
            let n = v.len() as f64;
            v.iter()
                .enumerate()
                .map(|(i, (r, j))| {
                    let a = std::f64::consts::TAU * (i as f64 + j) / n;
                    [center[0] + r * a.cos(), center[1] + r * a.sin()]
                })
                .collect::<Vec<P2>>()
        })
        // The gate refuses configurations with (nearly) degenerate polygons; draw real areas.
        .prop_filter("polygon area under 10 m²", |p| shoelace_area(p) >= 10.0)
}

fn shoelace_area(p: &[P2]) -> f64 {
    let n = p.len();
    let twice: f64 = (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum();
    twice.abs() / 2.0
}

fn world_s() -> impl Strategy<Value = World> {
    let limits = (
        5.0..30.0f64,
        30.0..130.0f64,
        0.0..1.0f64,
        5.0..40.0f64,
        5.0..40.0f64,
        0.0..5.0f64,
        any::<bool>(),
    )
        .prop_map(|(lo, span, ret, reserve, sep, u, clamp)| Limits {
            min_altitude_m: lo,
            max_altitude_m: lo + span,
            return_altitude_m: lo + ret * span,
            reserve_battery_pct: reserve,
            hard_reserve_battery_pct: reserve / 2.0,
            min_separation_m: sep,
            position_uncertainty_m: u,
            max_commands_per_s: 100.0,
            clamp_altitude: clamp,
        });
    let vehicle = (
        (
            12.0..20.0f64,
            0.3..1.0f64,
            2.0..5.0f64,
            1.5..4.0f64,
            1.5..5.0f64,
        ),
        (
            100.0..1_000.0f64,
            100.0..400.0f64,
            0.0..0.3f64,
            0.0..50.0f64,
        ),
    )
        .prop_map(
            |((max, cruise, climb, descent, accel), (cap, hover, drag, man))| VehicleProfile {
                name: "oracle".into(),
                frame: "quadrotor".into(),
                mass_kg: 2.0,
                max_speed_mps: max,
                cruise_speed_mps: max * cruise,
                max_climb_mps: climb,
                max_descent_mps: descent,
                max_accel_mps2: accel,
                max_yaw_rate_dps: 90.0,
                battery_capacity_wh: cap,
                hover_power_w: hover,
                drag_power_w_per_mps3: drag,
                manoeuvre_power_w_per_mps2: man,
            },
        );
    let fence = prop_oneof![
        1 => Just(vec![]),
        3 => star([0.0, 0.0], 200.0..600.0, 3..12).prop_map(|p| vec![Shape::Poly(p)]),
        1 => (star([0.0, 0.0], 150.0..400.0, 3..8), -400.0..400.0f64, -400.0..400.0f64)
            .prop_flat_map(|(p, x, y)| (Just(p), 80.0..300.0f64)
                .prop_map(move |(p, r)| vec![Shape::Poly(p), Shape::Circle([x, y], r)])),
    ];
    let cylinder = (
        -300.0..300.0f64,
        -300.0..300.0f64,
        10.0..60.0f64,
        0.0..60.0f64,
        20.0..150.0f64,
    )
        .prop_flat_map(|(x, y, r, floor, h)| {
            let drift = (-8.0..8.0f64, -8.0..8.0f64).prop_map(|(a, b)| [a, b]);
            let vel = prop_oneof![3 => Just([0.0, 0.0]), 2 => drift];
            vel.prop_map(move |vel| Zone {
                shape: Shape::Circle([x, y], r),
                floor,
                ceiling: floor + h,
                vel,
            })
        });
    let polygon = (-300.0..300.0f64, -300.0..300.0f64).prop_flat_map(|(x, y)| {
        star([x, y], 10.0..60.0, 3..7).prop_map(|p| Zone {
            shape: Shape::Poly(p),
            floor: f64::NEG_INFINITY,
            ceiling: f64::INFINITY,
            vel: [0.0, 0.0],
        })
    });
    let zones = prop::collection::vec(prop_oneof![3 => cylinder, 1 => polygon], 0..6);
    let tracks = prop::collection::vec(
        (
            (-600.0..600.0f64, -600.0..600.0f64, 0.0..120.0f64),
            (-15.0..15.0f64, -15.0..15.0f64, -2.0..2.0f64),
            0u64..5_000,
        ),
        0..4,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|((x, y, z), (vx, vy, vz), age)| Track {
                time_ms: NOW - age,
                position: Enu::new(x, y, z),
                velocity: Enu::new(vx, vy, vz),
            })
            .collect::<Vec<_>>()
    });
    let peer = prop::collection::vec(
        (
            1u64..20_000,
            -500.0..500.0f64,
            -500.0..500.0f64,
            0.0..120.0f64,
        ),
        0..4,
    )
    .prop_map(|v| {
        let mut t = NOW - 10_000;
        v.into_iter()
            .map(|(dt, x, y, z)| {
                t += dt;
                PlanKnot {
                    time_ms: t,
                    position: Enu::new(x, y, z),
                }
            })
            .collect::<Vec<_>>()
    });
    let wind = (
        prop::collection::vec((0.0..150.0f64, 0.0..10.0f64, 0.0..360.0f64), 0..3),
        0.0..3.0f64,
    );
    let sites = prop::collection::vec(
        (-400.0..400.0f64, -400.0..400.0f64).prop_map(|(x, y)| [x, y]),
        0..3,
    );
    (
        limits,
        vehicle,
        fence,
        zones,
        tracks,
        peer,
        wind,
        sites,
        0u64..300_000,
    )
        .prop_map(
            |(limits, vehicle, fence, zones, tracks, peer, (wind, gust), sites, epoch)| World {
                limits,
                vehicle,
                fence,
                zones,
                tracks,
                peer,
                wind,
                gust,
                sites,
                epoch_ms: NOW - epoch,
            },
        )
}

fn snapshot_s() -> impl Strategy<Value = VehicleSnapshot> {
    let velocity = prop_oneof![
        1 => Just([0.0; 3]),
        1 => (-12.0..12.0f64, -12.0..12.0f64, -6.0..6.0f64).prop_map(|(x, y, z)| [x, y, z]),
    ];
    (
        (-250.0..250.0f64, -250.0..250.0f64, 0.0..160.0f64),
        velocity,
        prop::bool::weighted(0.9),
        prop_oneof![1 => 5.0..40.0f64, 3 => 40.0..100.0f64],
        0.0..3.0f64,
    )
        .prop_map(|((x, y, z), v, airborne, battery, eph)| {
            let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), NOW);
            s.armed = true;
            s.battery.remaining_pct = battery;
            s.gnss.eph_m = eph;
            if airborne {
                s.landed = LandedState::InAir;
                s.position = Enu::new(x, y, z);
                s.velocity = Enu::new(v[0], v[1], v[2]);
            } else {
                s.position = Enu::new(x, y, 0.0);
            }
            s
        })
}

fn command_s(s: VehicleSnapshot, sites: Vec<P2>) -> impl Strategy<Value = Command> {
    let (x0, y0) = (s.position.x, s.position.y);
    let speed = prop_oneof![1 => Just(None), 1 => (0.5..20.0f64).prop_map(Some)];
    let near = (-150.0..150.0f64, -150.0..150.0f64).prop_map(move |(dx, dy)| (x0 + dx, y0 + dy));
    let far = (-500.0..500.0f64, -500.0..500.0f64);
    let target = prop_oneof![3 => near, 1 => far];
    let alt = -10.0..180.0f64;
    let mut spots = sites;
    spots.push([0.0, 0.0]);
    let site = prop::sample::select(spots);
    prop_oneof![
        12 => (target, alt.clone(), speed).prop_map(|((x, y), z, speed_mps)| Command::GoTo {
            target: Enu::new(x, y, z),
            speed_mps,
        }),
        2 => alt.clone().prop_map(|a| Command::SetAltitude { altitude_m: a }),
        1 => alt.prop_map(|a| Command::Takeoff { altitude_m: a }),
        2 => Just(Command::ReturnToHome),
        1 => Just(Command::Land { site: None }),
        2 => site.prop_map(|s| Command::Land { site: Some(s) }),
        1 => (-500.0..500.0f64, -500.0..500.0f64)
            .prop_map(|(x, y)| Command::Land { site: Some([x, y]) }),
        1 => Just(Command::Disarm),
    ]
}

/// Up to three more zones or tracks that meet the commanded straight line at some time, give
/// or take 60 m: the near misses where closed form and sampling must agree.
/// Zones come full height, or with their floor just above the line or their ceiling just below.
fn rendezvous_s() -> impl Strategy<Value = Vec<(f64, f64, P2, P2, f64, bool, f64)>> {
    let offset = (-60.0..60.0f64, -60.0..60.0f64).prop_map(|(x, y)| [x, y]);
    let vel = prop_oneof![
        1 => Just([0.0, 0.0]),
        2 => (-10.0..10.0f64, -10.0..10.0f64).prop_map(|(x, y)| [x, y]),
    ];
    let vertical = prop_oneof![Just(0.0), 0.0..4.0f64, -4.0..0.0f64];
    let one = (
        0.0..1.0f64,
        0.0..40.0f64,
        offset,
        vel,
        5.0..40.0f64,
        any::<bool>(),
        vertical,
    );
    prop::collection::vec(one, 0..3)
}

fn case_s() -> impl Strategy<Value = Case> {
    (world_s(), snapshot_s()).prop_flat_map(|(world, snap)| {
        let command = command_s(snap, world.sites.clone());
        (command, rendezvous_s()).prop_map(move |(command, extra)| {
            let mut world = world.clone();
            let p = snap.position;
            let to = match command {
                Command::GoTo { target, .. } => target,
                _ => Enu::new(0.0, 0.0, p.z),
            };
            let s0 = (NOW as f64 - world.epoch_ms as f64) / 1000.0;
            for (f, tau, off, v, r, is_track, dz) in extra {
                let meet = [
                    p.x + f * (to.x - p.x) + off[0],
                    p.y + f * (to.y - p.y) + off[1],
                ];
                let z = p.z + f * (to.z - p.z);
                if is_track {
                    world.tracks.push(Track {
                        time_ms: NOW,
                        position: Enu::new(meet[0] - v[0] * tau, meet[1] - v[1] * tau, z),
                        velocity: Enu::new(v[0], v[1], 0.0),
                    });
                } else {
                    let back = s0 + tau;
                    world.zones.push(Zone {
                        shape: Shape::Circle([meet[0] - v[0] * back, meet[1] - v[1] * back], r),
                        floor: if dz > 0.0 { z + dz } else { 0.0 },
                        ceiling: if dz < 0.0 { (z + dz).max(1.0) } else { 200.0 },
                        vel: v,
                    });
                }
            }
            Case {
                world,
                snap,
                command,
            }
        })
    })
}

fn context(w: &World) -> Result<GateContext, GateContextError> {
    let layers = w
        .wind
        .iter()
        .map(|&(alt_m, speed_mps, from_deg)| WindLayer {
            alt_m,
            speed_mps,
            from_deg,
        })
        .collect();
    let mut ctx = GateContext::new(w.limits.clone(), w.vehicle.clone())?
        .with_epoch_ms(w.epoch_ms)
        .with_wind(Wind::layered(layers, w.gust))?;
    for f in &w.fence {
        let area = match f {
            Shape::Circle(c, r) => Area::circle(*c, *r),
            Shape::Poly(p) => Area::polygon(p.clone()),
        };
        ctx = ctx.with_fence(&area)?;
    }
    for z in &w.zones {
        let area = match &z.shape {
            Shape::Circle(c, r) => Area::Cylinder {
                center: *c,
                radius_m: *r,
                floor_m: z.floor,
                ceiling_m: z.ceiling,
                vel_xy: (z.vel != [0.0, 0.0]).then_some(z.vel),
                extra: Default::default(),
            },
            Shape::Poly(p) => Area::polygon(p.clone()),
        };
        ctx = ctx.with_no_fly(&area)?;
    }
    for s in &w.sites {
        ctx = ctx.with_landing_site(Enu::new(s[0], s[1], 0.0));
    }
    ctx.set_traffic(w.tracks.clone())?;
    if !w.peer.is_empty() {
        ctx.set_peer_plans(vec![PeerPlan {
            peer: "peer".into(),
            knots: w.peer.clone(),
            radius_m: 0.0,
        }])?;
    }
    Ok(ctx)
}

// ---------------------------------------------------------------- the property

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2_000)
}

#[test]
fn approved_and_clamped_commands_keep_every_limit() {
    let cases = cases();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let tally = Cell::new([0u64; 3]);
    let result = runner.run(&case_s(), |case| {
        let ctx = context(&case.world).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let verdict = evaluate(
            &ctx,
            &case.snap,
            &case.command,
            NOW,
            &mut GateState::default(),
        );
        let mut t = tally.get();
        match &verdict {
            Verdict::Approved(a) => {
                t[0] += 1;
                oracle(&case, a.command()).map_err(TestCaseError::fail)?;
            }
            Verdict::Clamped { approved, .. } => {
                t[1] += 1;
                oracle(&case, approved.command()).map_err(TestCaseError::fail)?;
                let again = evaluate(
                    &ctx,
                    &case.snap,
                    approved.command(),
                    NOW,
                    &mut GateState::default(),
                );
                match again {
                    Verdict::Approved(b) if b.command() == approved.command() => {}
                    other => {
                        return Err(TestCaseError::fail(format!(
                            "clamped command re-evaluated: {other:?}"
                        )));
                    }
                }
            }
            Verdict::Denied(_) => t[2] += 1,
        }
        tally.set(t);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let [approved, clamped, denied] = tally.get();
    println!("gate oracle: {approved} approved, {clamped} clamped, {denied} denied");
    // Not vacuous: a fair share of the random commands pass and get checked.
    let total = approved + clamped + denied;
    assert!(
        approved * 10 >= total && clamped * 50 >= total,
        "{approved}/{clamped}/{denied}"
    );
}
