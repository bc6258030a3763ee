//! Where things are: the fenced area and altitude band, the mission route by pattern, landing
//! sites, no-fly zones placed clear of the route, traffic and moving obstacles.

use super::{Density, MissionType, round_to};
use crate::geometry::{distance_to_segment, horizontal_margin};
use crate::rng::SimRng;
use crate::vec3::hypot;
use alpha3_core::airspace::Area;
use alpha3_core::scenario::{ScenarioAirspace, TrafficTrack};
use serde_json::{Map, Value, json};

/// The fenced area and its band.
#[derive(Debug, Clone)]
pub(super) struct Site {
    pub kind: &'static str,
    pub width: f64,
    pub height: f64,
    pub fence: Area,
    pub band: (f64, f64),
}

/// The spawn point and waypoints.
#[derive(Debug, Clone)]
pub(super) struct Route {
    pub spawn: [f64; 3],
    pub yaw_deg: f64,
    pub waypoints: Vec<[f64; 3]>,
    pub pattern: &'static str,
}

impl Route {
    /// The horizontal path: spawn, then every waypoint.
    fn path(&self) -> Vec<[f64; 2]> {
        std::iter::once(self.spawn)
            .chain(self.waypoints.iter().copied())
            .map(|p| [p[0], p[1]])
            .collect()
    }
}

const AIRSPACES: [(&str, f64, f64, f64, f64); 6] = [
    // kind, width range, height factor, band low, band high
    ("urban", 600.0, 900.0, 20.0, 120.0),
    ("suburban", 800.0, 1200.0, 15.0, 120.0),
    ("rural", 1200.0, 1800.0, 10.0, 150.0),
    ("harbor", 700.0, 1000.0, 10.0, 150.0),
    ("industrial", 600.0, 1000.0, 20.0, 110.0),
    ("coastal", 1000.0, 1600.0, 10.0, 140.0),
];

pub(super) fn draw_site(rng: &mut SimRng) -> Site {
    let (kind, w_lo, w_hi, band_lo, band_hi) =
        rng.pick(&AIRSPACES).copied().unwrap_or(AIRSPACES[0]);
    let width = round_to(rng.range(w_lo, w_hi), -2);
    let height = round_to(width * rng.range(0.6, 1.0), -2);
    let mut points = vec![[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]];
    if rng.chance(0.3) {
        // Cut the far corner: a pentagon, as real fences around buildings are.
        points.splice(
            2..3,
            [
                [width, round_to(height * 0.7, 0)],
                [round_to(width * 0.7, 0), height],
            ],
        );
    }
    Site {
        kind,
        width,
        height,
        fence: Area::polygon(points),
        band: (band_lo, band_hi),
    }
}

/// Pulls `p` toward the site centre until it is `margin` inside the fence.
fn pull_inside(site: &Site, p: [f64; 2], margin: f64) -> [f64; 2] {
    let c = [site.width / 2.0, site.height / 2.0];
    let mut q = p;
    for _ in 0..40 {
        if horizontal_margin(&site.fence, q, 0.0) >= margin {
            break;
        }
        q = [q[0] + 0.1 * (c[0] - q[0]), q[1] + 0.1 * (c[1] - q[1])];
    }
    [round_to(q[0], 0), round_to(q[1], 0)]
}

pub(super) fn draw_route(rng: &mut SimRng, mission: MissionType, site: &Site) -> Route {
    let (w, h) = (site.width, site.height);
    let (lo, hi) = site.band;
    let spawn = [
        round_to(rng.range(0.08, 0.18) * w, 0),
        round_to(rng.range(0.08, 0.18) * h, 0),
        round_to(lo + rng.range(10.0, 25.0), 0),
    ];
    let cruise_z = |rng: &mut SimRng| round_to(lo + rng.range(15.0, (hi - lo).min(90.0) - 10.0), 0);
    let z0 = cruise_z(rng);
    let s = [spawn[0], spawn[1]];
    let (pattern, xy): (&str, Vec<[f64; 2]>) = match mission {
        MissionType::Inspection => {
            let n = rng.int_in(4, 6) as usize;
            let far = [rng.range(0.75, 0.88) * w, rng.range(0.7, 0.85) * h];
            let (dx, dy) = (far[0] - s[0], far[1] - s[1]);
            let len = hypot(dx, dy).max(1.0);
            let amp = rng.range(0.05, 0.12) * w.min(h);
            let pts = (1..=n)
                .map(|i| {
                    let f = i as f64 / n as f64;
                    let side = if i % 2 == 0 { 1.0 } else { -1.0 };
                    let off = if i == n { 0.0 } else { side * amp };
                    [
                        s[0] + f * dx - off * dy / len,
                        s[1] + f * dy + off * dx / len,
                    ]
                })
                .collect();
            ("corridor", pts)
        }
        MissionType::Delivery => {
            let drop = [rng.range(0.6, 0.88) * w, rng.range(0.55, 0.85) * h];
            let mid = [(s[0] + drop[0]) / 2.0, (s[1] + drop[1]) / 2.0];
            let off = rng.range(-0.1, 0.1) * w.min(h);
            ("point_to_point", vec![[mid[0] + off, mid[1] - off], drop])
        }
        MissionType::SearchAndRescue => {
            let c = [rng.range(0.4, 0.6) * w, rng.range(0.4, 0.6) * h];
            let step = rng.range(40.0, 70.0);
            let moves = [
                (1.0, 0.0),
                (0.0, 1.0),
                (-2.0, 0.0),
                (0.0, -2.0),
                (3.0, 0.0),
                (0.0, 3.0),
            ];
            let mut p = c;
            let mut pts = vec![c];
            for (mx, my) in moves.iter().take(rng.int_in(4, 6) as usize) {
                p = [p[0] + mx * step, p[1] + my * step];
                pts.push(p);
            }
            ("expanding_square", pts)
        }
        MissionType::Mapping => {
            let x0 = rng.range(0.25, 0.4) * w;
            let x1 = x0 + rng.range(0.35, 0.5) * w;
            let y0 = rng.range(0.25, 0.4) * h;
            let lanes = rng.int_in(3, 4) as usize;
            let spacing = rng.range(0.1, 0.15) * h;
            let mut pts = Vec::new();
            for lane in 0..lanes {
                let y = y0 + lane as f64 * spacing;
                let (a, b) = if lane % 2 == 0 { (x0, x1) } else { (x1, x0) };
                pts.push([a, y]);
                pts.push([b, y]);
            }
            ("lawnmower", pts)
        }
        MissionType::Surveillance => {
            let c = [rng.range(0.45, 0.65) * w, rng.range(0.45, 0.65) * h];
            let r = rng.range(60.0, 120.0);
            let a0 = rng.range(0.0, std::f64::consts::TAU);
            let n = rng.int_in(5, 6) as usize;
            let pts = (0..=n)
                .map(|i| {
                    let a = a0 + std::f64::consts::TAU * i as f64 / n as f64;
                    [c[0] + r * libm::cos(a), c[1] + r * libm::sin(a)]
                })
                .collect();
            ("orbit", pts)
        }
    };
    let varied = matches!(mission, MissionType::Inspection);
    let waypoints = xy
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let q = pull_inside(site, p, 30.0);
            let z = if varied { cruise_z(rng) } else { z0 };
            let z = if mission == MissionType::Delivery && i == 1 {
                round_to(lo + 8.0, 0)
            } else {
                z
            };
            [q[0], q[1], z]
        })
        .collect();
    Route {
        spawn,
        yaw_deg: round_to(rng.range(0.0, 24.0), 0) * 15.0,
        waypoints,
        pattern,
    }
}

pub(super) fn draw_landing_sites(rng: &mut SimRng, site: &Site, route: &Route) -> Vec<[f64; 3]> {
    let last = route.waypoints.last().copied().unwrap_or(route.spawn);
    let near_end = pull_inside(
        site,
        [
            last[0] + rng.range(-60.0, 60.0),
            last[1] + rng.range(-60.0, 60.0),
        ],
        25.0,
    );
    let mut sites = vec![[near_end[0], near_end[1], 0.0]];
    if rng.chance(0.6) {
        let other = pull_inside(
            site,
            [
                rng.range(0.5, 0.95) * site.width,
                rng.range(0.05, 0.4) * site.height,
            ],
            25.0,
        );
        sites.push([other[0], other[1], 0.0]);
    }
    sites
}

/// Whether a zone of radius `r` at `c` keeps `clear` metres from the path and the points.
fn zone_is_clear(c: [f64; 2], r: f64, path: &[[f64; 2]], points: &[[f64; 2]], clear: f64) -> bool {
    let seg_ok = path
        .windows(2)
        .all(|s| distance_to_segment(c, s[0], s[1]) > r + clear);
    let pts_ok = points
        .iter()
        .all(|p| hypot(p[0] - c[0], p[1] - c[1]) > r + clear);
    seg_ok && pts_ok
}

pub(super) fn draw_zones(
    rng: &mut SimRng,
    density: Density,
    site: &Site,
    route: &Route,
    landing: &[[f64; 3]],
) -> (Vec<Area>, Vec<Area>) {
    let (static_n, dynamic_n) = match density {
        Density::Sparse => (rng.int_in(0, 1), 0),
        Density::Moderate => (rng.int_in(1, 2), rng.int_in(0, 1)),
        Density::Dense => (rng.int_in(3, 4), rng.int_in(1, 2)),
    };
    let mut path = route.path();
    // The final leg to the landing site near the end must be clear too.
    path.extend(landing.first().map(|p| [p[0], p[1]]));
    let mut points: Vec<[f64; 2]> = landing.iter().map(|p| [p[0], p[1]]).collect();
    points.push([route.spawn[0], route.spawn[1]]);
    let (lo, hi) = site.band;
    let mut fixed = Vec::new();
    for _ in 0..static_n {
        for _ in 0..60 {
            let r = round_to(rng.range(30.0, 70.0), 0);
            let c = pull_inside(
                site,
                [
                    rng.range(0.1, 0.9) * site.width,
                    rng.range(0.1, 0.9) * site.height,
                ],
                r,
            );
            if zone_is_clear(c, r, &path, &points, 20.0) {
                let floor = if rng.chance(0.5) { 0.0 } else { lo };
                fixed.push(Area::cylinder(c, r, floor, hi));
                points.push(c);
                break;
            }
        }
    }
    let mut moving = Vec::new();
    for _ in 0..dynamic_n {
        let r = round_to(rng.range(20.0, 40.0), 0);
        let c = pull_inside(
            site,
            [
                rng.range(0.3, 0.9) * site.width,
                rng.range(0.3, 0.9) * site.height,
            ],
            r,
        );
        let floor = round_to(lo + rng.range(0.0, 10.0), 0);
        let ceiling = round_to((floor + rng.range(40.0, 80.0)).min(hi), 0);
        let speed = rng.range(0.5, 2.0);
        let dir = rng.range(0.0, std::f64::consts::TAU);
        let mut zone = Area::cylinder(c, r, floor, ceiling);
        if let Area::Cylinder { vel_xy, .. } = &mut zone {
            *vel_xy = Some([
                round_to(speed * libm::cos(dir), 1),
                round_to(speed * libm::sin(dir), 1),
            ]);
        }
        moving.push(zone);
    }
    (fixed, moving)
}

pub(super) fn airspace(site: &Site, zones: (Vec<Area>, Vec<Area>)) -> ScenarioAirspace {
    ScenarioAirspace {
        altitude_agl_min_m: site.band.0,
        altitude_agl_max_m: site.band.1,
        geofence: vec![site.fence.clone()],
        no_fly_zones: zones.0,
        no_fly_zones_dynamic: zones.1,
        extra: Map::new(),
    }
}

pub(super) fn draw_traffic(
    rng: &mut SimRng,
    density: Density,
    site: &Site,
    route: &Route,
) -> Vec<TrafficTrack> {
    let n = match density {
        Density::Sparse => rng.int_in(0, 1),
        Density::Moderate => rng.int_in(1, 2),
        Density::Dense => rng.int_in(2, 3),
    };
    let (lo, hi) = site.band;
    (0..n)
        .map(|_| {
            let (kind, speed, z) = match rng.uniform() {
                u if u < 0.7 => ("uav", rng.range(6.0, 14.0), rng.range(lo + 10.0, lo + 60.0)),
                u if u < 0.85 => (
                    "helicopter",
                    rng.range(20.0, 35.0),
                    rng.range(hi - 40.0, hi - 10.0),
                ),
                _ => (
                    "fixed_wing",
                    rng.range(18.0, 30.0),
                    rng.range(hi - 50.0, hi - 15.0),
                ),
            };
            let mut p = [0.0, 0.0];
            for _ in 0..30 {
                p = [
                    rng.range(0.2, 0.95) * site.width,
                    rng.range(0.2, 0.95) * site.height,
                ];
                if hypot(p[0] - route.spawn[0], p[1] - route.spawn[1]) > 200.0 {
                    break;
                }
            }
            TrafficTrack {
                kind: kind.to_string(),
                spawn: [round_to(p[0], 0), round_to(p[1], 0), round_to(z, 0)],
                speed_mps: round_to(speed, 1),
                heading_deg: round_to(rng.range(0.0, 72.0), 0) * 5.0,
                extra: Map::new(),
            }
        })
        .collect()
}

pub(super) fn draw_obstacles(
    rng: &mut SimRng,
    density: Density,
    site: &Site,
    route: &Route,
) -> Vec<Value> {
    let n = match density {
        Density::Sparse => 0,
        Density::Moderate => rng.int_in(0, 1),
        Density::Dense => rng.int_in(1, 2),
    };
    let (lo, hi) = site.band;
    (0..n)
        .map(|_| {
            let mut c = [0.0, 0.0];
            for _ in 0..30 {
                c = [rng.range(0.3, 0.9) * site.width, rng.range(0.3, 0.9) * site.height];
                if hypot(c[0] - route.spawn[0], c[1] - route.spawn[1]) > 150.0 {
                    break;
                }
            }
            json!({
                "shape": "sphere",
                "center": [round_to(c[0], 0), round_to(c[1], 0), round_to(rng.range(lo + 10.0, hi - 20.0), 0)],
                "radius_m": round_to(rng.range(2.0, 8.0), 1),
                "vel": [round_to(rng.range(-1.5, 1.5), 1), round_to(rng.range(-1.5, 1.5), 1), 0.0]
            })
        })
        .collect()
}

/// Length of the route from spawn through every waypoint to the nearest landing site, metres.
pub(super) fn route_length_m(route: &Route, landing: &[[f64; 3]]) -> f64 {
    let mut pts = vec![route.spawn];
    pts.extend(route.waypoints.iter().copied());
    let last = pts.last().copied().unwrap_or(route.spawn);
    let home = [route.spawn[0], route.spawn[1], 0.0];
    let end = landing
        .iter()
        .copied()
        .chain(std::iter::once(home))
        .min_by(|a, b| crate::vec3::distance(*a, last).total_cmp(&crate::vec3::distance(*b, last)))
        .unwrap_or(home);
    pts.push(end);
    pts.windows(2)
        .map(|s| crate::vec3::distance(s[0], s[1]))
        .sum()
}
