//! The inference thread of the local backend: loads the model, compiles the turn grammar over
//! its vocabulary, creates the context and serves jobs until its sender is dropped.

use super::engine::Engine;
use super::guide::compile;
use super::kv::KvLedger;
use super::types::{Job, LlamaError, LlamaOptions, ModelInfo};
use alpha3_core::config::KvCacheType;
use llama_cpp_2::context::params::{KvCacheType as LlamaKvType, LlamaContextParams};
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use serde_json::Value;
use std::num::NonZeroU32;
use std::sync::{OnceLock, mpsc};

/// The model's chat template when llama.cpp can apply it, else the built-in `gemma` one.
fn template(model: &LlamaModel) -> Result<(LlamaChatTemplate, String), LlamaError> {
    let probe = [LlamaChatMessage::new("user".into(), "hi".into())
        .map_err(|e| LlamaError::Template(e.to_string()))?];
    if let Ok(t) = model.chat_template(None)
        && model.apply_chat_template(&t, &probe, true).is_ok()
    {
        return Ok((t, String::from("model")));
    }
    let t = LlamaChatTemplate::new("gemma").map_err(|e| LlamaError::Template(e.to_string()))?;
    Ok((t, String::from("gemma")))
}

/// A worker's context (and `perf`'s reference loop's): its threads, context size and batch;
/// the whole sliding-window cache kept, so a cached prefix can be cut anywhere; and the KV
/// cache's type. A quantized value cache needs flash attention, which llama.cpp's default
/// (`auto`) turns on for the CPU.
pub(super) fn context_params(opts: &LlamaOptions) -> LlamaContextParams {
    let threads = i32::try_from(opts.threads).unwrap_or(2);
    let kv = match opts.kv_cache_type {
        KvCacheType::Q8_0 => LlamaKvType::Q8_0,
        KvCacheType::F16 => LlamaKvType::F16,
    };
    LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(opts.context_tokens))
        .with_n_batch(opts.batch_tokens)
        .with_n_ubatch(opts.batch_tokens)
        .with_n_threads(threads)
        .with_n_threads_batch(threads)
        .with_swa_full(true)
        .with_type_k(kv)
        .with_type_v(kv)
}

pub(super) fn worker(
    opts: LlamaOptions,
    schema: Value,
    ready: mpsc::Sender<Result<ModelInfo, LlamaError>>,
    inbox: mpsc::Receiver<Job>,
) {
    let started = std::time::Instant::now();
    lower_priority(&opts);
    let setup = (|| {
        let backend = backend()?;
        let super::loaded::Loaded { model, factory } =
            super::loaded::load(backend, &opts.model_path)?;
        let guide = compile(&factory, schema)?;
        let (template, template_name) = template(&model)?;
        Ok::<_, LlamaError>((backend, model, factory, guide, template, template_name))
    })();
    let (backend, model, factory, guide, template, template_name) = match setup {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let ctx = match model.new_context(backend, context_params(&opts)) {
        Ok(c) => c,
        Err(e) => {
            let _ = ready.send(Err(LlamaError::Backend(e.to_string())));
            return;
        }
    };
    let n_batch = ctx.n_batch().max(1) as usize;
    let sampler = if opts.temperature > 0.0 {
        LlamaSampler::chain_simple([
            LlamaSampler::temp(opts.temperature as f32),
            LlamaSampler::dist(opts.seed),
        ])
    } else {
        LlamaSampler::greedy()
    };
    let name = model
        .meta_val_str("general.name")
        .ok()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| {
            opts.model_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    let info = ModelInfo {
        name,
        n_vocab: model.n_vocab().cast_unsigned(),
        template: template_name,
        load_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    let mut engine = Engine {
        model: &model,
        ctx,
        template,
        ledger: KvLedger::default(),
        batch: LlamaBatch::new(n_batch, 1),
        n_batch,
        guide,
        factory,
        narrowed: None,
        options: opts,
        sampler,
    };
    if ready.send(Ok(info)).is_err() {
        return;
    }
    while let Ok(job) = inbox.recv() {
        match job {
            Job::Generate {
                messages,
                request,
                grammar,
                reply,
            } => {
                let _ = reply.send(engine.generate(&messages, request, grammar));
            }
            Job::Prefill { system, reply } => {
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
                let _ = reply.send(engine.prefill_system(&system, deadline));
            }
            Job::ClearCache => {
                engine.ctx.clear_kv_cache();
                engine.ledger.clear();
            }
        }
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

/// Schedules this inference thread (and the compute threads llama.cpp starts from it) as
/// `opts` says, before the model loads; a refusal is logged, not fatal: the model then runs as
/// the process does.
pub(super) fn lower_priority(opts: &LlamaOptions) {
    match super::priority::apply(opts.priority) {
        Ok(how) => tracing::debug!(%how, "inference threads scheduled"),
        Err(e) => tracing::warn!("inference threads keep the process's priority: {e}"),
    }
}
