//! What the files of the local backend share: its settings and errors, the loaded model's
//! facts, the jobs its inference thread serves, and what one generation asks for and returns.

use alpha3_core::config::{KvCacheType, LlamaConfig};
use alpha3_core::protocol::ChatMessage;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tokio::sync::oneshot;

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
    /// How the inference threads are scheduled: below the safety path unless measuring.
    pub priority: super::priority::InferencePriority,
    /// The KV cache's element type.
    pub kv_cache_type: KvCacheType,
}

impl LlamaOptions {
    /// The defaults of `configs/policies/llama-local.toml` for the model at `path`.
    pub fn for_model(path: impl Into<PathBuf>) -> Self {
        Self {
            model_path: path.into(),
            threads: 2,
            context_tokens: 4096,
            batch_tokens: 128,
            max_completion_tokens: 192,
            temperature: 0.0,
            seed: 42,
            constrained: true,
            priority: super::priority::InferencePriority::Low,
            kv_cache_type: KvCacheType::Q8_0,
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
        Ok(Self::with_settings(path, cfg))
    }

    /// The model at `path` with the section's settings (its model path is not read).
    pub fn with_settings(path: PathBuf, cfg: &LlamaConfig) -> Self {
        Self {
            model_path: path,
            threads: cfg.threads.max(1),
            context_tokens: cfg.context_tokens.max(256),
            batch_tokens: cfg.batch_tokens.max(8),
            max_completion_tokens: cfg.max_completion_tokens.max(1),
            temperature: cfg.temperature,
            seed: cfg.seed,
            constrained: true,
            priority: cfg.inference_priority,
            kv_cache_type: cfg.kv_cache_type,
        }
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
        /// A narrowed turn grammar (Lark) to constrain by instead of the full schema.
        grammar: Option<String>,
        reply: oneshot::Sender<Result<LlamaCompletion, LlamaError>>,
    },
    Prefill {
        system: ChatMessage,
        reply: oneshot::Sender<Result<LlamaCompletion, LlamaError>>,
    },
    ClearCache,
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

/// What one generation produced and cost.
#[derive(Debug, Clone, Default)]
pub struct LlamaCompletion {
    pub prompt: String,
    pub text: String,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    /// Completion tokens that were forced by the grammar (no sampling).
    pub forced_tokens: u64,
    pub ttft_ms: Option<f64>,
    pub prompt_eval_ms: f64,
    pub decode_ms: f64,
    pub latency_ms: f64,
}

/// One generation's settings.
#[derive(Debug, Clone, Copy)]
pub struct LlamaRequest {
    pub max_tokens: u32,
    pub constrained: bool,
    /// Keep the KV cache from earlier generations (off only to measure the cost of not).
    pub reuse_cache: bool,
    /// Stop at an end-of-generation token (off only to decode a fixed number of tokens).
    pub stop_at_eog: bool,
    pub deadline: Instant,
}

impl LlamaCompletion {
    /// Completion tokens per second of decoding (after the prompt was evaluated).
    pub fn decode_tps(&self) -> f64 {
        if self.decode_ms <= 0.0 {
            return 0.0;
        }
        self.completion_tokens as f64 * 1000.0 / self.decode_ms
    }
}
