//! Per-turn steering of an LLM policy: what the runtime knows of the mission now
//! ([`MissionFacts`]), the actions whose cheap preconditions hold in it ([`admissible_actions`],
//! written as a turn grammar by [`Narrowing`]), and the steered prompt ([`steered_messages`]):
//! a compact state block ([`state_block`]) with worked examples in its format
//! ([`STEERED_EXAMPLES`]). The grammar is an optimisation for small models, never a safety
//! layer: the gate still judges every action.

mod admissible;
mod examples;
mod facts;
mod prompt;
mod state_block;
#[cfg(test)]
mod testkit;
mod turn_grammar;

pub use admissible::{
    Admissible, Follows, MAX_WAYPOINTS, MIN_ADMISSIBLE, admissible_actions, narrowed_schema,
};
pub use examples::STEERED_EXAMPLES;
pub use facts::MissionFacts;
pub use prompt::{steered_header, steered_messages};
pub use state_block::state_block;
pub use turn_grammar::{Narrowing, action_text};
