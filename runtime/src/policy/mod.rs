//! Mission policies: what turns the rendered context into an agent turn.
//!
//! A [`Policy`] decides under a deadline and always answers with a [`Decision`]: either a
//! schema-valid [`AgentTurn`](alpha3_core::protocol::AgentTurn) or a generation failure, together with the exact accounting of
//! every attempt (tokens, cache hits, latency, time to first token) for the flight record and
//! the α3 call-efficiency term. A failure is a value, not an error: the agent loop then flies
//! the safe fallback ([`safe_fallback`]) and the watchdog steps in.
//!
//! Backends, one per file:
//! - [`llama`]: a local GGUF model through llama.cpp, decoding constrained by the turn schema
//!   (llguidance), with the KV cache kept across the turns of an episode;
//! - [`openai`]: any OpenAI-compatible chat-completions endpoint (its API key kept out of
//!   everything the server sends back by [`redact`], in any encoding that decodes to it);
//! - [`replay`]: the agent turns of a published α3-Bench episode, in order;
//! - [`scripted`]: the deterministic reference agent, which plans each episode from its scenario
//!   and settings;
//! - [`canned`]: fixed completions, for tests of the repair path.
//!
//! [`from_config`] builds whichever of them a config names; the scripted agent is built with the
//! [`EpisodeBrief`] of the episode it will fly. The hostile policies of [`adversarial`] are built
//! by the tests that use them, not from a config.
//!
//! LLM backends implement the smaller [`Generator`] trait (messages in, text out);
//! [`LlmPolicy`] adds rendering, parsing and the repair loop on top of any of them. Policies
//! that write their own turns build their actions with [`actions`].

pub mod actions;
pub mod adversarial;
pub mod bench;
pub mod canned;
mod decision;
mod factory;
mod generator;
pub mod grammar;
pub mod llama;
mod llama_engine;
mod llama_kv;
mod llama_types;
mod llama_worker;
mod llm;
pub mod openai;
pub mod redact;
pub mod replay;
pub mod scripted;
pub mod synthetic;

pub use decision::{Attempt, Decision, DecisionContext, GenerationFailure, safe_fallback};
pub use factory::{EpisodeBrief, PolicyError, from_config};
pub use generator::{BoxFuture, Completion, GenerateError, Generator};
pub use llm::{LlmPolicy, MAX_ATTEMPTS};

use tokio::time::Instant;

/// A mission policy. Object-safe, so the runtime can hold whichever backend the config names.
pub trait Policy: Send {
    /// The policy's name for reports (the config's `policy.name`).
    fn name(&self) -> &str;

    /// Decides the next agent turn. Never fails outright: past `deadline`, or after the last
    /// invalid attempt, the [`Decision`] carries a [`GenerationFailure`] and every attempt made.
    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision>;

    /// Prepares for the first decision (a local model evaluates the fixed prompt header), so
    /// an episode's first deadline does not pay for it. Optional: the default does nothing.
    fn warm_up(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}
