//! The floor baselines every leaderboard shows next to the models (issue 32): what doing next
//! to nothing scores, flown on the same scenarios and seeds through the same gate.
//!
//! - [`HoverPolicy`] takes off, holds where it is, and lands at home on its last turn (or
//!   sooner when the battery nears the reserve): the null baseline peers report beside every
//!   model.
//! - [`RandomPolicy`] proposes well-formed turns — catalogue tools with arguments of the right
//!   types in plausible ranges (waypoints inside the mission's area and altitude band, fitted
//!   sensors, authorised landing sites) — drawn from a stream seeded by the episode's seed, so a
//!   seed flies the same turns again. The gate refuses what is unsafe; what is left is chance.
//!
//! Neither reads the operator or states an outcome (their claims are silent).

mod hover;
mod random;

pub use hover::HoverPolicy;
pub use random::RandomPolicy;

use super::brief::EpisodeBrief;

/// The height a baseline flies at: the mission's first waypoint's, kept inside the band.
fn cruise_altitude(episode: &EpisodeBrief<'_>) -> f64 {
    let a = &episode.scenario.airspace;
    let (lo, hi) = (a.altitude_agl_min_m, a.altitude_agl_max_m);
    let wanted = episode
        .scenario
        .mission
        .waypoints
        .first()
        .map_or((lo + hi) / 2.0, |w| w[2]);
    if lo <= hi {
        wanted.clamp(lo, hi)
    } else {
        wanted
    }
}

/// Agent turns the episode allows (every other dialogue turn is the operator's).
fn agent_turns(episode: &EpisodeBrief<'_>) -> u32 {
    (episode.settings.max_turns / 2).max(1)
}
