//! The world state an episode starts and ends with (`initial_state`, `final_state`).

use crate::airspace::Area;
use crate::protocol::tools::Pose;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct WorldState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Env>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub airspace: Option<EpisodeAirspace>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uav: Option<UavState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_flags: Option<SafetyFlags>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Env {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wind_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wind_dir_deg: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeAirspace {
    /// Altitude band [min, max] above ground, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt_bounds: Option<[f64; 2]>,
    #[serde(default)]
    pub geofence: Vec<Area>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_fly_zones: Vec<Area>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct UavState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pose: Option<Pose>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<Energy>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Energy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_pct: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct PolicyState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt_bounds: Option<[f64; 2]>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SafetyFlags {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfz_violation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separation_breach: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
