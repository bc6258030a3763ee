//! The fixed suite of 50 generated scenarios checked in under `configs/scenarios/`, mirroring
//! the paper's 50 episodes per domain: ten of each mission type, with weather, density and
//! network stress cycled so every level appears.

use super::generate::{
    Density, MissionType, NetworkStress, ScenarioSpec, WeatherKind, generate_scenario,
    scenario_to_json,
};
use crate::error::SimError;
use alpha3_core::scenario::Scenario;
use std::path::Path;

/// Number of scenarios in the suite.
pub const SUITE_SIZE: usize = 50;

/// Base seed of the suite; scenario `i` uses `SUITE_SEED + i`. Changing it changes every file.
pub const SUITE_SEED: u64 = 0xA1FA_3000;

/// How to regenerate the checked-in files (printed when they drift).
pub const REGENERATE_COMMAND: &str =
    "ALPHA3_REGENERATE_SCENARIOS=1 cargo test -p alpha3-sim --test scenario_suite";

/// The spec of suite scenario `index`.
pub fn suite_spec(index: usize) -> ScenarioSpec {
    ScenarioSpec {
        seed: SUITE_SEED + index as u64,
        name: None,
        mission: Some(MissionType::ALL[index % MissionType::ALL.len()]),
        weather: Some(WeatherKind::ALL[(index / 5) % WeatherKind::ALL.len()]),
        density: Some(Density::ALL[(index / 2) % Density::ALL.len()]),
        stress: Some(NetworkStress::ALL[(index / 3) % NetworkStress::ALL.len()]),
        faults: None,
    }
}

/// File name of suite scenario `index`: `sc-0000.json` … `sc-0049.json`.
pub fn suite_file_name(index: usize) -> String {
    format!("sc-{index:04}.json")
}

/// Suite scenario `index`, named `sc-NNNN_<mission>_<airspace>_<weather>`.
pub fn suite_scenario(index: usize) -> Scenario {
    let spec = suite_spec(index);
    let mut s = generate_scenario(&spec);
    let airspace = s
        .environment
        .airspace
        .clone()
        .unwrap_or_else(|| "open".into());
    let weather = spec.weather.map(WeatherKind::as_str).unwrap_or("clear");
    s.name = format!("sc-{index:04}_{}_{airspace}_{weather}", s.mission.kind);
    s
}

/// Every suite file as (file name, JSON text).
pub fn suite_files() -> Result<Vec<(String, String)>, SimError> {
    (0..SUITE_SIZE)
        .map(|i| Ok((suite_file_name(i), scenario_to_json(&suite_scenario(i))?)))
        .collect()
}

/// Writes the suite into `dir` (created if missing).
pub fn write_suite(dir: &Path) -> Result<(), SimError> {
    let io = |source| SimError::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    for (name, text) in suite_files()? {
        let path = dir.join(&name);
        std::fs::write(&path, text).map_err(|source| SimError::Io { path, source })?;
    }
    Ok(())
}
