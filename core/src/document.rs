//! Checking a whole document — config, scenario, episode, agent turn or flight record — the way
//! `alpha3 validate` reports it: the JSON path inside the file and the rule broken.
//!
//! Order: syntax (with line and column), then the JSON Schema (path and keyword), then the typed
//! parse, then the cross-field rules the schema cannot express.

use crate::config::Config;
use crate::episode::{Episode, structure_problems};
use crate::protocol::{AgentTurn, agent_turn_schema, catalogue, schema_of};
use crate::record::{RecordLine, parse_record};
use crate::scenario::{Scenario, scenario_problems, scenario_size_problem};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    Config,
    Scenario,
    Episode,
    AgentTurn,
    FlightRecord,
    /// A JSON Schema document (checked against the draft 2020-12 meta-schema).
    JsonSchema,
    /// An MCP `tools/list` result.
    ToolsList,
    /// A swarm file (`alpha3 swarm --swarm`).
    Swarm,
}

impl DocumentKind {
    pub fn name(self) -> &'static str {
        match self {
            DocumentKind::Config => "config",
            DocumentKind::Scenario => "scenario",
            DocumentKind::Episode => "episode",
            DocumentKind::AgentTurn => "agent turn",
            DocumentKind::FlightRecord => "flight record",
            DocumentKind::JsonSchema => "JSON Schema",
            DocumentKind::ToolsList => "MCP tools/list",
            DocumentKind::Swarm => "swarm file",
        }
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON pointer inside the document (`/dialogue/3/speaker`); empty for the whole document.
    pub pointer: String,
    /// The rule: a JSON Schema keyword (`type`, `required`, `enum`, …), `syntax`, or a named
    /// cross-field rule (`alternation`, `return_altitude_in_band`, …).
    pub rule: String,
    pub message: String,
    /// 1-based line (and column) where the text locates it.
    pub line: Option<(usize, usize)>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        match self.line {
            Some((l, c)) => write!(
                f,
                "{at} (line {l}, column {c}): {} [rule: {}]",
                self.message, self.rule
            ),
            None => write!(f, "{at}: {} [rule: {}]", self.message, self.rule),
        }
    }
}

fn problem(
    pointer: impl Into<String>,
    rule: impl Into<String>,
    message: impl Into<String>,
) -> Problem {
    Problem {
        pointer: pointer.into(),
        rule: rule.into(),
        message: message.into(),
        line: None,
    }
}

/// Guesses the kind from the file name and, for JSON, the top-level keys.
pub fn detect_kind(file_name: &str, text: &str) -> Option<DocumentKind> {
    let lower = file_name.to_ascii_lowercase();
    if lower.ends_with(".toml") {
        // A swarm file names its vehicles and their common origin; a config has neither.
        if text.contains("[[vehicle]]") && text.contains("origin_lat_deg") {
            return Some(DocumentKind::Swarm);
        }
        return Some(DocumentKind::Config);
    }
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
        return Some(DocumentKind::FlightRecord);
    }
    if lower.ends_with(".schema.json") {
        return Some(DocumentKind::JsonSchema);
    }
    if lower.ends_with("tools-list.json") {
        return Some(DocumentKind::ToolsList);
    }
    // Look at the keys without requiring the JSON to be complete.
    let has = |key: &str| text.contains(&format!("\"{key}\""));
    if has("dialogue") || has("_meta") || has("initial_state") {
        Some(DocumentKind::Episode)
    } else if has("airspace") && (has("mission") || has("spawn")) {
        Some(DocumentKind::Scenario)
    } else if has("intent") && has("actions") {
        Some(DocumentKind::AgentTurn)
    } else {
        None
    }
}

/// The problem with a document of `kind` that is `bytes` long, before it is read: a scenario
/// over its size cap ([`crate::scenario::limits::MAX_SCENARIO_BYTES`]).
pub fn size_problem(kind: DocumentKind, bytes: u64) -> Option<Problem> {
    match kind {
        DocumentKind::Scenario => {
            scenario_size_problem(bytes).map(|p| problem(p.pointer, p.rule, p.message))
        }
        _ => None,
    }
}

/// Every problem of `text` read as `kind`; empty when valid.
pub fn check_text(kind: DocumentKind, text: &str) -> Vec<Problem> {
    if let Some(p) = size_problem(kind, text.len() as u64) {
        return vec![p];
    }
    match kind {
        DocumentKind::Config => check_toml(DocumentKind::Config, text),
        DocumentKind::Swarm => check_toml(DocumentKind::Swarm, text),
        DocumentKind::FlightRecord => check_record(text),
        // The loaders' own function, so what passes here is what they fly.
        DocumentKind::Scenario => crate::scenario::scenario_from_text(text)
            .err()
            .unwrap_or_default(),
        DocumentKind::Episode
        | DocumentKind::AgentTurn
        | DocumentKind::JsonSchema
        | DocumentKind::ToolsList => match serde_json::from_str::<Value>(text) {
            Ok(v) => check_value(kind, &v),
            Err(e) => vec![Problem {
                pointer: String::new(),
                rule: "syntax".into(),
                message: format!("not valid JSON: {e}"),
                line: Some((e.line(), e.column())),
            }],
        },
    }
}

/// The schema `kind` is checked against.
pub fn schema_for(kind: DocumentKind) -> Value {
    match kind {
        DocumentKind::Config => schema_of::<Config>(),
        DocumentKind::Scenario => schema_of::<Scenario>(),
        DocumentKind::Episode => schema_of::<Episode>(),
        DocumentKind::AgentTurn => agent_turn_schema(&catalogue()),
        DocumentKind::FlightRecord => schema_of::<RecordLine>(),
        DocumentKind::JsonSchema => meta_schema_2020_12(),
        DocumentKind::ToolsList => tools_list_schema(),
        DocumentKind::Swarm => schema_of::<crate::swarm::SwarmFileToml>(),
    }
}

/// Refers to the draft 2020-12 meta-schema (bundled in the `jsonschema` crate; no network).
fn meta_schema_2020_12() -> Value {
    serde_json::json!({"$ref": "https://json-schema.org/draft/2020-12/schema"})
}

/// The shape of an MCP `tools/list` result.
fn tools_list_schema() -> Value {
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["tools"],
        "properties": {"tools": {"type": "array", "items": {
            "type": "object",
            "required": ["name", "inputSchema"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "description": {"type": "string"},
                "inputSchema": {"$ref": "https://json-schema.org/draft/2020-12/schema"},
                "outputSchema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}
            }
        }}}
    })
}

/// Schema problems of `value`, with instance paths and keywords.
pub fn schema_problems(schema: &Value, value: &Value) -> Vec<Problem> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => return vec![problem("", "schema", format!("internal schema error: {e}"))],
    };
    validator
        .iter_errors(value)
        .map(|e| {
            problem(
                e.instance_path().as_str(),
                e.kind().keyword(),
                e.to_string(),
            )
        })
        .collect()
}

fn typed<T: DeserializeOwned>(value: &Value) -> Result<T, Vec<Problem>> {
    serde_json::from_value(value.clone()).map_err(|e| vec![problem("", "type", e.to_string())])
}

/// Every problem of a JSON document of `kind`.
pub fn check_value(kind: DocumentKind, value: &Value) -> Vec<Problem> {
    let found = schema_problems(&schema_for(kind), value);
    if !found.is_empty() {
        return found;
    }
    let structural = |ps: Vec<crate::episode::StructureProblem>| -> Vec<Problem> {
        ps.into_iter()
            .map(|p| problem(p.pointer, p.rule, p.message))
            .collect()
    };
    match kind {
        DocumentKind::Episode => match typed::<Episode>(value) {
            Ok(e) => structural(structure_problems(&e)),
            Err(p) => p,
        },
        DocumentKind::Scenario => match typed::<Scenario>(value) {
            Ok(s) => structural(scenario_problems(&s)),
            Err(p) => p,
        },
        DocumentKind::AgentTurn => typed::<AgentTurn>(value).err().unwrap_or_default(),
        DocumentKind::Config => match typed::<Config>(value) {
            Ok(c) => c
                .validate()
                .into_iter()
                .map(|p| problem(p.pointer(), p.rule, p.message))
                .collect(),
            Err(p) => p,
        },
        DocumentKind::FlightRecord => typed::<RecordLine>(value).err().unwrap_or_default(),
        DocumentKind::Swarm => match typed::<crate::swarm::SwarmFileToml>(value) {
            Ok(f) => f
                .problems()
                .into_iter()
                .map(|(pointer, message)| problem(pointer, "swarm", message))
                .collect(),
            Err(p) => p,
        },
        DocumentKind::JsonSchema | DocumentKind::ToolsList => Vec::new(),
    }
}

/// A TOML document of `kind` (a config or a swarm file), checked as its JSON form.
fn check_toml(kind: DocumentKind, text: &str) -> Vec<Problem> {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            let line = e.span().map(|s| line_col(text, s.start));
            return vec![Problem {
                pointer: String::new(),
                rule: "syntax".into(),
                message: format!("not valid TOML: {}", e.message()),
                line,
            }];
        }
    };
    match serde_json::to_value(&table) {
        Ok(v) => check_value(kind, &v),
        Err(e) => vec![problem(
            "",
            "syntax",
            format!("TOML value not representable: {e}"),
        )],
    }
}

fn check_record(text: &str) -> Vec<Problem> {
    match parse_record(text) {
        Ok(r) if r.lines.is_empty() => vec![problem("", "non_empty", "the record has no lines")],
        Ok(r) if r.torn_tail => vec![Problem {
            pointer: String::new(),
            rule: "torn_tail".into(),
            message: format!(
                "the last line is torn (an interrupted write); {} earlier lines are sound",
                r.lines.len()
            ),
            line: Some((r.lines.len() + 1, 1)),
        }],
        Ok(_) => Vec::new(),
        Err(e) => vec![problem("", "record", e.to_string())],
    }
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_swarm_file_is_told_from_a_config_and_checked_as_one() {
        let good = "name = \"s\"\norigin_lat_deg = 47.0\norigin_lon_deg = 8.0\norigin_alt_amsl_m = 400.0\n\
                    [[vehicle]]\nname = \"a\"\nscenario = \"a.json\"\n\
                    [[vehicle]]\nname = \"b\"\nscenario = \"b.json\"\nstart_delay_s = 5.0\n";
        assert_eq!(detect_kind("s.toml", good), Some(DocumentKind::Swarm));
        assert_eq!(
            detect_kind("alpha3.toml", "[vehicle]\nname = \"x\"\n"),
            Some(DocumentKind::Config)
        );
        assert!(check_text(DocumentKind::Swarm, good).is_empty());
        let one = good.replace(
            "[[vehicle]]\nname = \"b\"\nscenario = \"b.json\"\nstart_delay_s = 5.0\n",
            "",
        );
        let p = check_text(DocumentKind::Swarm, &one);
        assert!(p.iter().any(|p| p.message.contains("2 to 10")), "{p:?}");
        let stray = good.replace("name = \"s\"", "name = \"s\"\nspeed = 2");
        assert!(!check_text(DocumentKind::Swarm, &stray).is_empty());
        let twice = good.replace("name = \"b\"", "name = \"a\"");
        let p = check_text(DocumentKind::Swarm, &twice);
        assert!(p.iter().any(|p| p.pointer == "/vehicle/1/name"), "{p:?}");
    }

    use super::*;

    #[test]
    fn a_scenario_over_the_size_cap_is_refused_without_parsing() {
        // Not JSON at all: only its size is looked at.
        let text = "x".repeat(crate::scenario::limits::MAX_SCENARIO_BYTES as usize + 1);
        let p = check_text(DocumentKind::Scenario, &text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].rule, "max_size");
        assert!(size_problem(DocumentKind::Episode, u64::MAX).is_none());
    }
}
