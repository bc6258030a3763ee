//! Mission policies: what turns the rendered context into an agent turn.
//!
//! A [`Policy`] decides under a deadline and always answers with a [`Decision`]: either a
//! schema-valid [`AgentTurn`](alpha3_core::protocol::AgentTurn) or a generation failure, together with the exact accounting of
//! every attempt (tokens, cache hits, latency, time to first token) for the flight record and
//! the α3 call-efficiency term. A failure is a value, not an error: the agent loop then flies
//! the safe fallback ([`safe_fallback`]) and the watchdog steps in. An episode in which the
//! model never answered at all (its key refused, its server down throughout) is not the
//! model's: the policy says so ([`Policy::no_answer`], [`NoAnswer`]) and it ends as failed.
//!
//! Backends, one per file:
//! - [`llama`]: a local GGUF model through llama.cpp, decoding constrained by the turn schema
//!   (llguidance), with the KV cache kept across the turns of an episode;
//! - [`openai`]: any OpenAI-compatible chat-completions endpoint (its API key kept out of
//!   everything the server sends back by [`redact`], in any encoding that decodes to it);
//! - [`replay`]: the agent turns of a published α3-Bench episode, in order;
//! - [`scripted`]: the deterministic reference agent, which plans each episode from its scenario
//!   and settings;
//! - [`baseline`]: the floor every leaderboard shows: hover (take off, hold, land) and random
//!   (well-formed turns drawn from the episode's seed);
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
pub mod baseline;
mod brief;
pub mod canned;
mod contract;
mod decision;
pub mod endpoints;
mod error;
mod factory;
mod generator;
pub mod grammar;
pub mod llama;
mod llm;
mod no_answer;
#[cfg(feature = "openai")]
pub mod openai;
pub mod redact;
pub mod replay;
pub mod scripted;
pub mod steer;
pub mod synthetic;

pub use brief::EpisodeBrief;
pub use contract::Policy;
pub use decision::{Attempt, Decision, DecisionContext, GenerationFailure, safe_fallback};
pub use error::PolicyError;
pub use factory::from_config;
pub use generator::{BoxFuture, Completion, GenerateError, Generator};
pub use llm::{LlmPolicy, MAX_ATTEMPTS};
pub use no_answer::NoAnswer;
pub use steer::Narrowing;
