//! Every JSON Schema the project publishes, generated from the types. `configs/schema/` holds a
//! checked-in copy; a test keeps it current.

use crate::config::Config;
use crate::episode::Episode;
use crate::protocol::{agent_turn_schema, catalogue, mcp_tools_list, schema_of};
use crate::record::RecordLine;
use crate::scenario::Scenario;
use serde_json::Value;

/// `(relative file name, document)` for every published schema, in a fixed order.
pub fn all_schemas() -> Vec<(String, Value)> {
    let cat = catalogue();
    let mut out = vec![
        ("config.schema.json".to_string(), schema_of::<Config>()),
        ("scenario.schema.json".to_string(), schema_of::<Scenario>()),
        ("episode.schema.json".to_string(), schema_of::<Episode>()),
        (
            "agent-turn.schema.json".to_string(),
            agent_turn_schema(&cat),
        ),
        (
            "record-line.schema.json".to_string(),
            schema_of::<RecordLine>(),
        ),
        ("mcp-tools-list.json".to_string(), mcp_tools_list(&cat)),
        (
            "swarm.schema.json".to_string(),
            schema_of::<crate::swarm::SwarmFileToml>(),
        ),
    ];
    for t in &cat {
        out.push((
            format!("tools/{}.args.schema.json", t.name),
            t.args_schema.clone(),
        ));
        out.push((
            format!("tools/{}.result.schema.json", t.name),
            t.result_schema.clone(),
        ));
    }
    out
}

/// Pretty JSON with a trailing newline, as checked in.
pub fn render(doc: &Value) -> String {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s
}
