//! The agent's protocol: the tool catalogue with its schemas, and the shape of an agent turn.
//! The LLM's text is untrusted input; parsing and repair live here too (see the policy issue).

mod catalogue;
pub mod mission_tools;
mod parse;
mod prompt;
pub mod tools;
mod turn;
mod turn_schema;

pub use catalogue::{
    ToolClass, ToolKind, ToolSpec, a2a_tasks_list, catalogue, find, mcp_tools_list, schema_of,
};
pub use mission_tools::mission_tools;
pub use parse::{SchemaBuildError, TurnError, TurnParser, extract_json_object};
pub use prompt::{
    ChatMessage, Exchange, PromptContext, Role, Situation, ToolObservation, num, one_line, render,
    render_header, render_link, render_situation, render_snapshot, render_turn, repair_message,
    signature,
};
pub use turn::{Action, AgentTurn};
pub use turn_schema::agent_turn_schema;
