//! The descriptive parts: metrics and required lists, hints, the risk label, benchmark tags and
//! a plain-language description built from the drawn numbers.

use super::{Density, NetworkStress, WeatherKind};
use alpha3_core::scenario::Scenario;
use serde_json::{Value, json};

pub(super) fn metrics() -> Value {
    json!([
        "min_nfz_slant_m",
        "geofence_breach",
        "altitude_violation",
        "battery_ending_Wh",
        "battery_low",
        "collisions",
        "daa_min_separation_m",
        "daa_min_ttc_s",
        "daa_breach",
        "mission_success",
        "stall_events",
        "link_quality_min_dbm",
        "gnss_outage_s"
    ])
}

pub(super) fn required() -> Value {
    json!([
        "name",
        "sim",
        "uav",
        "environment",
        "airspace",
        "spawn",
        "mission"
    ])
}

pub(super) fn hints() -> Value {
    json!({
        "waypoints_inside_geofence": true,
        "reserve_fraction_range": [0.0, 0.5],
        "wind_limits": { "wind_mps_max": 20.0, "gust_mps_max": 10.0 },
        "payload_rules": {
            "max_total_payload_mass_kg": 2.0,
            "payload_category_in": ["imaging_optical", "imaging_thermal", "imaging_advanced"]
        }
    })
}

fn title(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Risk factors, level and tags of a scenario.
#[derive(Debug, Clone)]
pub(super) struct Labels {
    pub factors: Vec<&'static str>,
    pub risk_level: u32,
    pub tags: Vec<String>,
}

const CATEGORIES: [&str; 4] = ["Low Risk", "Moderate Risk", "High Risk", "Critical Risk"];

impl Labels {
    pub fn of(
        s: &Scenario,
        airspace: &str,
        weather: WeatherKind,
        density: Density,
        stress: NetworkStress,
    ) -> Self {
        let w = &s.environment.weather;
        let env = &s.environment.extra;
        let flag = |k: &str| env.get(k).and_then(Value::as_bool).unwrap_or(false);
        let has_fault = |k: &str| s.faults.iter().any(|f| f.kind == k);
        let loss = s.comms.as_ref().is_some_and(|c| !c.loss_windows.is_empty());
        let mut factors: Vec<&'static str> = vec!["GeofencedArea"];
        let checks: [(bool, &'static str); 12] = [
            (w.wind_mps >= 6.0, "Wind"),
            (w.gust_mps >= 3.0, "Gusts"),
            (matches!(weather, WeatherKind::Fog), "LowVisibility"),
            (flag("gnss_multipath"), "GNSSMultipath"),
            (has_fault("gnss_jamming"), "GPSJamming"),
            (matches!(density, Density::Dense), "DenseAirspace"),
            (!s.traffic.is_empty(), "Traffic"),
            (!s.airspace.no_fly_zones_dynamic.is_empty(), "MovingNFZ"),
            (has_fault("motor_failure"), "MotorFailure"),
            (has_fault("battery_sag"), "BatterySag"),
            (has_fault("sensor_offline"), "SensorOffline"),
            (loss, "CommsLoss"),
        ];
        factors.extend(checks.iter().filter(|c| c.0).map(|c| c.1));
        if matches!(stress, NetworkStress::High | NetworkStress::Severe) {
            factors.push("NetworkStress");
        }
        factors.sort_unstable();
        let risk_level = (1 + factors.len() as u32 / 3).min(4);
        let mut tags = vec![title(&s.mission.kind), title(airspace)];
        let swarm = s
            .extra
            .get("swarm")
            .and_then(|v| v.get("enabled"))
            .and_then(Value::as_bool);
        tags.push(
            if swarm == Some(true) {
                "Swarm"
            } else {
                "SingleUAV"
            }
            .to_string(),
        );
        tags.push("AltitudeBounded".into());
        tags.extend(factors.iter().map(|f| f.to_string()));
        tags.push(CATEGORIES[(risk_level - 1) as usize].replace(' ', ""));
        Labels {
            factors,
            risk_level,
            tags,
        }
    }

    pub fn label_json(&self) -> Value {
        json!({
            "risk_level": self.risk_level,
            "risk_category": CATEGORIES[(self.risk_level.clamp(1, 4) - 1) as usize],
            "factors": self.factors
        })
    }

    pub fn tags_json(&self) -> Value {
        json!(self.tags)
    }
}

pub(super) fn description(
    s: &Scenario,
    airspace: &str,
    weather: WeatherKind,
    labels: &Labels,
) -> String {
    let w = &s.environment.weather;
    let a = &s.airspace;
    let mut lines = vec![
        format!(
            "{} UAV conducts a {} mission ({} pattern, {} waypoints) in the {} airspace.",
            title(&s.uav.kind),
            s.mission.kind.replace('_', " "),
            s.mission.pattern.as_deref().unwrap_or("free"),
            s.mission.waypoints.len(),
            airspace
        ),
        format!(
            "Altitude is limited to {} to {} m AGL inside a geofence; time budget {} s.",
            a.altitude_agl_min_m, a.altitude_agl_max_m, s.mission.time_budget_s
        ),
        format!(
            "Weather: {}, wind {} m/s from {}° with gusts to {} m/s.",
            weather.as_str(),
            w.wind_mps,
            w.wind_dir_deg,
            w.gust_mps
        ),
        format!(
            "{} static and {} moving no-fly zones; {} other aircraft share the airspace.",
            a.no_fly_zones.len(),
            a.no_fly_zones_dynamic.len(),
            s.traffic.len()
        ),
    ];
    for f in &s.faults {
        lines.push(format!(
            "A {} occurs at {} s (severity {}).",
            f.kind.replace('_', " "),
            f.t_s,
            f.severity
        ));
    }
    if let Some(c) = &s.comms {
        for win in &c.loss_windows {
            lines.push(format!(
                "The link is lost from {} s to {} s.",
                win[0], win[1]
            ));
        }
    }
    lines.push(format!("Risk factors: {}.", labels.factors.join(", ")));
    lines.join("\n")
}
