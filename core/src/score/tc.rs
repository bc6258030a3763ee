//! TC — Tool Consistency: the fraction of actions whose arguments validate against the tool's
//! schema and whose observation is consistent — it exists at the same index, names the same
//! tool (MCP) or task (A2A), validates against the result schema and, closed loop, the action
//! executed. 1 when there are no actions.
//!
//! Validators are compiled once per run ([`Schemas::compile`]): compiling a JSON Schema costs far
//! more than checking a value against it, and TC runs for every action of every episode.
//!
//! Published episodes use a free-form vocabulary whose argument and result shapes the models
//! invented (`set_altitude {"alt_m": 50}` → `{"value": "ack"}`); they never saw our catalogue's
//! schemas. So there, by default, every action is consistent when its observation exists at the
//! same index, names the same tool or task, and its arguments and result are JSON objects.
//! [`Vocabulary::PublishedWithCatalogue`] applies the catalogue's schemas to the published
//! actions whose names happen to be in the catalogue, for comparison.

use super::evidence::ClosedLoop;
use crate::episode::{Episode, Observation};
use crate::protocol::{Action, ToolKind, ToolSpec};
use jsonschema::Validator;
use serde_json::Value;
use std::collections::HashMap;

/// A schema of the catalogue did not compile (a bug in the catalogue, not in the input).
#[derive(Debug, thiserror::Error)]
#[error("the {which} schema of `{tool}` does not compile: {message}")]
pub struct SchemaError {
    pub tool: String,
    pub which: &'static str,
    pub message: String,
}

/// One tool's compiled validators.
#[derive(Debug)]
struct Compiled {
    kind: ToolKind,
    args: Validator,
    result: Validator,
}

/// The catalogue's argument and result validators, compiled once.
#[derive(Debug)]
pub struct Schemas {
    tools: HashMap<&'static str, Compiled>,
}

impl Schemas {
    pub fn compile(catalogue: &[ToolSpec]) -> Result<Self, SchemaError> {
        let compile = |tool: &ToolSpec, which: &'static str, schema: &Value| {
            jsonschema::validator_for(schema).map_err(|e| SchemaError {
                tool: tool.name.to_string(),
                which,
                message: e.to_string(),
            })
        };
        let mut tools = HashMap::with_capacity(catalogue.len());
        for t in catalogue {
            let compiled = Compiled {
                kind: t.kind,
                args: compile(t, "args", &t.args_schema)?,
                result: compile(t, "result", &t.result_schema)?,
            };
            tools.insert(t.name, compiled);
        }
        Ok(Self { tools })
    }

    /// Whether `action` names a catalogue tool of its kind and its arguments validate.
    pub fn arguments_valid(&self, action: &Action) -> bool {
        self.of(action)
            .is_some_and(|c| c.args.is_valid(action.arguments()))
    }

    /// The validators of `action`'s tool, when the catalogue has a tool of that name and kind.
    fn of(&self, action: &Action) -> Option<&Compiled> {
        let kind = if action.is_a2a() {
            ToolKind::A2a
        } else {
            ToolKind::Mcp
        };
        self.tools.get(action.name()).filter(|c| c.kind == kind)
    }
}

/// Which tool vocabulary an episode is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vocabulary {
    /// Closed loop: every action must be a catalogue tool and validate; unknown names are
    /// inconsistent.
    Catalogue,
    /// Published, free-form: shape checks only (module docs).
    Published,
    /// Published, with the catalogue's schemas applied to catalogue names.
    PublishedWithCatalogue,
}

/// TC of one episode.
pub fn tool_consistency(
    episode: &Episode,
    closed_loop: Option<&ClosedLoop>,
    schemas: &Schemas,
    vocabulary: Vocabulary,
) -> f64 {
    let mut total = 0usize;
    let mut good = 0usize;
    for (t, turn) in episode.dialogue.iter().enumerate() {
        for (i, action) in turn.actions.iter().enumerate() {
            total += 1;
            let executed = closed_loop.is_none_or(|ev| ev.executed(t, i));
            if executed && consistent(action, turn.obs.get(i), schemas, vocabulary) {
                good += 1;
            }
        }
    }
    if total == 0 {
        1.0
    } else {
        good as f64 / total as f64
    }
}

/// Whether one action and its observation are consistent (executed-ness aside).
pub fn consistent(
    action: &Action,
    obs: Option<&Observation>,
    schemas: &Schemas,
    vocabulary: Vocabulary,
) -> bool {
    let Some(obs) = obs else { return false };
    let (named, body) = match action {
        Action::Mcp { name, .. } => (obs.tool.as_deref() == Some(name), obs.result.as_ref()),
        Action::A2a { task, .. } => (obs.task.as_deref() == Some(task), obs.payload.as_ref()),
    };
    if !named {
        return false;
    }
    let compiled = match vocabulary {
        Vocabulary::Published => None,
        Vocabulary::Catalogue | Vocabulary::PublishedWithCatalogue => schemas.of(action),
    };
    match (compiled, vocabulary) {
        (Some(c), _) => {
            c.args.is_valid(action.arguments()) && body.is_some_and(|b| c.result.is_valid(b))
        }
        (None, Vocabulary::Catalogue) => false,
        (None, _) => action.arguments().is_object() && body.is_some_and(Value::is_object),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::protocol::catalogue;
    use serde_json::json;

    fn schemas() -> Schemas {
        Schemas::compile(&catalogue()).unwrap()
    }

    fn tc(e: &Episode, v: Vocabulary) -> f64 {
        tool_consistency(e, None, &schemas(), v)
    }

    #[test]
    fn no_actions_is_fully_consistent() {
        let e = episode(vec![agent(vec![]), user(vec![])]);
        assert_eq!(tc(&e, Vocabulary::Published), 1.0);
        assert_eq!(tc(&e, Vocabulary::Catalogue), 1.0);
        assert_eq!(tc(&stub(), Vocabulary::Published), 1.0);
    }

    #[test]
    fn free_form_actions_need_a_matching_object_observation() {
        let mut t = agent(vec![
            mcp("navigate_to", json!({"x": 1}), json!({"value": "ok"})),
            mcp("read_battery", json!({}), json!({})),
            a2a(
                "collision_avoidance",
                json!({"pose": {}}),
                json!({"risk": false}),
            ),
            mcp("set_course", json!({"yaw": 90}), json!("ok")), // result not an object
        ]);
        // A fifth action whose observation names another tool, a sixth without one.
        t.actions.push(Action::mcp("hold_position", json!({})));
        t.obs.push(Observation {
            tool: Some("hold".into()),
            result: Some(json!({})),
            ..Observation::default()
        });
        t.actions.push(Action::mcp("land", json!({})));
        let e = episode(vec![t]);
        assert_eq!(tc(&e, Vocabulary::Published), 3.0 / 6.0);
    }

    #[test]
    fn catalogue_schemas_check_arguments_and_results() {
        let ok = mcp(
            "set_altitude",
            json!({"altitude_m": 60}),
            json!({"status": "completed"}),
        );
        let bad_args = mcp(
            "set_altitude",
            json!({"alt_m": 60}),
            json!({"status": "completed"}),
        );
        let bad_result = mcp(
            "set_altitude",
            json!({"altitude_m": 60}),
            json!({"value": "ack"}),
        );
        let unknown = mcp("navigate_to", json!({}), json!({}));
        let e = episode(vec![agent(vec![ok, bad_args, bad_result, unknown])]);
        assert_eq!(tc(&e, Vocabulary::Catalogue), 1.0 / 4.0);
        // Published with the catalogue: the unknown name gets the free-form rule.
        assert_eq!(tc(&e, Vocabulary::PublishedWithCatalogue), 2.0 / 4.0);
        assert_eq!(tc(&e, Vocabulary::Published), 1.0);
    }

    #[test]
    fn closed_loop_denials_are_inconsistent() {
        let e = episode(vec![agent(vec![
            mcp("hold", json!({}), json!({"status": "completed"})),
            mcp("hold", json!({}), json!({"status": "denied"})),
        ])]);
        let ev = ClosedLoop {
            executed: vec![vec![true, false]],
            ..ClosedLoop::default()
        };
        assert_eq!(
            tool_consistency(&e, Some(&ev), &schemas(), Vocabulary::Catalogue),
            0.5
        );
    }

    #[test]
    fn a2a_tasks_match_by_task_name() {
        let good = a2a(
            "status_update",
            json!({"status": "climbing"}),
            json!({"ack": true}),
        );
        let mut wrong = a2a(
            "status_update",
            json!({"status": "x"}),
            json!({"ack": true}),
        );
        wrong.1.task = Some("handover".into());
        let e = episode(vec![agent(vec![good, wrong])]);
        assert_eq!(tc(&e, Vocabulary::Catalogue), 0.5);
    }

    #[test]
    fn long_dialogues_count_every_action() {
        for n in [8, 12] {
            let e = episode(alternating(n));
            assert_eq!(tc(&e, Vocabulary::Published), 1.0, "T = {n}");
            // read_telemetry's result {} lacks the catalogue's required fields.
            assert_eq!(tc(&e, Vocabulary::Catalogue), 0.0, "T = {n}");
        }
    }
}
