//! Reading UAVBench scenario JSON into core's [`Scenario`], with the checks `validate` applies,
//! and the few fields the world needs that core keeps as untyped extras.

use crate::error::SimError;
use alpha3_core::episode::StructureProblem;
use alpha3_core::frames::Enu;
use alpha3_core::scenario::limits::MAX_SCENARIO_BYTES;
use alpha3_core::scenario::{Scenario, scenario_from_text, scenario_size_problem};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The error for a scenario breaking `count` rules, the first being `p`.
fn invalid(p: &StructureProblem, count: usize) -> SimError {
    let at = if p.pointer.is_empty() {
        "/"
    } else {
        &p.pointer
    };
    SimError::Invalid {
        count,
        first: format!("{at}: {} [rule: {}]", p.message, p.rule),
    }
}

/// Parses and checks a scenario: a scenario `validate` would reject (its size, duplicate keys,
/// schema, the sizes of its lists, ranges, areas, containment, spawn, zones) is refused here
/// too, by the same function, naming its first problem as `validate` does.
pub fn parse_scenario(text: &str) -> Result<Scenario, SimError> {
    scenario_from_text(text).map_err(|problems| SimError::Invalid {
        count: problems.len(),
        first: problems
            .first()
            .map(ToString::to_string)
            .unwrap_or_default(),
    })
}

/// Reads and parses a scenario file; a file over the size cap is refused unread.
pub fn read_scenario(path: &Path) -> Result<Scenario, SimError> {
    let io = |source| SimError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        let size = std::fs::metadata(path).map_or(bytes.len() as u64, |m| m.len());
        if let Some(p) = scenario_size_problem(size.max(bytes.len() as u64)) {
            return Err(invalid(&p, 1));
        }
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    parse_scenario(&text)
}

/// A moving obstacle (`moving_obstacles`: a sphere drifting at constant velocity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MovingObstacle {
    pub center: Enu,
    pub radius_m: f64,
    pub velocity: Enu,
}

impl MovingObstacle {
    pub fn center_at(&self, t_s: f64) -> Enu {
        Enu::new(
            self.center.x + self.velocity.x * t_s,
            self.center.y + self.velocity.y * t_s,
            self.center.z + self.velocity.z * t_s,
        )
    }
}

/// The swarm block: other members of our own fleet.
#[derive(Debug, Clone, PartialEq)]
pub struct SwarmSpec {
    pub enabled: bool,
    pub size: usize,
    pub roles: Vec<String>,
    pub separation_min_m: f64,
}

/// The environment and comms flags the sensor and network models read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmitterFlags {
    pub gnss_multipath: bool,
    /// Jammer power at the receiver, dBm (None when absent).
    pub gnss_jam_dbm: Option<f64>,
    pub em_interference: bool,
    /// Weakest signal along the mission, dBm (None when absent).
    pub rssi_dbm_min: Option<f64>,
    pub uplink_ok: bool,
}

fn xyz(v: &Value) -> Option<Enu> {
    let a = v.as_array()?;
    let f = |i: usize| a.get(i).and_then(Value::as_f64);
    Some(Enu::new(f(0)?, f(1)?, f(2).unwrap_or(0.0)))
}

/// The scenario's moving obstacles; malformed entries are skipped.
pub fn moving_obstacles(s: &Scenario) -> Vec<MovingObstacle> {
    let Some(list) = s.extra.get("moving_obstacles").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|o| {
            Some(MovingObstacle {
                center: xyz(o.get("center")?)?,
                radius_m: o.get("radius_m")?.as_f64()?,
                velocity: o.get("vel").and_then(xyz).unwrap_or_default(),
            })
        })
        .collect()
}

/// The scenario's swarm block, or a single aircraft when absent.
pub fn swarm(s: &Scenario) -> SwarmSpec {
    let block = s.extra.get("swarm");
    let get = |k: &str| block.and_then(|b| b.get(k));
    SwarmSpec {
        enabled: get("enabled").and_then(Value::as_bool).unwrap_or(false),
        size: get("size").and_then(Value::as_u64).unwrap_or(1) as usize,
        roles: get("roles")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        separation_min_m: get("inter_uav_sep_min_m")
            .and_then(Value::as_f64)
            .unwrap_or(25.0),
    }
}

/// The emitter and comms flags.
pub fn emitter_flags(s: &Scenario) -> EmitterFlags {
    let env = &s.environment.extra;
    let comms = s.comms.as_ref().map(|c| &c.extra);
    EmitterFlags {
        gnss_multipath: env
            .get("gnss_multipath")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        gnss_jam_dbm: env.get("gnss_jam_dbm").and_then(Value::as_f64),
        em_interference: env
            .get("em_interference")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        rssi_dbm_min: comms
            .and_then(|c| c.get("rssi_dbm_min"))
            .and_then(Value::as_f64),
        uplink_ok: comms
            .and_then(|c| c.get("uplink_ok"))
            .and_then(Value::as_bool)
            .unwrap_or(true),
    }
}

/// Names of the on-board sensors the scenario lists as fitted (`uav.sensors`), in file order,
/// followed by payload ids (or types).
pub fn sensor_names(s: &Scenario) -> Vec<String> {
    let mut out: Vec<String> = s
        .uav
        .extra
        .get("sensors")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(_, v)| v.as_bool().unwrap_or(false))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    for p in &s.uav.payloads {
        if let Some(name) = p
            .get("id")
            .or_else(|| p.get("type"))
            .and_then(Value::as_str)
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Power drawn by a payload when active, watts (0 when not given).
pub fn payload_power_w(s: &Scenario, name: &str) -> f64 {
    s.uav
        .payloads
        .iter()
        .find(|p| {
            p.get("id").and_then(Value::as_str) == Some(name)
                || p.get("type").and_then(Value::as_str) == Some(name)
        })
        .and_then(|p| p.get("power_W"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
}
