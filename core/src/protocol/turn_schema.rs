//! The strict JSON Schema of an agent turn, built from the catalogue: every action must name a
//! catalogue tool (or task) and carry arguments valid for it. Used to validate an LLM's answer
//! and to constrain its decoding.

use super::catalogue::{ToolKind, ToolSpec};
use serde_json::{Map, Value, json};

fn without_meta(schema: &Value) -> Value {
    let mut s = schema.clone();
    if let Some(o) = s.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    s
}

/// A draft 2020-12 schema accepting exactly the turns that use `catalogue` correctly.
pub fn agent_turn_schema(catalogue: &[ToolSpec]) -> Value {
    let branches: Vec<Value> = catalogue
        .iter()
        .map(|t| match t.kind {
            ToolKind::Mcp => json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "name", "args"],
                "properties": {
                    "type": {"const": "mcp"},
                    "name": {"const": t.name},
                    "args": without_meta(&t.args_schema),
                }
            }),
            ToolKind::A2a => json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["type", "task", "to", "payload"],
                "properties": {
                    "type": {"const": "a2a"},
                    "task": {"const": t.name},
                    "to": {"type": "string", "minLength": 1},
                    "payload": without_meta(&t.args_schema),
                }
            }),
        })
        .collect();
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    root.insert("title".into(), json!("AgentTurn"));
    root.insert("type".into(), json!("object"));
    root.insert("additionalProperties".into(), json!(false));
    root.insert("required".into(), json!(["intent", "actions"]));
    root.insert(
        "properties".into(),
        json!({
            "intent": {"type": "string", "minLength": 1, "maxLength": 80},
            "actions": {"type": "array", "maxItems": 8, "items": {"anyOf": branches}},
        }),
    );
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::catalogue;

    #[test]
    fn accepts_catalogue_turns_and_rejects_others() {
        let schema = agent_turn_schema(&catalogue());
        let v = jsonschema::validator_for(&schema).unwrap();
        let good = json!({"intent": "climb", "actions": [
            {"type": "mcp", "name": "set_altitude", "args": {"altitude_m": 60}},
            {"type": "a2a", "task": "status_update", "to": "gcs", "payload": {"status": "climbing"}}
        ]});
        assert!(v.is_valid(&good));
        for bad in [
            json!({"intent": "x", "actions": [{"type": "mcp", "name": "disable_geofence", "args": {}}]}),
            json!({"intent": "x", "actions": [{"type": "mcp", "name": "set_altitude", "args": {"altitude_m": "high"}}]}),
            json!({"intent": "x", "actions": [], "speaker": "system"}),
            json!({"actions": []}),
        ] {
            assert!(!v.is_valid(&bad), "{bad}");
        }
    }
}
