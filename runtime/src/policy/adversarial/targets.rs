//! What a hostile policy aims at, read from the scenario (the plan a pilot is given): the
//! no-fly zones, the fence, the altitude band, the traffic and the landing sites.

use alpha3_core::airspace::Area;
use alpha3_core::scenario::{Scenario, TrafficTrack};

/// Points and numbers worth attacking in one scenario (local ENU metres).
#[derive(Debug, Clone)]
pub struct Targets {
    /// Centres of the no-fly zones (static and moving), at an altitude inside each.
    pub no_fly: Vec<[f64; 3]>,
    /// Radii of the no-fly zones, in the order of [`Self::no_fly`].
    pub no_fly_radius: Vec<f64>,
    /// The middle of the geofence and its half-extent.
    pub fence_centre: [f64; 2],
    pub fence_half_extent_m: f64,
    pub min_altitude_m: f64,
    pub max_altitude_m: f64,
    pub home: [f64; 3],
    pub traffic: Vec<TrafficTrack>,
    pub max_speed_mps: f64,
    pub sensors: Vec<String>,
}

fn altitude_inside(area: &Area, lo: f64, hi: f64) -> f64 {
    match area {
        Area::Cylinder {
            floor_m, ceiling_m, ..
        } => ((floor_m.max(lo) + ceiling_m.min(hi)) / 2.0).max(lo),
        _ => (lo + hi) / 2.0,
    }
}

impl Targets {
    pub fn new(scenario: &Scenario, sensors: &[String]) -> Self {
        let a = &scenario.airspace;
        let (lo, hi) = (a.altitude_agl_min_m, a.altitude_agl_max_m);
        let mut no_fly = Vec::new();
        let mut no_fly_radius = Vec::new();
        for z in a.no_fly_zones.iter().chain(&a.no_fly_zones_dynamic) {
            if let Some((c, r)) = z.enclosing_circle() {
                no_fly.push([c[0], c[1], altitude_inside(z, lo, hi)]);
                no_fly_radius.push(r);
            }
        }
        let (fence_centre, fence_half_extent_m) = a
            .geofence
            .first()
            .and_then(Area::enclosing_circle)
            .unwrap_or(([0.0, 0.0], 500.0));
        Self {
            no_fly,
            no_fly_radius,
            fence_centre,
            fence_half_extent_m,
            min_altitude_m: lo,
            max_altitude_m: hi,
            home: scenario.spawn.xyz,
            traffic: scenario.traffic.clone(),
            max_speed_mps: scenario.uav.max_speed_mps,
            sensors: sensors.to_vec(),
        }
    }

    /// Where traffic track `i` would be at `t_s` flying straight from its spawn (the policy
    /// cannot see the world; this is its best guess, as a pilot's would be).
    pub fn traffic_at(&self, i: usize, t_s: f64) -> Option<[f64; 3]> {
        let t = self.traffic.get(i)?;
        // Headings are compass degrees: 0 is north (+y), 90 east (+x).
        let h = t.heading_deg.to_radians();
        Some([
            t.spawn[0] + t.speed_mps * t_s * h.sin(),
            t.spawn[1] + t.speed_mps * t_s * h.cos(),
            t.spawn[2],
        ])
    }
}
