//! The catalogue's MCP tools as MCP `Tool`s, and a call's reply as a `CallToolResult`.

use super::call::CallReply;
use alpha3_core::protocol::tools::CommandStatus;
use alpha3_core::protocol::{ToolClass, ToolKind, ToolSpec};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;

/// The MCP tools of `catalogue` (A2A tasks are not MCP tools), with their argument and result
/// schemas as the catalogue publishes them (`configs/schema/mcp-tools-list.json`).
pub fn tools(catalogue: &[ToolSpec]) -> Vec<Tool> {
    catalogue
        .iter()
        .filter(|t| t.kind == ToolKind::Mcp)
        .map(|t| {
            let mut annotations = ToolAnnotations::new();
            annotations.read_only_hint = Some(t.class == ToolClass::Monitoring);
            annotations.destructive_hint = Some(false);
            Tool::new(t.name, t.description, object(&t.args_schema))
                .with_raw_output_schema(Arc::new(object(&t.result_schema)))
                .with_annotations(annotations)
        })
        .collect()
}

fn object(schema: &Value) -> JsonObject {
    schema.as_object().cloned().unwrap_or_default()
}

/// The MCP result of a reply: the tool's result as structured content (and as text), an error
/// result (`isError`) for a refusal — the gate's findings' ids and reasons first, in words —
/// and the telemetry after the call as a second text block.
pub fn result(reply: CallReply) -> CallToolResult {
    match reply {
        CallReply::Observed {
            result,
            refused,
            telemetry,
        } => {
            let summary = refused.then(|| refusal_text(&result));
            let mut out = if refused {
                CallToolResult::structured_error(result)
            } else {
                CallToolResult::structured(result)
            };
            if let Some(s) = summary {
                out.content.insert(0, ContentBlock::text(s));
            }
            out.content
                .push(ContentBlock::text(format!("telemetry: {telemetry}")));
            out
        }
        CallReply::Rejected { error } => CallToolResult::error(vec![ContentBlock::text(format!(
            "rejected by the schema check, not run: {error}"
        ))]),
        CallReply::Refused { reason } => CallToolResult::error(vec![ContentBlock::text(format!(
            "refused, not run: {reason}"
        ))]),
        CallReply::NotRun { reason } => {
            CallToolResult::error(vec![ContentBlock::text(format!("not run: {reason}"))])
        }
    }
}

/// "denied: <message>; <id>: <reason> (limit L, measured M); …". Only a refusal comes here,
/// and a refusal always has its status.
fn refusal_text(result: &Value) -> String {
    let status = CommandStatus::of(result).map_or("refused", CommandStatus::as_str);
    let message = result.get("message").and_then(Value::as_str).unwrap_or("");
    let mut text = format!("{status}: {message}");
    for f in result
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = f.get("id").and_then(Value::as_str).unwrap_or("?");
        let reason = f.get("reason").and_then(Value::as_str).unwrap_or("");
        text.push_str(&format!("; {id}: {reason}"));
        if let (Some(l), Some(m)) = (f.get("limit"), f.get("measured")) {
            text.push_str(&format!(" (limit {l}, measured {m})"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::protocol::{catalogue, mcp_tools_list};
    use serde_json::json;

    #[test]
    fn the_tools_are_the_published_tools_list() {
        let published = mcp_tools_list(&catalogue());
        let ours = tools(&catalogue());
        let names: Vec<&str> = ours.iter().map(|t| t.name.as_ref()).collect();
        let want: Vec<&str> = published["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, want);
        for (t, p) in ours.iter().zip(published["tools"].as_array().unwrap()) {
            assert_eq!(Value::Object((*t.input_schema).clone()), p["inputSchema"]);
            assert_eq!(
                t.output_schema
                    .as_ref()
                    .map(|s| Value::Object((**s).clone())),
                Some(p["outputSchema"].clone())
            );
        }
    }

    #[test]
    fn a_denial_is_an_error_result_naming_each_finding() {
        let r = result(CallReply::observed(
            json!({"status": "denied", "message": "go_to denied by the safety gate",
                   "findings": [{"id": "gate.no_fly.static", "reason": "path crosses a zone",
                                 "limit": 0.0, "measured": 12.5}]}),
            json!({"armed": true}),
        ));
        assert_eq!(r.is_error, Some(true));
        let first = serde_json::to_value(&r.content[0]).unwrap();
        let text = first["text"].as_str().unwrap();
        assert!(
            text.contains("gate.no_fly.static: path crosses a zone"),
            "{text}"
        );
        assert_eq!(r.structured_content.unwrap()["status"], "denied");
    }

    #[test]
    fn a_schema_failure_and_an_ended_session_are_errors_without_structure() {
        let r = result(CallReply::Rejected {
            error: "bad".into(),
        });
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let r = result(CallReply::NotRun {
            reason: "ended".into(),
        });
        assert_eq!(r.is_error, Some(true));
    }
}
