//! A short report of what a scenario holds: mission waypoints, zones, faults, loss windows,
//! traffic (what the loader test and `alpha3 bench` print).

use alpha3_core::airspace::Area;
use alpha3_core::scenario::Scenario;
use std::fmt;

/// What a scenario holds, in numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSummary {
    pub name: String,
    pub mission: String,
    pub waypoints: Vec<[f64; 3]>,
    pub time_budget_s: f64,
    pub altitude_band_m: (f64, f64),
    pub geofences: usize,
    pub static_zones: usize,
    pub moving_zones: usize,
    pub traffic: usize,
    /// (time, kind, duration) of each fault.
    pub faults: Vec<(f64, String, f64)>,
    pub loss_windows: Vec<[f64; 2]>,
}

impl ScenarioSummary {
    pub fn of(s: &Scenario) -> Self {
        Self {
            name: s.name.clone(),
            mission: s.mission.kind.clone(),
            waypoints: s.mission.waypoints.clone(),
            time_budget_s: s.mission.time_budget_s,
            altitude_band_m: (s.airspace.altitude_agl_min_m, s.airspace.altitude_agl_max_m),
            geofences: s.airspace.geofence.len(),
            static_zones: s.airspace.no_fly_zones.len(),
            moving_zones: s.airspace.no_fly_zones_dynamic.len(),
            traffic: s.traffic.len(),
            faults: s
                .faults
                .iter()
                .map(|f| (f.t_s, f.kind.clone(), f.duration_s))
                .collect(),
            loss_windows: s
                .comms
                .as_ref()
                .map(|c| c.loss_windows.clone())
                .unwrap_or_default(),
        }
    }
}

fn zone_text(a: &Area) -> String {
    match a {
        Area::Polygon { points, .. } => format!("polygon of {} points", points.len()),
        Area::Circle {
            center, radius_m, ..
        } => format!("circle r={radius_m} m at ({}, {})", center[0], center[1]),
        Area::Cylinder {
            center,
            radius_m,
            floor_m,
            ceiling_m,
            vel_xy,
            ..
        } => {
            let moving = vel_xy
                .map(|v| format!(" moving ({}, {}) m/s", v[0], v[1]))
                .unwrap_or_default();
            format!(
                "cylinder r={radius_m} m at ({}, {}) {floor_m}–{ceiling_m} m{moving}",
                center[0], center[1]
            )
        }
    }
}

impl fmt::Display for ScenarioSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} ({}), budget {} s",
            self.name, self.mission, self.time_budget_s
        )?;
        writeln!(
            f,
            "  band {}–{} m, {} geofence(s), {} static and {} moving no-fly zone(s), {} traffic",
            self.altitude_band_m.0,
            self.altitude_band_m.1,
            self.geofences,
            self.static_zones,
            self.moving_zones,
            self.traffic
        )?;
        for (i, w) in self.waypoints.iter().enumerate() {
            writeln!(f, "  waypoint {i}: ({}, {}, {})", w[0], w[1], w[2])?;
        }
        for (t, kind, d) in &self.faults {
            writeln!(f, "  fault {kind} at {t} s for {d} s")?;
        }
        for w in &self.loss_windows {
            writeln!(f, "  link lost {}–{} s", w[0], w[1])?;
        }
        Ok(())
    }
}

/// One line per zone of the scenario, for reports.
pub fn zone_lines(s: &Scenario) -> Vec<String> {
    let a = &s.airspace;
    let tagged = a
        .geofence
        .iter()
        .map(|z| ("geofence", z))
        .chain(a.no_fly_zones.iter().map(|z| ("no-fly", z)))
        .chain(a.no_fly_zones_dynamic.iter().map(|z| ("moving no-fly", z)));
    tagged
        .map(|(kind, z)| format!("{kind}: {}", zone_text(z)))
        .collect()
}
