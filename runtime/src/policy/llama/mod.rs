//! The local backend: a GGUF model through llama.cpp (`llama-cpp-2`).
//!
//! The model and its context live on one dedicated thread (inference is blocking work, and a
//! context borrows its model); [`LlamaGenerator`] sends it jobs and awaits the answers, so a
//! decision's deadline can pass without blocking the async runtime. The same thread keeps the
//! KV cache between calls: the turns of an episode evaluate only their new tokens.
//!
//! Files, imported one way only (`worker` → `engine` → `guide`, `kv`, `types`): `types` (what
//! they share), `worker` (the inference thread), `engine` (prompt and decode loop), `guide`
//! (llguidance matchers), `kv` (what the cache holds), and [`speed`] (TTFT and tokens/s for
//! `alpha3 perf`).

mod engine;
mod guide;
mod kv;
mod loaded;
pub mod priority;
pub mod speed;
mod types;
mod worker;

use super::generator::{BoxFuture, Completion, GenerateError, Generator};
use super::grammar::llguidance_schema;
use super::steer::Narrowing;
use alpha3_core::protocol::{ChatMessage, ToolSpec};
use std::sync::mpsc;
use tokio::sync::oneshot;
use types::Job;
use worker::worker;

pub use types::{LlamaCompletion, LlamaError, LlamaOptions, LlamaRequest, ModelInfo};

/// A local model on its inference thread.
#[derive(Debug)]
pub struct LlamaGenerator {
    jobs: mpsc::Sender<Job>,
    info: ModelInfo,
    options: LlamaOptions,
    /// The narrowed turn grammar (Lark) the next generations are constrained by, if any.
    narrowed: Option<String>,
}

impl LlamaGenerator {
    /// Loads the model on a new inference thread and compiles the turn grammar of `catalogue`.
    /// Blocks until the model is ready (about a second for the test model).
    pub fn load(options: &LlamaOptions, catalogue: &[ToolSpec]) -> Result<Self, LlamaError> {
        if !options.model_path.is_file() {
            return Err(LlamaError::MissingModel(options.model_path.clone()));
        }
        let (jobs, inbox) = mpsc::channel();
        let (ready_tx, ready) = mpsc::channel();
        let schema = llguidance_schema(catalogue);
        let opts = options.clone();
        std::thread::Builder::new()
            .name("alpha3-llama".into())
            .spawn(move || worker(opts, schema, ready_tx, inbox))
            .map_err(|e| LlamaError::Backend(e.to_string()))?;
        let info = ready.recv().map_err(|_| LlamaError::Stopped)??;
        Ok(Self {
            jobs,
            info,
            options: options.clone(),
            narrowed: None,
        })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    pub fn options(&self) -> &LlamaOptions {
        &self.options
    }

    /// One generation with explicit settings (the benchmark turns constraint and cache reuse
    /// off to measure them).
    pub async fn complete(
        &self,
        messages: Vec<ChatMessage>,
        request: LlamaRequest,
    ) -> Result<LlamaCompletion, LlamaError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Generate {
                messages,
                request,
                grammar: self.narrowed.clone(),
                reply,
            })
            .map_err(|_| LlamaError::Stopped)?;
        answer.await.map_err(|_| LlamaError::Stopped)?
    }

    /// The request a policy decision makes: the configured limits, constrained, cache kept.
    pub fn request(&self, deadline: std::time::Instant) -> LlamaRequest {
        LlamaRequest {
            max_tokens: self.options.max_completion_tokens,
            constrained: self.options.constrained,
            reuse_cache: true,
            stop_at_eog: true,
            deadline,
        }
    }

    /// Evaluates the shared opening of every prompt (template and system header) into the KV
    /// cache, so the first decision of an episode evaluates only its own messages.
    pub async fn prefill_system(&self, system: ChatMessage) -> Result<LlamaCompletion, LlamaError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Prefill { system, reply })
            .map_err(|_| LlamaError::Stopped)?;
        answer.await.map_err(|_| LlamaError::Stopped)?
    }

    /// Empties the KV cache (the next prompt is evaluated in full).
    pub fn clear_cache(&self) {
        let _ = self.jobs.send(Job::ClearCache);
    }
}

impl Generator for LlamaGenerator {
    fn model(&self) -> &str {
        &self.info.name
    }

    fn prefill<'a>(&'a mut self, system: &'a ChatMessage) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.prefill_system(system.clone()).await {
                tracing::warn!(error = %e, "prefilling the system header failed");
            }
        })
    }

    fn narrow(&mut self, narrowing: Option<Narrowing>) {
        self.narrowed = narrowing.map(|n| n.lark());
    }

    fn generate<'a>(
        &'a mut self,
        messages: &'a [ChatMessage],
        deadline: tokio::time::Instant,
    ) -> BoxFuture<'a, Result<Completion, GenerateError>> {
        Box::pin(async move {
            let started = tokio::time::Instant::now();
            let out = self
                .complete(messages.to_vec(), self.request(deadline.into_std()))
                .await
                .map_err(|e| match e {
                    LlamaError::Deadline => GenerateError::Deadline {
                        elapsed_ms: u64::try_from(started.elapsed().as_millis())
                            .unwrap_or(u64::MAX),
                    },
                    LlamaError::Decode(_) | LlamaError::Grammar(_) => {
                        GenerateError::Transient(e.to_string())
                    }
                    other => GenerateError::Fatal(other.to_string()),
                })?;
            Ok(Completion {
                prompt: out.prompt,
                text: out.text,
                prompt_tokens: out.prompt_tokens,
                cached_tokens: out.cached_tokens,
                completion_tokens: out.completion_tokens,
                latency_ms: out.latency_ms,
                ttft_ms: out.ttft_ms,
            })
        })
    }
}
