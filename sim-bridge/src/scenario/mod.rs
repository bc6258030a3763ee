//! Scenarios: the loader for UAVBench JSON, the seeded generator of the same shape, the fixed
//! 50-scenario suite, the swarm scenarios and a printable summary.

mod generate;
mod load;
mod suite;
mod summary;
mod swarm_suite;

pub use generate::{
    Density, MissionType, NetworkStress, ScenarioSpec, WeatherKind, generate_scenario,
    scenario_to_json,
};
pub use load::{
    EmitterFlags, MovingObstacle, SwarmSpec, emitter_flags, moving_obstacles, parse_scenario,
    payload_power_w, read_scenario, sensor_names, swarm,
};
pub use suite::{
    REGENERATE_COMMAND, SUITE_SEED, SUITE_SIZE, suite_file_name, suite_files, suite_scenario,
    suite_spec, write_suite,
};
pub use summary::{ScenarioSummary, zone_lines};
pub use swarm_suite::{SWARM_REGENERATE_COMMAND, swarm_suite_files, write_swarm_suite};
