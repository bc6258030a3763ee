//! What a policy is asked, and what it answers: the decision with its exact accounting.

use super::steer::MissionFacts;
use alpha3_core::link::HardThresholds;
use alpha3_core::protocol::{AgentTurn, Exchange, PromptContext, Situation, ToolSpec};
use alpha3_core::record::Event;

/// Everything a policy decides from: the mission, the dialogue so far and what is seen now.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionContext {
    pub mission: String,
    /// Earlier decisions of this episode, oldest first.
    pub history: Vec<Exchange>,
    pub now: Situation,
    pub hard: HardThresholds,
    /// The mission as the runtime knows it now (absent outside a flown episode).
    pub facts: Option<MissionFacts>,
}

impl DecisionContext {
    /// The first decision of an episode.
    pub fn first(mission: impl Into<String>, now: Situation) -> Self {
        Self {
            mission: mission.into(),
            history: Vec::new(),
            now,
            hard: HardThresholds::default(),
            facts: None,
        }
    }

    /// Records the agent's answer to the current situation and moves on to `next`.
    pub fn advance(&mut self, turn: AgentTurn, next: Situation) {
        let seen = std::mem::replace(&mut self.now, next);
        self.history.push(Exchange {
            situation: seen,
            turn,
        });
    }

    /// The 0-based index of the decision being asked for.
    pub fn decision_index(&self) -> usize {
        self.history.len()
    }

    /// The view the prompt renderer takes.
    pub fn prompt<'a>(&'a self, catalogue: &'a [ToolSpec]) -> PromptContext<'a> {
        PromptContext {
            catalogue,
            mission: &self.mission,
            history: &self.history,
            now: &self.now,
            hard: &self.hard,
        }
    }
}

/// One call of the model, counted whatever its outcome (α3 call efficiency).
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// 1-based.
    pub attempt: u32,
    /// The prompt as the backend sent it (after the chat template, for a local model).
    pub prompt: String,
    pub completion: String,
    /// Tokens of the whole prompt, cached ones included.
    pub prompt_tokens: u64,
    /// Prompt tokens served from the KV cache (not evaluated again).
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: f64,
    pub ttft_ms: Option<f64>,
    /// Why this attempt did not yield a turn (parse, schema, backend, deadline), if it did not.
    pub error: Option<String>,
    /// Actions the gate-aware grammar admitted for this call (`None`: the full turn schema).
    pub admissible: Option<u32>,
}

impl Attempt {
    /// Prompt tokens the backend had to evaluate.
    pub fn evaluated_tokens(&self) -> u64 {
        self.prompt_tokens.saturating_sub(self.cached_tokens)
    }

    /// The flight-record event for this attempt of decision `turn`.
    pub fn to_event(&self, turn: u32) -> Event {
        Event::Generation {
            turn,
            attempt: self.attempt,
            prompt: self.prompt.clone(),
            completion: self.completion.clone(),
            prompt_tokens: self.prompt_tokens,
            cached_tokens: self.cached_tokens,
            completion_tokens: self.completion_tokens,
            latency_ms: self.latency_ms,
            ttft_ms: self.ttft_ms,
            error: self.error.clone(),
            admissible: self.admissible,
        }
    }
}

/// Why no valid turn came out of a decision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerationFailure {
    #[error("no valid turn after {attempts} attempt(s): {last_error}")]
    Invalid { attempts: u32, last_error: String },
    #[error("the decision deadline passed")]
    Deadline,
    #[error("the backend failed: {0}")]
    Backend(String),
    #[error("the replayed episode has no agent turn left")]
    Exhausted,
}

/// A policy's answer for one decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub outcome: Result<AgentTurn, GenerationFailure>,
    /// Every call made for this decision, in order.
    pub attempts: Vec<Attempt>,
}

impl Decision {
    /// A turn decided at once, with no model call behind it (the scripted agent, the
    /// baselines, the hostile test policies).
    pub fn at_once(turn: AgentTurn) -> Self {
        Self {
            outcome: Ok(turn),
            attempts: Vec::new(),
        }
    }

    /// The turn to act on: the policy's, or the safe fallback after a generation failure.
    pub fn turn_or_fallback(&self) -> AgentTurn {
        match &self.outcome {
            Ok(t) => t.clone(),
            Err(_) => safe_fallback(),
        }
    }

    pub fn is_failure(&self) -> bool {
        self.outcome.is_err()
    }

    /// Calls made (α3: attempts used).
    pub fn calls(&self) -> u32 {
        u32::try_from(self.attempts.len()).unwrap_or(u32::MAX)
    }

    pub fn prompt_tokens(&self) -> u64 {
        self.attempts.iter().map(|a| a.prompt_tokens).sum()
    }

    pub fn cached_tokens(&self) -> u64 {
        self.attempts.iter().map(|a| a.cached_tokens).sum()
    }

    pub fn completion_tokens(&self) -> u64 {
        self.attempts.iter().map(|a| a.completion_tokens).sum()
    }

    /// Prompt plus completion tokens: what the α3 token budget counts.
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens() + self.completion_tokens()
    }

    pub fn latency_ms(&self) -> f64 {
        self.attempts.iter().map(|a| a.latency_ms).sum()
    }

    /// The flight-record events of every attempt.
    pub fn events(&self, turn: u32) -> Vec<Event> {
        self.attempts.iter().map(|a| a.to_event(turn)).collect()
    }
}

/// What the runtime flies when a decision fails: hold position (the watchdog escalates).
pub fn safe_fallback() -> AgentTurn {
    AgentTurn {
        intent: String::from(alpha3_core::score::claim::FALLBACK_INTENT),
        actions: vec![super::actions::hold(None)],
    }
}
