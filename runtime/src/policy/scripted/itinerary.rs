//! What the scripted agent knows before flight, as a mission plan uploaded with the scenario
//! would carry it: the waypoints and where the payload must capture, the fitted sensors, the
//! authorised landing sites, the announced link outages and the airframe's pace and energy.

use super::timing::{Outage, Pace};
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::scenario::Scenario;
use alpha3_sim::dynamics::FlightLimits;
use alpha3_sim::evaluator::Objectives;

/// One point to fly to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Target {
    pub point: [f64; 3],
    /// The capture the mission needs here, if any.
    pub capture: Option<CaptureKind>,
    /// A capture here completed (as far as the agent knows).
    pub captured: bool,
}

/// The scripted agent's itinerary (the targets in order, the landing sites, the outages on
/// the way) and the airframe that flies it.
#[derive(Debug, Clone)]
pub(super) struct Itinerary {
    pub targets: Vec<Target>,
    /// Imaging sensors to capture with, preferred first.
    pub sensors: Vec<String>,
    /// Authorised landing sites: the launch point first.
    pub sites: Vec<[f64; 2]>,
    pub outages: Vec<Outage>,
    pub pace: Pace,
    /// The altitude band, metres above ground.
    pub band: (f64, f64),
    pub reserve_pct: f64,
    pub battery_wh: f64,
    pub hover_w: f64,
    pub drag_w_per_mps3: f64,
}

/// A waypoint this low is on the ground: the mission lands there (a pad), m.
pub(super) const GROUND_M: f64 = 0.5;

/// Keep this much battery above the reserve, percent.
pub(super) const ENERGY_MARGIN_PCT: f64 = 3.0;

/// Fitted sensors that navigate rather than image.
const NAVIGATION: [&str; 5] = ["gnss", "imu", "magnetometer", "barometer", "radar"];

impl Itinerary {
    pub fn new(scenario: &Scenario, sensors: &[String]) -> Self {
        let objectives = Objectives::new(scenario);
        let targets = scenario
            .mission
            .waypoints
            .iter()
            .enumerate()
            .map(|(i, w)| Target {
                point: *w,
                capture: objectives
                    .tasks
                    .iter()
                    .find(|t| t.waypoint == i)
                    .map(|t| t.kind),
                captured: false,
            })
            .collect();
        let payloads: Vec<String> = scenario
            .uav
            .payloads
            .iter()
            .filter_map(|p| p.get("id").or_else(|| p.get("type"))?.as_str())
            .map(str::to_string)
            .collect();
        // The mission's own payloads first, then the other imaging sensors as fallbacks.
        let mut imaging: Vec<String> = sensors
            .iter()
            .filter(|s| !NAVIGATION.contains(&s.as_str()))
            .cloned()
            .collect();
        imaging.sort_by_key(|s| !payloads.contains(s));
        imaging.dedup();
        let mut sites = vec![[scenario.spawn.xyz[0], scenario.spawn.xyz[1]]];
        if let Some(l) = &scenario.landing {
            sites.extend(l.emergency_sites.iter().map(|s| [s[0], s[1]]));
        }
        let outages = scenario
            .comms
            .as_ref()
            .map(|c| {
                c.loss_windows
                    .iter()
                    .filter(|w| w[0].is_finite() && w[1].is_finite() && w[1] >= w[0])
                    .map(|w| Outage {
                        start_s: w[0],
                        end_s: w[1],
                    })
                    .collect()
            })
            .unwrap_or_default();
        let u = &scenario.uav;
        let (hover_w, drag) = u
            .battery_model
            .as_ref()
            .map_or((200.0, 0.05), |b| (b.hover_power_w, b.k_drag));
        Self {
            targets,
            sensors: imaging,
            sites,
            outages,
            pace: Pace::of(&FlightLimits::from_airframe(u)),
            band: (
                scenario.airspace.altitude_agl_min_m,
                scenario.airspace.altitude_agl_max_m,
            ),
            reserve_pct: 100.0 * u.reserve_fraction.unwrap_or(0.2),
            battery_wh: u.battery_wh.max(1.0),
            hover_w,
            drag_w_per_mps3: drag,
        }
    }

    /// Whether target `k` is on the ground: the mission ends landed on it.
    pub fn lands_at(&self, k: usize) -> bool {
        self.targets.get(k).is_some_and(|t| t.point[2] <= GROUND_M)
    }

    /// The authorised site nearest to `(x, y)`.
    pub fn nearest_site(&self, x: f64, y: f64) -> [f64; 2] {
        self.sites
            .iter()
            .copied()
            .min_by(|a, b| {
                let da = (a[0] - x).hypot(a[1] - y);
                let db = (b[0] - x).hypot(b[1] - y);
                da.total_cmp(&db)
            })
            .unwrap_or([x, y])
    }

    /// Battery percent a flight of `seconds` at cruise uses (hover plus drag power), with a
    /// quarter on top for wind and manoeuvres.
    pub fn flight_pct(&self, seconds: f64) -> f64 {
        let v = self.pace.cruise_mps();
        let watts = self.hover_w + self.drag_w_per_mps3 * v * v * v;
        1.25 * 100.0 * watts * seconds.max(0.0) / 3600.0 / self.battery_wh
    }

    /// Battery percent needed to get from `p` down at the nearest authorised site.
    pub fn to_site_pct(&self, p: [f64; 3]) -> f64 {
        let s = self.nearest_site(p[0], p[1]);
        let t = self.pace.leg_s(p, [s[0], s[1], p[2]]) + self.pace.descent_s(p[2]);
        self.flight_pct(t)
    }
}
