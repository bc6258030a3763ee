//! UAVBench scenarios: the shape of `example-scenario.json` (airspace, no-fly cylinders, a moving
//! zone, traffic, faults, comms loss windows, mission waypoints, time budget). The loader keeps
//! every field it does not model, so a scenario round-trips. Coordinates: local metres, x east,
//! y north, z up. [`scenario_problems`] is what a scenario must keep to be flown, with the caps
//! and ranges of [`limits`].

pub mod limits;
mod problems;
mod ranges;
mod text;
mod types;
mod unique_keys;
mod validate;
mod zones;

pub use text::scenario_from_text;
pub use types::*;
pub use validate::{scenario_problems, scenario_size_problem};
