//! The local backend: a GGUF model through llama.cpp (`llama-cpp-2`).
//!
//! The model and its context live on one dedicated thread (inference is blocking work, and a
//! context borrows its model); [`LlamaGenerator`] sends it jobs and awaits the answers, so a
//! decision's deadline can pass without blocking the async runtime. The same thread keeps the
//! KV cache between calls: the turns of an episode evaluate only their new tokens.

use super::generator::{BoxFuture, Completion, GenerateError, Generator};
use super::grammar::llguidance_schema;
use super::llama_worker::worker;
use alpha3_core::config::LlamaConfig;
use alpha3_core::protocol::{ChatMessage, ToolSpec};
use llama_cpp_2::llama_backend::LlamaBackend;
use std::path::{Path, PathBuf};
use std::sync::{OnceLock, mpsc};
use tokio::sync::oneshot;

pub use super::llama_engine::{Output as LlamaCompletion, Request as LlamaRequest};

/// Why the local backend failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlamaError {
    #[error("no model path: set {env} or policy.llama.model_path")]
    NoModelPath { env: String },
    #[error("model file {0} does not exist")]
    MissingModel(PathBuf),
    #[error("llama.cpp backend: {0}")]
    Backend(String),
    #[error("cannot load {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("chat template: {0}")]
    Template(String),
    #[error("constrained decoding: {0}")]
    Grammar(String),
    #[error("decode: {0}")]
    Decode(String),
    #[error(
        "prompt of {prompt_tokens} tokens plus the completion does not fit the context of {context_tokens}"
    )]
    ContextFull {
        prompt_tokens: u64,
        context_tokens: u64,
    },
    #[error("deadline passed")]
    Deadline,
    #[error("the inference thread has stopped")]
    Stopped,
}

/// Settings of the local backend (from `[policy.llama]`).
#[derive(Debug, Clone, PartialEq)]
pub struct LlamaOptions {
    pub model_path: PathBuf,
    pub threads: u32,
    pub context_tokens: u32,
    /// Prompt chunk size; a longer batch would abort llama.cpp, so prompts are fed in chunks.
    pub batch_tokens: u32,
    pub max_completion_tokens: u32,
    /// 0 = greedy (deterministic).
    pub temperature: f64,
    pub seed: u32,
    /// Constrain decoding to the turn schema (on unless measuring free decoding).
    pub constrained: bool,
}

impl LlamaOptions {
    /// The defaults of `configs/policies/llama-local.toml` for the model at `path`.
    pub fn for_model(path: impl Into<PathBuf>) -> Self {
        Self {
            model_path: path.into(),
            threads: 2,
            context_tokens: 8192,
            batch_tokens: 512,
            max_completion_tokens: 192,
            temperature: 0.0,
            seed: 42,
            constrained: true,
        }
    }

    /// From the config section; `model_path_env` wins when that variable is set, and a relative
    /// `model_path` is taken from `base_dir`.
    pub fn from_config(cfg: &LlamaConfig, base_dir: &Path) -> Result<Self, LlamaError> {
        let from_env = cfg
            .model_path_env
            .as_ref()
            .and_then(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        let path = from_env
            .or_else(|| cfg.model_path.as_ref().map(|p| base_dir.join(p)))
            .ok_or_else(|| LlamaError::NoModelPath {
                env: cfg.model_path_env.clone().unwrap_or_default(),
            })?;
        Ok(Self {
            model_path: path,
            threads: cfg.threads.max(1),
            context_tokens: cfg.context_tokens.max(256),
            batch_tokens: cfg.batch_tokens.max(8),
            max_completion_tokens: cfg.max_completion_tokens.max(1),
            temperature: cfg.temperature,
            seed: cfg.seed,
            constrained: true,
        })
    }
}

/// Facts about the loaded model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub name: String,
    pub n_vocab: u32,
    /// `model` when the GGUF carries a usable chat template, else `gemma` (llama.cpp built-in).
    pub template: String,
    pub load_ms: f64,
}

pub(super) enum Job {
    Generate {
        messages: Vec<ChatMessage>,
        request: LlamaRequest,
        reply: oneshot::Sender<Result<LlamaCompletion, LlamaError>>,
    },
    Prefill {
        system: ChatMessage,
        reply: oneshot::Sender<Result<LlamaCompletion, LlamaError>>,
    },
    ClearCache,
}

/// A local model on its inference thread.
#[derive(Debug)]
pub struct LlamaGenerator {
    jobs: mpsc::Sender<Job>,
    info: ModelInfo,
    options: LlamaOptions,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Job::Generate { .. } => "Generate",
            Job::Prefill { .. } => "Prefill",
            Job::ClearCache => "ClearCache",
        })
    }
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

/// llama.cpp's process-wide backend, initialised once (a second init is an error), with its
/// logs routed into `tracing` instead of stderr.
pub fn backend() -> Result<&'static LlamaBackend, LlamaError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlamaError::Backend(e.clone()))
}
