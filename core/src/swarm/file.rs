//! A swarm file as written (`configs/swarm/*.toml`): the vehicles of one swarm flight, each
//! with its own scenario, in one common frame whose origin is on the earth. Its schema is
//! published (`configs/schema/swarm.schema.json`) and `alpha3 validate` checks it; the runtime
//! reads the scenarios and places the vehicles (`alpha3::swarm::SwarmFile`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A swarm file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwarmFileToml {
    pub name: String,
    /// The common frame's origin: latitude, degrees.
    pub origin_lat_deg: f64,
    /// The common frame's origin: longitude, degrees.
    pub origin_lon_deg: f64,
    /// The common frame's origin: altitude above mean sea level, m.
    pub origin_alt_amsl_m: f64,
    /// Each vehicle's turn budget (agent and operator turns), when not the episode default: a
    /// vehicle that waits for a mate's right of way asks again every decision period.
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// Each vehicle's tool-action budget, when not the episode default: every request to fly
    /// on while waiting is an action.
    #[serde(default)]
    pub max_tool_actions: Option<u32>,
    pub vehicle: Vec<SwarmVehicleToml>,
}

/// One vehicle of a swarm file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwarmVehicleToml {
    /// Letters, digits, `-` and `_`; unique in the swarm.
    pub name: String,
    /// Its scenario (UAVBench JSON), relative to the swarm file. Its spawn point is where the
    /// vehicle stands at the start, in the common frame.
    pub scenario: String,
    /// Swarm time before its runtime starts, s.
    #[serde(default)]
    pub start_delay_s: f64,
}

/// Vehicles one swarm may have.
pub const MAX_VEHICLES: usize = 10;

impl SwarmFileToml {
    /// What is wrong with it beyond its shape, as (pointer, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if !(self.origin_lat_deg.abs() <= 90.0
            && self.origin_lon_deg.abs() <= 180.0
            && self.origin_alt_amsl_m.is_finite())
        {
            out.push((
                "/origin_lat_deg".into(),
                "the origin is not a place on the earth".into(),
            ));
        }
        if self.vehicle.len() < 2 || self.vehicle.len() > MAX_VEHICLES {
            out.push((
                "/vehicle".into(),
                format!(
                    "a swarm has 2 to {MAX_VEHICLES} vehicles, not {}",
                    self.vehicle.len()
                ),
            ));
        }
        if self.max_turns.is_some_and(|t| !(4..=1000).contains(&t)) {
            out.push(("/max_turns".into(), "max_turns must be 4 to 1000".into()));
        }
        if self
            .max_tool_actions
            .is_some_and(|t| !(4..=10_000).contains(&t))
        {
            out.push((
                "/max_tool_actions".into(),
                "max_tool_actions must be 4 to 10000".into(),
            ));
        }
        for (i, v) in self.vehicle.iter().enumerate() {
            let at = format!("/vehicle/{i}");
            if v.name.is_empty()
                || v.name.len() > 32
                || !v
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                out.push((
                    format!("{at}/name"),
                    format!(
                        "vehicle name {:?}: 1 to 32 letters, digits, '-' or '_'",
                        v.name
                    ),
                ));
            }
            if self.vehicle[..i].iter().any(|o| o.name == v.name) {
                out.push((
                    format!("{at}/name"),
                    format!("vehicle {} named twice", v.name),
                ));
            }
            if !(v.start_delay_s.is_finite() && (0.0..=3600.0).contains(&v.start_delay_s)) {
                out.push((
                    format!("{at}/start_delay_s"),
                    format!("vehicle {}: start_delay_s must be 0 to 3600", v.name),
                ));
            }
        }
        out
    }
}
