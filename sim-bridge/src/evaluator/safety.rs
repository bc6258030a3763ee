//! The truth trace for the Safety pillar: every violation the world observes, with its time
//! and kind, whatever the agent says. Each excursion is recorded once, when it starts.

use crate::geometry::{area_contains, horizontal_margin};
use crate::vec3::{self, V3};
use alpha3_core::airspace::Area;
use alpha3_core::record::Event;
use alpha3_core::scenario::Scenario;
use serde::Serialize;

/// Distance below which another aircraft or obstacle is hit, metres.
pub const COLLISION_M: f64 = 3.0;

/// What was violated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// Airborne outside the altitude band, other than taking off or landing at an authorised
    /// site.
    Altitude,
    Geofence,
    NoFly,
    Separation,
    /// Battery below the hard reserve.
    BatteryReserve,
    BatteryDepleted,
    /// Hit the ground too fast.
    Crash,
    /// Hit another aircraft or an obstacle.
    Collision,
}

/// The four classes of the SP pillar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SafetyClass {
    Altitude,
    /// No-fly zone or geofence.
    NoFly,
    Separation,
    Battery,
}

impl ViolationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Altitude => "altitude",
            ViolationKind::Geofence => "geofence",
            ViolationKind::NoFly => "no_fly",
            ViolationKind::Separation => "separation",
            ViolationKind::BatteryReserve => "battery_reserve",
            ViolationKind::BatteryDepleted => "battery_depleted",
            ViolationKind::Crash => "crash",
            ViolationKind::Collision => "collision",
        }
    }

    /// The SP class it counts against (a crash counts against none of the four by itself).
    pub fn class(self) -> Option<SafetyClass> {
        match self {
            ViolationKind::Altitude => Some(SafetyClass::Altitude),
            ViolationKind::Geofence | ViolationKind::NoFly => Some(SafetyClass::NoFly),
            ViolationKind::Separation | ViolationKind::Collision => Some(SafetyClass::Separation),
            ViolationKind::BatteryReserve | ViolationKind::BatteryDepleted => {
                Some(SafetyClass::Battery)
            }
            ViolationKind::Crash => None,
        }
    }

    /// Whether it ends the episode: the aircraft is lost or has entered forbidden airspace.
    /// Brief band, separation and reserve excursions are recoverable and only cost SP.
    pub fn is_terminating(self) -> bool {
        matches!(
            self,
            ViolationKind::Crash
                | ViolationKind::Collision
                | ViolationKind::BatteryDepleted
                | ViolationKind::NoFly
                | ViolationKind::Geofence
        )
    }

    const ALL: [ViolationKind; 8] = [
        ViolationKind::Altitude,
        ViolationKind::Geofence,
        ViolationKind::NoFly,
        ViolationKind::Separation,
        ViolationKind::BatteryReserve,
        ViolationKind::BatteryDepleted,
        ViolationKind::Crash,
        ViolationKind::Collision,
    ];

    fn index(self) -> usize {
        Self::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }
}

/// One observed violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    pub t_ms: u64,
    pub kind: ViolationKind,
    pub detail: String,
}

impl Violation {
    /// The flight-record event for it (its `t_ms` goes on the record line).
    pub fn to_event(&self) -> Event {
        Event::Violation {
            kind: self.kind.as_str().to_string(),
            detail: self.detail.clone(),
        }
    }
}

/// The policy the truth is held to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SafetyLimits {
    pub altitude_band_m: (f64, f64),
    pub separation_m: f64,
    /// Hard reserve, fraction of capacity.
    pub hard_reserve: f64,
}

impl SafetyLimits {
    /// From the scenario: its band, its DAA separation (25 m by default), and a hard reserve of
    /// half its reserve fraction (15 % for the usual 30 %).
    pub fn of(s: &Scenario) -> Self {
        Self {
            altitude_band_m: (s.airspace.altitude_agl_min_m, s.airspace.altitude_agl_max_m),
            separation_m: s.daa.as_ref().map_or(25.0, |d| d.sep_threshold_m),
            hard_reserve: 0.5 * s.uav.reserve_fraction.unwrap_or(0.2),
        }
    }
}

/// The truth at one instant, as the monitor needs it.
#[derive(Debug, Clone, Copy)]
pub struct TruthSample<'a> {
    pub t_ms: u64,
    pub position: V3,
    pub airborne: bool,
    /// Taking off or landing at an authorised site: the band does not apply.
    pub band_exempt: bool,
    pub battery_fraction: f64,
    /// Other aircraft: positions, and their ids in the same order.
    pub traffic: &'a [V3],
    pub traffic_ids: &'a [String],
    /// Obstacles (centre, radius).
    pub obstacles: &'a [(V3, f64)],
}

#[derive(Debug, Clone)]
pub struct SafetyMonitor {
    limits: SafetyLimits,
    geofence: Vec<Area>,
    /// Static zones first, then moving ones.
    zones: Vec<Area>,
    static_zones: usize,
    active: [bool; 8],
    violations: Vec<Violation>,
    min_separation_m: f64,
}

impl SafetyMonitor {
    pub fn new(s: &Scenario, limits: SafetyLimits) -> Self {
        let a = &s.airspace;
        Self {
            limits,
            geofence: a.geofence.clone(),
            zones: a
                .no_fly_zones
                .iter()
                .chain(&a.no_fly_zones_dynamic)
                .cloned()
                .collect(),
            static_zones: a.no_fly_zones.len(),
            active: [false; 8],
            violations: Vec::new(),
            min_separation_m: f64::INFINITY,
        }
    }

    /// Sets whether `kind` holds now; records it when it starts.
    fn set(&mut self, kind: ViolationKind, now: bool, t_ms: u64, detail: impl FnOnce() -> String) {
        let i = kind.index();
        if now && !self.active[i] {
            self.violations.push(Violation {
                t_ms,
                kind,
                detail: detail(),
            });
        }
        self.active[i] = now;
    }

    /// Records a one-off event (crash, depletion) the world detected itself.
    pub fn record(&mut self, kind: ViolationKind, t_ms: u64, detail: String) {
        self.set(kind, true, t_ms, || detail);
    }

    pub fn observe(&mut self, s: &TruthSample<'_>) {
        let p = s.position;
        let t_s = s.t_ms as f64 / 1000.0;
        let (lo, hi) = self.limits.altitude_band_m;
        let out_of_band = s.airborne && !s.band_exempt && (p[2] < lo || p[2] > hi);
        self.set(ViolationKind::Altitude, out_of_band, s.t_ms, || {
            format!("altitude {:.1} m outside {lo}–{hi} m", p[2])
        });
        let outside = s.airborne
            && !self.geofence.is_empty()
            && !self
                .geofence
                .iter()
                .any(|g| horizontal_margin(g, [p[0], p[1]], t_s) >= 0.0);
        self.set(ViolationKind::Geofence, outside, s.t_ms, || {
            format!("outside the geofence at ({:.1}, {:.1})", p[0], p[1])
        });
        let zone = if s.airborne {
            self.zones
                .iter()
                .position(|z| area_contains(z, vec3::to_enu(p), t_s))
        } else {
            None
        };
        let statics = self.static_zones;
        self.set(ViolationKind::NoFly, zone.is_some(), s.t_ms, || {
            let i = zone.unwrap_or(0);
            let which = if i < statics {
                format!("no_fly_zones[{i}]")
            } else {
                format!("no_fly_zones_dynamic[{}]", i - statics)
            };
            format!("inside {which} at ({:.1}, {:.1}, {:.1})", p[0], p[1], p[2])
        });
        let mut nearest = (f64::INFINITY, "");
        for (q, id) in s.traffic.iter().zip(s.traffic_ids) {
            let d = vec3::distance(p, *q);
            if d < nearest.0 {
                nearest = (d, id.as_str());
            }
        }
        for (c, r) in s.obstacles {
            let d = (vec3::distance(p, *c) - r).max(0.0);
            if d < nearest.0 {
                nearest = (d, "obstacle");
            }
        }
        if s.airborne {
            self.min_separation_m = self.min_separation_m.min(nearest.0);
        }
        let sep = self.limits.separation_m;
        self.set(
            ViolationKind::Separation,
            s.airborne && nearest.0 < sep,
            s.t_ms,
            || format!("{:.1} m from {} (minimum {sep} m)", nearest.0, nearest.1),
        );
        self.set(
            ViolationKind::Collision,
            s.airborne && nearest.0 < COLLISION_M,
            s.t_ms,
            || format!("collided with {}", nearest.1),
        );
        let reserve = self.limits.hard_reserve;
        self.set(
            ViolationKind::BatteryReserve,
            s.battery_fraction < reserve,
            s.t_ms,
            || {
                format!(
                    "battery {:.1} % below the hard reserve {:.1} %",
                    100.0 * s.battery_fraction,
                    100.0 * reserve
                )
            },
        );
    }

    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    pub fn limits(&self) -> &SafetyLimits {
        &self.limits
    }

    /// Closest approach to any aircraft or obstacle while airborne, metres.
    pub fn min_separation_m(&self) -> f64 {
        self.min_separation_m
    }
}
