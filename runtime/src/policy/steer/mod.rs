//! Per-turn steering of an LLM policy: what the runtime knows of the mission now
//! ([`MissionFacts`]), the actions whose cheap preconditions hold in it ([`admissible_actions`],
//! narrowed into a turn grammar by [`narrowed_schema`]), and a compact state block for the
//! prompt ([`state_block`]) with worked examples in its format ([`STEERED_EXAMPLES`]). The grammar is an optimisation for small models, never a safety
//! layer: the gate still judges every action.

mod admissible;
mod examples;
mod facts;
mod state_block;

pub use admissible::{MIN_ADMISSIBLE, admissible_actions, narrowed_schema};
pub use examples::STEERED_EXAMPLES;
pub use facts::MissionFacts;
pub use state_block::state_block;
