//! A swarm file: the vehicles of one swarm flight, each with its own scenario, placed in one
//! common frame whose origin is on the earth.
//!
//! ```toml
//! name = "cross-3"
//! origin_lat_deg = 47.397742
//! origin_lon_deg = 8.545594
//! origin_alt_amsl_m = 488.0
//!
//! [[vehicle]]
//! name = "uav-1"
//! scenario = "cross-3/uav-1.json"   # relative to this file
//! start_delay_s = 0.0               # swarm time before its runtime starts
//! ```
//!
//! Every scenario is in the common frame: its spawn point is where that vehicle stands at the
//! start (the autopilot's home is put there), its waypoints are where it flies.

use alpha3_core::frames::{Enu, Geo, LocalFrame};
use alpha3_core::scenario::Scenario;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Vehicles one swarm may have: one PX4 SITL instance each, on its own ports.
pub const MAX_VEHICLES: usize = 10;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SwarmToml {
    name: String,
    origin_lat_deg: f64,
    origin_lon_deg: f64,
    origin_alt_amsl_m: f64,
    vehicle: Vec<VehicleToml>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct VehicleToml {
    name: String,
    scenario: PathBuf,
    #[serde(default)]
    start_delay_s: f64,
}

/// One vehicle of the swarm.
#[derive(Debug, Clone)]
pub struct SwarmVehicle {
    pub name: String,
    pub scenario_path: PathBuf,
    pub scenario: Scenario,
    pub start_delay_s: f64,
    /// Where it stands at the start: its autopilot's home.
    pub home: Geo,
}

/// A swarm file, read and checked.
#[derive(Debug, Clone)]
pub struct SwarmFile {
    pub name: String,
    pub origin: Geo,
    pub vehicles: Vec<SwarmVehicle>,
}

/// Why a swarm file cannot be flown.
#[derive(Debug, thiserror::Error)]
pub enum SwarmFileError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl SwarmFile {
    pub fn read(path: &Path) -> Result<Self, SwarmFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| SwarmFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let invalid = |message: String| SwarmFileError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let raw: SwarmToml = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if !(raw.origin_lat_deg.abs() <= 90.0
            && raw.origin_lon_deg.abs() <= 180.0
            && raw.origin_alt_amsl_m.is_finite())
        {
            return Err(invalid("the origin is not a place on the earth".into()));
        }
        if raw.vehicle.len() < 2 || raw.vehicle.len() > MAX_VEHICLES {
            return Err(invalid(format!(
                "a swarm has 2 to {MAX_VEHICLES} vehicles, not {}",
                raw.vehicle.len()
            )));
        }
        let origin = Geo {
            lat_deg: raw.origin_lat_deg,
            lon_deg: raw.origin_lon_deg,
            alt_amsl_m: raw.origin_alt_amsl_m,
        };
        let frame = LocalFrame::new(origin);
        let base = path.parent().unwrap_or(Path::new("."));
        let mut vehicles = Vec::new();
        for v in raw.vehicle {
            if v.name.is_empty()
                || v.name.len() > 32
                || !v
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(invalid(format!(
                    "vehicle name {:?}: 1 to 32 letters, digits, '-' or '_'",
                    v.name
                )));
            }
            if vehicles.iter().any(|o: &SwarmVehicle| o.name == v.name) {
                return Err(invalid(format!("vehicle {} named twice", v.name)));
            }
            if !(v.start_delay_s.is_finite() && (0.0..=3600.0).contains(&v.start_delay_s)) {
                return Err(invalid(format!(
                    "vehicle {}: start_delay_s must be 0 to 3600",
                    v.name
                )));
            }
            let scenario_path = base.join(&v.scenario);
            let scenario = alpha3_sim::scenario::read_scenario(&scenario_path).map_err(|e| {
                invalid(format!(
                    "vehicle {}: {}: {e}",
                    v.name,
                    scenario_path.display()
                ))
            })?;
            let [x, y, _] = scenario.spawn.xyz;
            vehicles.push(SwarmVehicle {
                name: v.name,
                scenario_path,
                home: frame.to_geo(Enu::new(x, y, 0.0)),
                scenario,
                start_delay_s: v.start_delay_s,
            });
        }
        Ok(Self {
            name: raw.name,
            origin,
            vehicles,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// `text` as a swarm file beside the shipped scenarios.
    fn read(text: &str) -> Result<SwarmFile, SwarmFileError> {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = root().join("configs/swarm/cross-3");
        let text = text.replace("DIR", scenarios.to_str().unwrap());
        let path = dir.path().join("swarm.toml");
        std::fs::write(&path, text).unwrap();
        SwarmFile::read(&path)
    }

    const HEAD: &str = "name = \"t\"\norigin_lat_deg = 47.397742\norigin_lon_deg = 8.545594\norigin_alt_amsl_m = 488.0\n";

    fn vehicle(name: &str, file: &str, extra: &str) -> String {
        format!("[[vehicle]]\nname = \"{name}\"\nscenario = \"DIR/{file}\"\n{extra}")
    }

    #[test]
    fn the_shipped_swarm_reads_and_stands_each_vehicle_at_its_spawn() {
        let s = SwarmFile::read(&root().join("configs/swarm/cross-3.toml")).unwrap();
        assert_eq!(s.vehicles.len(), 3);
        let frame = LocalFrame::new(s.origin);
        let home = frame.to_enu(s.vehicles[1].home);
        assert!(
            (home.x - 200.0).abs() < 0.01 && home.y.abs() < 0.01,
            "{home:?}"
        );
        assert_eq!(s.vehicles[2].start_delay_s, 10.0);
    }

    #[test]
    fn a_broken_swarm_file_says_what_is_wrong() {
        let two = vehicle("a", "uav-1.json", "") + &vehicle("b", "uav-2.json", "");
        assert!(read(&format!("{HEAD}{two}")).is_ok());
        let err = |text: String| read(&text).unwrap_err().to_string();
        assert!(err(format!("{HEAD}speed = 1\n{two}")).contains("unknown field"));
        assert!(err(format!("{HEAD}{}", vehicle("a", "uav-1.json", ""))).contains("2 to 10"));
        let dup = vehicle("a", "uav-1.json", "") + &vehicle("a", "uav-2.json", "");
        assert!(err(format!("{HEAD}{dup}")).contains("named twice"));
        let bad =
            vehicle("a", "uav-1.json", "start_delay_s = -1.0\n") + &vehicle("b", "uav-2.json", "");
        assert!(err(format!("{HEAD}{bad}")).contains("start_delay_s"));
        let missing = vehicle("a", "uav-1.json", "") + &vehicle("b", "nope.json", "");
        assert!(err(format!("{HEAD}{missing}")).contains("nope.json"));
        let space = vehicle("a b", "uav-1.json", "") + &vehicle("b", "uav-2.json", "");
        assert!(err(format!("{HEAD}{space}")).contains("letters, digits"));
        let far = HEAD.replace("47.397742", "97.0");
        assert!(err(format!("{far}{two}")).contains("origin"));
    }
}
