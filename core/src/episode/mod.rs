//! α3-Bench episodes: the published JSON format (AlphaBench `eval_runs/…/*.json`), read and
//! written without losing anything — fields we do not model are kept in `extra` maps.

mod state;
mod structure;
mod types;

pub use state::{Energy, Env, EpisodeAirspace, PolicyState, SafetyFlags, UavState, WorldState};
pub use structure::{StructureProblem, structure_problems};
pub use types::{Episode, EpisodeMeta, Observation, Speaker, Turn, Usage};
