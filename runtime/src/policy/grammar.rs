//! The schema a backend constrains decoding with: the strict turn schema, tightened so that a
//! small model cannot wander — bounded strings and arrays, a snake_case intent, at least one
//! action, no `null` alternatives and no annotations. Every turn it admits is valid under the
//! strict schema, which the parser still checks.

use alpha3_core::protocol::{ToolSpec, agent_turn_schema};
use serde_json::{Map, Value, json};

/// Longest free string (a sensor name, a peer id, a status) the grammar admits.
pub const MAX_FREE_STRING: u64 = 32;
/// Longest free array (a planned path, an area) the grammar admits.
pub const MAX_FREE_ITEMS: u64 = 6;
/// Most actions per turn the grammar admits.
pub const MAX_ACTIONS: u64 = 4;

/// The tightened turn schema of `catalogue`.
pub fn constrained_turn_schema(catalogue: &[ToolSpec]) -> Value {
    let mut s = agent_turn_schema(catalogue);
    tighten(&mut s);
    if let Some(props) = s.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert(
            "intent".into(),
            json!({"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$"}),
        );
        if let Some(actions) = props.get_mut("actions").and_then(Value::as_object_mut) {
            actions.insert("minItems".into(), json!(1));
            actions.insert("maxItems".into(), json!(MAX_ACTIONS));
        }
    }
    s
}

/// The same, with llguidance's options: compact JSON (no whitespace), so the text a model
/// produces is the canonical rendering and the KV cache stays valid across turns.
pub fn llguidance_schema(catalogue: &[ToolSpec]) -> Value {
    let mut s = constrained_turn_schema(catalogue);
    if let Some(o) = s.as_object_mut() {
        o.insert(
            "x-guidance".into(),
            json!({"whitespace_flexible": false, "item_separator": ",", "key_separator": ":"}),
        );
    }
    s
}

fn tighten(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for k in ["description", "title", "format", "default", "$schema"] {
                o.remove(k);
            }
            drop_null_type(o);
            let ty = o.get("type").and_then(Value::as_str).map(str::to_owned);
            let free = !["enum", "const", "pattern", "maxLength"]
                .iter()
                .any(|k| o.contains_key(*k));
            match ty.as_deref() {
                Some("string") if free => {
                    o.insert("maxLength".into(), json!(MAX_FREE_STRING));
                }
                Some("array") if !o.contains_key("maxItems") => {
                    o.insert("maxItems".into(), json!(MAX_FREE_ITEMS));
                }
                _ => {}
            }
            for (_, child) in o.iter_mut() {
                tighten(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tighten),
        _ => {}
    }
}

/// `"type": ["number", "null"]` → `"type": "number"`: an absent optional is shorter than null.
fn drop_null_type(o: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = o.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        let new = match kept.len() {
            1 => kept.into_iter().next().unwrap_or(Value::Null),
            _ => Value::Array(kept),
        };
        o.insert("type".into(), new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::protocol::catalogue;

    #[test]
    fn every_admitted_example_is_strictly_valid() {
        let c = catalogue();
        let tight = jsonschema::validator_for(&constrained_turn_schema(&c)).unwrap();
        let strict = jsonschema::validator_for(&agent_turn_schema(&c)).unwrap();
        let good = json!({"intent": "climb", "actions": [
            {"type": "mcp", "name": "set_waypoint", "args": {"waypoint": {"x": 1, "y": 2, "z": 30}}},
            {"type": "a2a", "task": "status_update", "to": "gcs", "payload": {"status": "ok"}}
        ]});
        assert!(tight.is_valid(&good) && strict.is_valid(&good));
        for bad in [
            json!({"intent": "Climb now", "actions": [{"type": "mcp", "name": "hold", "args": {}}]}),
            json!({"intent": "climb", "actions": []}),
            json!({"intent": "x", "actions": [{"type": "mcp", "name": "hold", "args": {"duration_s": null}}]}),
            json!({"intent": "x", "actions": [{"type": "mcp", "name": "activate_sensor", "args": {"sensor": "a".repeat(40)}}]}),
        ] {
            assert!(!tight.is_valid(&bad), "{bad}");
        }
        let text = constrained_turn_schema(&c).to_string();
        assert!(!text.contains("\"null\"") && !text.contains("description"));
    }
}
