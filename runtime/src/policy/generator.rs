//! The text-generation seam every LLM backend implements: chat messages in, one completion out,
//! with exact token counts.

use super::steer::Narrowing;
use alpha3_core::protocol::ChatMessage;
use std::future::Future;
use std::pin::Pin;
use tokio::time::Instant;

/// A boxed, sendable future (keeps the traits object-safe without a macro crate).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One completion and what it cost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Completion {
    /// The prompt as sent (after the chat template, for a local model).
    pub prompt: String,
    pub text: String,
    /// Tokens of the whole prompt, cached ones included.
    pub prompt_tokens: u64,
    /// Prompt tokens served from a cache instead of being evaluated.
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: f64,
    pub ttft_ms: Option<f64>,
}

/// Why a backend produced no completion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("deadline passed after {elapsed_ms} ms")]
    Deadline { elapsed_ms: u64 },
    /// Worth another attempt (a timeout, a 5xx, a dropped connection).
    #[error("{0}")]
    Transient(String),
    /// Will fail again (bad request, the model would not load).
    #[error("{0}")]
    Fatal(String),
    /// The endpoint refused the API key (HTTP 401 or 403): no call with it will be answered.
    /// `detail` is what the server said (redacted, shortened).
    #[error("the model endpoint refused the key: HTTP {status}: {detail}")]
    KeyRefused { status: u16, detail: String },
}

/// An LLM backend.
pub trait Generator: Send {
    /// The model's name, for records and reports.
    fn model(&self) -> &str;

    /// Prepares for prompts that start with `system` (a local model evaluates it into its
    /// cache once). Optional: the default does nothing.
    fn prefill<'a>(&'a mut self, system: &'a ChatMessage) -> BoxFuture<'a, ()> {
        let _ = system;
        Box::pin(async {})
    }

    /// Constrains the next generations by `narrowing` instead of the full turn schema
    /// (`None`: back to the full one). Optional: a backend that cannot constrain ignores it.
    fn narrow(&mut self, narrowing: Option<Narrowing>) {
        let _ = narrowing;
    }

    /// Completes `messages`, giving up at `deadline`.
    fn generate<'a>(
        &'a mut self,
        messages: &'a [ChatMessage],
        deadline: Instant,
    ) -> BoxFuture<'a, Result<Completion, GenerateError>>;
}
