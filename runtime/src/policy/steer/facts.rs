//! What the runtime tells a policy about the mission at a decision: the waypoints still to
//! fly, the captures and the hold still owed, the authorised landing sites, the altitude band,
//! the battery reserve, the fitted sensors and the other aircraft in the air.

use alpha3_core::protocol::tools::CaptureKind;
use alpha3_sim::World;

/// Within this horizontal distance of a reached waypoint a capture owed there can be taken
/// without flying back (the world counts captures within 25 m).
pub const NEAR_M: f64 = 20.0;

/// Fitted sensors that navigate rather than image (no capture from them).
const NAVIGATION: [&str; 5] = ["gnss", "imu", "magnetometer", "barometer", "radar"];

/// The mission as it stands at one decision.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MissionFacts {
    /// Every waypoint of the mission, in flying order.
    pub waypoints: Vec<[f64; 3]>,
    /// Waypoints not yet reached, with their mission index, in flying order.
    pub remaining: Vec<(usize, [f64; 3])>,
    pub total_waypoints: usize,
    /// Captures still owed: (waypoint index, kind).
    pub captures_owed: Vec<(usize, CaptureKind)>,
    /// A hold the operator ordered that is not done yet, seconds.
    pub hold_owed_s: Option<f64>,
    /// The launch point first, then the other authorised landing sites (x, y).
    pub sites: Vec<[f64; 2]>,
    /// The altitude band, metres above ground.
    pub band_m: (f64, f64),
    pub reserve_pct: f64,
    /// Fitted imaging sensors.
    pub sensors: Vec<String>,
    /// Those of `sensors` that are active now.
    pub active: Vec<String>,
    /// Other aircraft (A2A peers), by id.
    pub peers: Vec<String>,
}

impl MissionFacts {
    /// The facts of `world` now.
    pub fn of_world(world: &World) -> Self {
        let o = world.objectives();
        let remaining = o
            .waypoints
            .iter()
            .zip(&o.reached_at_s)
            .enumerate()
            .filter(|(_, (_, reached))| reached.is_none())
            .map(|(i, (w, _))| (i, *w))
            .collect();
        let captures_owed = o
            .tasks
            .iter()
            .filter(|t| t.done_at_s.is_none())
            .map(|t| (t.waypoint, t.kind))
            .collect();
        let hold_owed_s = o
            .hold
            .as_ref()
            .filter(|h| h.done_at_s.is_none())
            .map(|h| h.duration_s);
        let s = world.scenario();
        let sensors = world
            .payloads()
            .names()
            .iter()
            .filter(|n| !NAVIGATION.contains(&n.as_str()))
            .cloned()
            .collect();
        let active = world
            .payloads()
            .names()
            .iter()
            .filter(|n| !NAVIGATION.contains(&n.as_str()) && world.payloads().is_active(n))
            .cloned()
            .collect();
        let mut peers: Vec<String> = world.traffic_now().map(|(id, _)| id.to_owned()).collect();
        peers.sort();
        peers.dedup();
        Self {
            waypoints: o.waypoints.clone(),
            remaining,
            total_waypoints: o.waypoints.len(),
            captures_owed,
            hold_owed_s,
            sites: authorised_sites(world),
            band_m: (s.airspace.altitude_agl_min_m, s.airspace.altitude_agl_max_m),
            reserve_pct: 100.0 * s.uav.reserve_fraction.unwrap_or(0.2),
            sensors,
            active,
            peers,
        }
    }

    /// Captures still owed at waypoints already reached.
    pub fn owed_behind(&self) -> impl Iterator<Item = &(usize, CaptureKind)> {
        self.captures_owed
            .iter()
            .filter(|(i, _)| !self.remaining.iter().any(|(r, _)| r == i))
    }

    /// Whether `xy` is within `NEAR_M` (20 m) of waypoint `i`, horizontally.
    pub fn is_near(&self, i: usize, xy: [f64; 2]) -> bool {
        self.waypoints
            .get(i)
            .is_some_and(|w| (xy[0] - w[0]).hypot(xy[1] - w[1]) <= NEAR_M)
    }

    /// Captures owed at reached waypoints within `NEAR_M` of `xy`: the ones to take here.
    pub fn owed_here(&self, xy: [f64; 2]) -> Vec<(usize, CaptureKind)> {
        self.owed_behind()
            .filter(|(i, _)| self.is_near(*i, xy))
            .copied()
            .collect()
    }

    /// The next waypoint to fly, with its mission index.
    pub fn next(&self) -> Option<(usize, [f64; 3])> {
        self.remaining.first().copied()
    }
}

/// The launch point, then the scenario's emergency landing sites: where the gate lets the
/// vehicle land.
fn authorised_sites(world: &World) -> Vec<[f64; 2]> {
    let mut sites = vec![world.launch_point()];
    if let Some(l) = &world.scenario().landing {
        sites.extend(l.emergency_sites.iter().map(|s| [s[0], s[1]]));
    }
    sites
}
