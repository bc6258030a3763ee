//! Hostile policies for robustness tests: they implement [`Policy`](super::Policy) like any
//! model, and the closed loop must keep the vehicle safe whatever they ask.
//!
//! - [`RandomPolicy`]: random tools with random (sometimes malformed) arguments, seeded;
//! - [`MaliciousPolicy`]: knows the scenario and aims at harm — no-fly zones, out of the fence,
//!   absurd altitudes, at traffic, draining the battery, flooding commands, tools that would
//!   disarm in the air.
//!
//! Both are deterministic for a seed, so a violation found is replayed exactly.

mod malicious;
mod random;
mod rng;
mod targets;

pub use malicious::{Attack, MaliciousPolicy};
pub use random::RandomPolicy;
pub use rng::SplitMix64;
pub use targets::Targets;

use super::decision::DecisionContext;

/// Whether the vehicle flies now, as the policy sees it.
fn airborne(ctx: &DecisionContext) -> bool {
    ctx.now.snapshot.is_airborne()
}
