//! An agent turn: what a policy returns, and what an episode's dialogue records.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One action of a turn: an MCP tool call or an A2A task sent to a peer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Mcp {
        name: String,
        #[serde(default)]
        args: Value,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    A2a {
        task: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        #[serde(default)]
        payload: Value,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
}

impl Action {
    pub fn mcp(name: impl Into<String>, args: Value) -> Self {
        Action::Mcp {
            name: name.into(),
            args,
            extra: Map::new(),
        }
    }

    pub fn a2a(task: impl Into<String>, to: impl Into<String>, payload: Value) -> Self {
        Action::A2a {
            task: task.into(),
            to: Some(to.into()),
            payload,
            extra: Map::new(),
        }
    }

    /// The tool name (MCP) or task name (A2A).
    pub fn name(&self) -> &str {
        match self {
            Action::Mcp { name, .. } => name,
            Action::A2a { task, .. } => task,
        }
    }

    /// The arguments (MCP) or payload (A2A).
    pub fn arguments(&self) -> &Value {
        match self {
            Action::Mcp { args, .. } => args,
            Action::A2a { payload, .. } => payload,
        }
    }

    pub fn is_a2a(&self) -> bool {
        matches!(self, Action::A2a { .. })
    }
}

/// What a policy produces for one decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentTurn {
    /// A short snake_case statement of what the agent means to do.
    pub intent: String,
    pub actions: Vec<Action>,
}
