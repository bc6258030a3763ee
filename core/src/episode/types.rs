//! The episode document and its dialogue.

use super::state::WorldState;
use crate::link::LinkSample;
use crate::protocol::Action;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One episode file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Episode {
    pub initial_state: WorldState,
    pub dialogue: Vec<Turn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_state: Option<WorldState>,
    /// Whether the mission was completed (the published Task Outcome).
    pub success: bool,
    #[serde(rename = "_meta")]
    pub meta: EpisodeMeta,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Episode {
    /// A failed-generation stub: kept, never dropped (ALPHA3.md §3).
    pub fn is_failure_stub(&self) -> bool {
        self.meta.generation_failed == Some(true)
    }
}

/// Who speaks a turn: the agent, or the user (the operator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    Agent,
    User,
}

/// One turn of the dialogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Turn {
    /// 1-based turn number.
    pub turn: u32,
    pub speaker: Speaker,
    pub intent: String,
    #[serde(default)]
    pub actions: Vec<Action>,
    /// Observations, aligned by index with `actions`.
    #[serde(default)]
    pub obs: Vec<Observation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<LinkSample>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The observation of one action: `{tool, result}` for MCP, `{task, from, status, payload}` for A2A.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Generation metadata (`_meta`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Unix time of generation, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts_iso: Option<String>,
    /// Wall time spent generating the episode, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_time_s: Option<f64>,
    /// Attempts used to get a schema-valid episode (1–3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts_used: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_failed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Token usage as OpenAI-compatible APIs report it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
