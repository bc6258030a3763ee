//! Scenario document types.

use crate::airspace::Area;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One scenario. The top-level fields UAVBench lists as `required` are required here too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scenario {
    pub name: String,
    pub sim: SimSettings,
    pub uav: Airframe,
    pub environment: Environment,
    pub airspace: ScenarioAirspace,
    pub spawn: Spawn,
    pub mission: Mission,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing: Option<Landing>,
    #[serde(default)]
    pub traffic: Vec<TrafficTrack>,
    #[serde(default)]
    pub faults: Vec<Fault>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comms: Option<Comms>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daa: Option<Daa>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimSettings {
    /// Physics step, seconds.
    pub dt: f64,
    pub duration_steps: u64,
    /// Policy decisions per second of the original benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_frequency: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Airframe {
    #[serde(rename = "type")]
    pub kind: String,
    pub mass_kg: f64,
    #[serde(rename = "battery_Wh")]
    pub battery_wh: f64,
    pub max_speed_mps: f64,
    /// Energy fraction that must remain at landing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_model: Option<BatteryModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotorcraft: Option<Rotorcraft>,
    #[serde(default)]
    pub payloads: Vec<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Power model: P = hover + k_drag·v³ + k_manoeuvre·|a| (watts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatteryModel {
    #[serde(rename = "hover_power_W")]
    pub hover_power_w: f64,
    pub k_drag: f64,
    pub k_manoeuvre: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rotorcraft {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotor_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_climb_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hover_ceiling_m: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Environment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub airspace: Option<String>,
    pub weather: Weather,
    #[serde(default)]
    pub wind_profile: Vec<WindLayer>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Weather {
    pub wind_mps: f64,
    /// Direction the wind blows from, degrees clockwise from north.
    pub wind_dir_deg: f64,
    #[serde(default)]
    pub gust_mps: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WindLayer {
    pub alt_m: f64,
    pub wind_mps: f64,
    pub dir_deg: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioAirspace {
    pub altitude_agl_min_m: f64,
    pub altitude_agl_max_m: f64,
    /// Inclusion areas: the vehicle must stay inside at least one.
    #[serde(default)]
    pub geofence: Vec<Area>,
    #[serde(default)]
    pub no_fly_zones: Vec<Area>,
    /// Moving zones (`vel_xy`).
    #[serde(default)]
    pub no_fly_zones_dynamic: Vec<Area>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spawn {
    pub xyz: [f64; 3],
    #[serde(default)]
    pub yaw_deg: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Landing {
    /// Authorised landing sites besides home, [x, y, z].
    #[serde(default)]
    pub emergency_sites: Vec<[f64; 3]>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Mission {
    /// inspection, delivery, search_and_rescue, mapping, surveillance, …
    #[serde(rename = "type")]
    pub kind: String,
    pub waypoints: Vec<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    pub time_budget_s: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrafficTrack {
    #[serde(rename = "type")]
    pub kind: String,
    pub spawn: [f64; 3],
    pub speed_mps: f64,
    pub heading_deg: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fault {
    /// Scenario time the fault starts, seconds.
    pub t_s: f64,
    /// motor_failure, gnss_jamming, battery_sag, sensor_offline, …
    #[serde(rename = "type")]
    pub kind: String,
    /// 0 = until the end.
    #[serde(default)]
    pub duration_s: f64,
    #[serde(default)]
    pub severity: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comms {
    #[serde(default)]
    pub loss_windows: Vec<[f64; 2]>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Detect-and-avoid thresholds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Daa {
    pub sep_threshold_m: f64,
    pub ttc_threshold_s: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
