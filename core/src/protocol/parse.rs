//! Parses an LLM's completion into an [`AgentTurn`]. The text is untrusted input: any string
//! yields either a turn that satisfies the strict turn schema or a [`TurnError`] whose message is
//! specific enough to quote back to the model in a repair prompt. Nothing here panics.

use super::catalogue::{ToolKind, ToolSpec};
use super::turn::AgentTurn;
use super::turn_schema::agent_turn_schema;
use jsonschema::Validator;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// At most this many `{` positions are tried as the start of the answer (bounds the work on
/// adversarial text).
const MAX_CANDIDATES: usize = 32;
/// At most this many problems are reported (a repair prompt stays short).
const MAX_PROBLEMS: usize = 4;

/// Why a completion is not a valid agent turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    #[error("the answer is empty")]
    Empty,
    #[error("no JSON object found in the answer")]
    NoJson,
    #[error("the JSON is malformed: {0}")]
    Syntax(String),
    #[error("the speaker is {0:?}; only the agent answers here")]
    WrongSpeaker(String),
    #[error("actions[{index}] uses unknown tool {name:?}; use one of: {known}")]
    UnknownTool {
        index: usize,
        name: String,
        known: String,
    },
    #[error("the turn does not match the schema: {}", .0.join("; "))]
    Schema(Vec<String>),
}

/// The schema could not be compiled (a bug in the catalogue, not in the model's answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot compile the schema of {what}: {message}")]
pub struct SchemaBuildError {
    pub what: String,
    pub message: String,
}

/// Parses and validates completions against one catalogue. Build it once (schema compilation
/// is the expensive part) and reuse it for every answer.
pub struct TurnParser {
    turn: Validator,
    /// Per tool: (kind, validator of a whole action naming it), for targeted error messages.
    actions: HashMap<&'static str, (ToolKind, Validator)>,
    known: String,
}

impl fmt::Debug for TurnParser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TurnParser")
            .field("tools", &self.actions.len())
            .finish_non_exhaustive()
    }
}

impl TurnParser {
    /// Compiles the strict turn schema of `catalogue` and one action schema per tool.
    pub fn new(catalogue: &[ToolSpec]) -> Result<Self, SchemaBuildError> {
        let schema = agent_turn_schema(catalogue);
        let turn = compile("the agent turn", &schema)?;
        let branches = schema
            .pointer("/properties/actions/items/anyOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut actions = HashMap::new();
        for (tool, branch) in catalogue.iter().zip(branches) {
            actions.insert(tool.name, (tool.kind, compile(tool.name, &branch)?));
        }
        let known = catalogue
            .iter()
            .map(|t| t.name)
            .collect::<Vec<_>>()
            .join(", ");
        Ok(Self {
            turn,
            actions,
            known,
        })
    }

    /// Finds the answer in `text` (tolerating code fences and prose around it), then validates
    /// it against the strict turn schema.
    pub fn parse(&self, text: &str) -> Result<AgentTurn, TurnError> {
        let value = extract_json_object(text)?;
        self.validate(value)
    }

    /// Validates an already-parsed JSON value as an agent turn.
    pub fn validate(&self, value: Value) -> Result<AgentTurn, TurnError> {
        if let Some(speaker) = value.get("speaker") {
            let s = speaker.as_str().unwrap_or_default();
            if s != "agent" {
                return Err(TurnError::WrongSpeaker(clip(&speaker.to_string(), 40)));
            }
        }
        if let Some(actions) = value.get("actions").and_then(Value::as_array) {
            for (index, action) in actions.iter().enumerate() {
                if let Some(name) = action_name(action)
                    && !self.actions.contains_key(name)
                {
                    return Err(TurnError::UnknownTool {
                        index,
                        name: clip(name, 60),
                        known: self.known.clone(),
                    });
                }
            }
        }
        if !self.turn.is_valid(&value) {
            return Err(TurnError::Schema(self.problems(&value)));
        }
        serde_json::from_value(value)
            .map_err(|e| TurnError::Schema(vec![clip(&e.to_string(), 200)]))
    }

    /// Readable problems: the turn's own errors, except that an action's "matches none of the
    /// branches" is replaced by the errors against the branch of the tool it names.
    fn problems(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.turn.iter_errors(value) {
            let path = e.instance_path().to_string();
            if is_action_path(&path) {
                continue;
            }
            push_problem(&mut out, &path, &e.to_string());
        }
        let actions = value.get("actions").and_then(Value::as_array);
        for (i, action) in actions.into_iter().flatten().enumerate() {
            let Some((_, v)) = action_name(action).and_then(|n| self.actions.get(n)) else {
                if !action.is_object() || action_name(action).is_none() {
                    push_problem(
                        &mut out,
                        &format!("/actions/{i}"),
                        "an action needs \"type\":\"mcp\" with \"name\", or \"type\":\"a2a\" with \"task\"",
                    );
                }
                continue;
            };
            for e in v.iter_errors(action) {
                let path = format!("/actions/{i}{}", e.instance_path());
                push_problem(&mut out, &path, &e.to_string());
            }
        }
        if out.is_empty() {
            out.push(String::from("not a valid agent turn"));
        }
        out
    }
}

fn compile(what: &str, schema: &Value) -> Result<Validator, SchemaBuildError> {
    jsonschema::validator_for(schema).map_err(|e| SchemaBuildError {
        what: what.to_owned(),
        message: e.to_string(),
    })
}

/// `/actions/<n>` exactly: where a failed `anyOf` over the tool branches is reported.
fn is_action_path(path: &str) -> bool {
    path.strip_prefix("/actions/")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

fn push_problem(out: &mut Vec<String>, path: &str, message: &str) {
    if out.len() >= MAX_PROBLEMS {
        return;
    }
    let path = if path.is_empty() { "/" } else { path };
    let p = format!("{path}: {}", clip(message, 160));
    if !out.contains(&p) {
        out.push(p);
    }
}

/// The tool or task an action names, if it says which kind it is.
fn action_name(action: &Value) -> Option<&str> {
    match action.get("type").and_then(Value::as_str)? {
        "mcp" => action.get("name").and_then(Value::as_str),
        "a2a" => action.get("task").and_then(Value::as_str),
        _ => None,
    }
}

/// The first JSON object in `text`: each `{` is tried in turn as its start, so a code fence,
/// leading prose or trailing text around the object do not matter.
pub fn extract_json_object(text: &str) -> Result<Value, TurnError> {
    if text.trim().is_empty() {
        return Err(TurnError::Empty);
    }
    let mut first_error = None;
    for (start, _) in text.match_indices('{').take(MAX_CANDIDATES) {
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v @ Value::Object(_))) => return Ok(v),
            Some(Ok(_)) | None => {}
            // Cut off before the object closes (a token limit): every later `{` is inside it,
            // so a nested object must not be mistaken for the answer.
            Some(Err(e)) if e.is_eof() => {
                return Err(TurnError::Syntax(format!(
                    "the answer ends before its JSON object does (too long?): {}",
                    clip(&e.to_string(), 120)
                )));
            }
            Some(Err(e)) => {
                if first_error.is_none() {
                    first_error = Some(clip(&e.to_string(), 160));
                }
            }
        }
    }
    Err(first_error.map_or(TurnError::NoJson, TurnError::Syntax))
}

/// At most `max` characters of `s`, marked when cut.
fn clip(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Action, catalogue};
    use proptest::prelude::*;
    use serde_json::json;

    fn parser() -> TurnParser {
        TurnParser::new(&catalogue()).unwrap()
    }

    const GOOD: &str = r#"{"intent":"climb","actions":[{"type":"mcp","name":"set_altitude","args":{"altitude_m":60}}]}"#;

    #[test]
    fn a_clean_answer_parses() {
        let t = parser().parse(GOOD).unwrap();
        assert_eq!(t.intent, "climb");
        assert_eq!(
            t.actions,
            vec![Action::mcp("set_altitude", json!({"altitude_m": 60}))]
        );
    }

    #[test]
    fn fences_and_prose_are_tolerated() {
        let p = parser();
        for text in [
            format!("```json\n{GOOD}\n```"),
            format!("Sure! Here is my answer: {GOOD} Hope it helps {{"),
            format!("answer: {{oops}} then {GOOD}"),
            format!("  \n{GOOD}<end_of_turn>"),
        ] {
            assert_eq!(p.parse(&text).unwrap().intent, "climb", "{text}");
        }
    }

    #[test]
    fn garbage_and_empty_answers_are_told_apart() {
        let p = parser();
        assert_eq!(p.parse(""), Err(TurnError::Empty));
        assert_eq!(p.parse(" \n\t"), Err(TurnError::Empty));
        assert_eq!(p.parse("I will take off now."), Err(TurnError::NoJson));
        assert!(matches!(
            p.parse(r#"{"intent": "x", "actions": [}"#),
            Err(TurnError::Syntax(_))
        ));
    }

    #[test]
    fn a_truncated_answer_is_not_mistaken_for_its_inner_object() {
        let cut = &GOOD[..GOOD.len() - 3];
        let err = parser().parse(cut).unwrap_err();
        assert!(
            matches!(&err, TurnError::Syntax(m) if m.contains("ends before")),
            "{err:?}"
        );
    }

    #[test]
    fn unknown_tools_and_wrong_speakers_are_named() {
        let p = parser();
        let err = p
            .parse(
                r#"{"intent":"x","actions":[{"type":"mcp","name":"disable_geofence","args":{}}]}"#,
            )
            .unwrap_err();
        assert!(
            matches!(&err, TurnError::UnknownTool { index: 0, name, .. } if name == "disable_geofence")
        );
        assert!(err.to_string().contains("set_waypoint"));
        let err = p
            .parse(r#"{"speaker":"user","intent":"x","actions":[]}"#)
            .unwrap_err();
        assert!(matches!(err, TurnError::WrongSpeaker(_)));
    }

    #[test]
    fn schema_problems_point_at_the_bad_argument() {
        let p = parser();
        let err = p
            .parse(r#"{"intent":"x","actions":[{"type":"mcp","name":"set_altitude","args":{"altitude_m":"high"}}]}"#)
            .unwrap_err();
        let TurnError::Schema(problems) = &err else {
            panic!("{err:?}")
        };
        assert!(
            problems
                .iter()
                .any(|m| m.starts_with("/actions/0/args/altitude_m:") && m.contains("number")),
            "{problems:?}"
        );
        let err = p.parse(r#"{"actions":[]}"#).unwrap_err();
        assert!(err.to_string().contains("intent"), "{err}");
        let err = p
            .parse(r#"{"intent":"x","actions":[{"name":"hold"}]}"#)
            .unwrap_err();
        assert!(err.to_string().contains("\"type\":\"mcp\""), "{err}");
    }

    #[test]
    fn extra_fields_are_refused() {
        let err = parser()
            .parse(r#"{"intent":"x","actions":[],"speaker":"agent"}"#)
            .unwrap_err();
        assert!(matches!(err, TurnError::Schema(_)), "{err:?}");
    }

    proptest! {
        #[test]
        fn any_string_yields_a_turn_or_an_error(s in ".{0,300}") {
            let _ = parser().parse(&s);
        }

        #[test]
        fn json_like_strings_never_panic(s in r#"[{}\[\]":,a-z0-9 .\-]{0,200}"#) {
            let p = parser();
            let _ = p.parse(&s);
            let _ = p.parse(&format!("{{\"intent\":\"x\",\"actions\":[{s}]}}"));
        }

        #[test]
        fn valid_turns_survive_any_surrounding_prose(pre in "[^{]{0,40}", post in ".{0,40}") {
            let t = parser().parse(&format!("{pre}{GOOD}{post}")).unwrap();
            prop_assert_eq!(t.intent, "climb");
        }
    }
}
