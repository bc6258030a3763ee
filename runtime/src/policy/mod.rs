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
//! - [`canned`]: fixed completions, for tests of the repair path;
//! - `scripted`, the deterministic reference agent, needs the world (`sim-bridge`): it will
//!   implement [`Policy`] directly, like [`replay`], and plug into [`from_config`].
//!
//! LLM backends implement the smaller [`Generator`] trait (messages in, text out);
//! [`LlmPolicy`] adds rendering, parsing and the repair loop on top of any of them.

pub mod actions;
pub mod adversarial;
pub mod bench;
pub mod canned;
mod decision;
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
pub use generator::{BoxFuture, Completion, GenerateError, Generator};
pub use llm::{LlmPolicy, MAX_ATTEMPTS};

use alpha3_core::config::{PolicyBackend, PolicyConfig};
use std::path::Path;
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

/// Why a policy could not be built from its config.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("policy.{0} is missing for backend {0}")]
    MissingSection(&'static str),
    #[error("the {0} backend is not in this build yet (it needs the built-in world)")]
    Unavailable(&'static str),
    #[error(transparent)]
    Llama(#[from] llama::LlamaError),
    #[error(transparent)]
    OpenAi(#[from] openai::OpenAiError),
    #[error(transparent)]
    Replay(#[from] replay::ReplayError),
    #[error("cannot compile the turn schema: {0}")]
    Schema(#[from] alpha3_core::protocol::SchemaBuildError),
}

/// Builds the policy `cfg` names. Relative paths (model, replay source) are resolved against
/// `base_dir`, the directory of the config file.
pub fn from_config(cfg: &PolicyConfig, base_dir: &Path) -> Result<Box<dyn Policy>, PolicyError> {
    let catalogue = alpha3_core::protocol::catalogue();
    match cfg.backend {
        PolicyBackend::Llama => {
            let l = cfg
                .llama
                .as_ref()
                .ok_or(PolicyError::MissingSection("llama"))?;
            let generator = llama::LlamaGenerator::load(
                &llama::LlamaOptions::from_config(l, base_dir)?,
                &catalogue,
            )?;
            Ok(Box::new(LlmPolicy::new(cfg, generator, catalogue)?))
        }
        PolicyBackend::Openai => {
            let o = cfg
                .openai
                .as_ref()
                .ok_or(PolicyError::MissingSection("openai"))?;
            let generator = openai::OpenAiGenerator::new(o, &catalogue)?;
            Ok(Box::new(LlmPolicy::new(cfg, generator, catalogue)?))
        }
        PolicyBackend::Replay => {
            let r = cfg
                .replay
                .as_ref()
                .ok_or(PolicyError::MissingSection("replay"))?;
            let source = base_dir.join(&r.source);
            Ok(Box::new(replay::ReplayPolicy::from_source(
                &cfg.name, &source, 0,
            )?))
        }
        // The seam for the scripted reference agent: it implements `Policy` itself.
        PolicyBackend::Scripted => Err(PolicyError::Unavailable("scripted")),
    }
}
