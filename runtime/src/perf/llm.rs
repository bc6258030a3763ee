//! LLM speed with the configured local model: time to first token and decode tokens/s, taken
//! by the local backend's speed measurement (`policy::llama::speed`), which also runs
//! llama.cpp's own decode loop on the same model and threads as a reference.

use super::memory;
use crate::policy::LlmPolicy;
use crate::policy::llama::speed::{LlmBenchOptions, episode, run};
use crate::policy::llama::{LlamaError, LlamaGenerator, LlamaOptions};
use alpha3_core::protocol::catalogue;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct LlmFigures {
    pub model: String,
    pub threads: u32,
    pub load_ms: f64,
    /// Mean time to first token of the decisions of a synthetic episode (KV cache kept across
    /// turns, as in flight).
    pub ttft_ms: f64,
    /// Free decoding, tokens/s after the prompt (median of the repeats).
    pub decode_tps: f64,
    /// Decoding constrained by the agent-turn schema, completion tokens/s.
    pub constrained_decode_tps: f64,
    /// llama.cpp's own decode loop on the same model and threads.
    pub reference_decode_tps: f64,
    pub turns: u32,
    /// Mean wall time of one decision of that episode (warm system header).
    pub decision_ms: f64,
    pub valid_turns: u32,
}

/// What one model worker holds resident, as the runtime runs it (the policy's context and
/// batch sizes): the process's resident set after the worker has loaded and flown a synthetic
/// episode, less what the process held before it loaded.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerMemory {
    pub context_tokens: u32,
    pub batch_tokens: u32,
    /// The KV cache's element type (`q8_0`, `f16`).
    pub kv_cache_type: alpha3_core::config::KvCacheType,
    /// Decisions flown before the reading.
    pub turns: u32,
    /// The growth of the resident set, MB.
    pub resident_mb: f64,
    /// Of it, already there once the worker had loaded (model, grammar, context), before
    /// the first decision.
    pub loaded_mb: f64,
    /// Of it: anonymous pages (KV cache, compute buffers, heap) and file pages (the mapped
    /// model).
    pub anon_mb: f64,
    pub file_mb: f64,
    /// What a second worker on the same model adds (the model is shared: its own context
    /// only), measured the same way.
    pub further_worker_mb: f64,
    /// The whole process's peak resident set when the reading was taken.
    pub process_peak_mb: f64,
}

impl WorkerMemory {
    /// Each worker's share when two run side by side on one model (the bench's two workers).
    pub fn per_worker_of_two_mb(&self) -> f64 {
        (self.resident_mb + self.further_worker_mb) / 2.0
    }
}

/// Loads one worker with `lo`'s settings, flies `turns` decisions, reads the resident set and
/// drops the worker. `None` where the OS does not say (not Linux). Run it before anything else
/// that allocates: memory freed earlier and reused by the worker would hide its cost.
pub async fn worker_memory(
    lo: &LlamaOptions,
    turns: u32,
) -> Result<Option<WorkerMemory>, LlamaError> {
    let Some(before) = memory::now() else {
        return Ok(None);
    };
    let mut loaded = 0.0;
    let first = flown_worker(lo, turns, || {
        loaded = memory::now().map_or(0.0, |m| m.rss_mb - before.rss_mb);
    })
    .await?;
    let Some(after) = memory::now() else {
        return Ok(None);
    };
    let second = flown_worker(lo, turns, || {}).await?;
    let further = memory::now().map_or(0.0, |m| m.rss_mb - after.rss_mb);
    drop(second);
    drop(first);
    Ok(Some(WorkerMemory {
        context_tokens: lo.context_tokens,
        batch_tokens: lo.batch_tokens,
        kv_cache_type: lo.kv_cache_type,
        turns,
        resident_mb: after.rss_mb - before.rss_mb,
        loaded_mb: loaded,
        further_worker_mb: further,
        anon_mb: after.anon_mb - before.anon_mb,
        file_mb: after.file_mb - before.file_mb,
        process_peak_mb: after.peak_mb,
    }))
}

/// A worker loaded with `lo`'s settings (`loaded` is called once it is, before it decides)
/// that has flown `turns` decisions of the synthetic episode.
async fn flown_worker(
    lo: &LlamaOptions,
    turns: u32,
    loaded: impl FnOnce(),
) -> Result<LlmPolicy<LlamaGenerator>, LlamaError> {
    let generator = LlamaGenerator::load(lo, &catalogue())?;
    loaded();
    let name = generator.info().name.clone();
    let mut policy = LlmPolicy::with_attempts(&name, 3, generator, catalogue())
        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
    episode(&mut policy, turns).await;
    Ok(policy)
}

/// Loads the model of `lo` and measures; `quick` decodes fewer tokens over fewer turns and
/// repeats.
pub async fn measure(lo: &LlamaOptions, quick: bool) -> Result<LlmFigures, LlamaError> {
    let mut o = LlmBenchOptions::new(&lo.model_path);
    o.threads = lo.threads.max(1);
    if quick {
        o.decode_tokens = 16;
        o.turns = 2;
        o.repeats = 1;
    } else {
        o.decode_tokens = 64;
        o.turns = 4;
        o.repeats = 3;
    }
    let r = run(&o).await?;
    Ok(LlmFigures {
        model: r.model,
        threads: r.threads,
        load_ms: r.load_ms,
        ttft_ms: r.mean_ttft_ms,
        decode_tps: r.free_decode_tps,
        constrained_decode_tps: r.constrained_decode_tps,
        reference_decode_tps: r.reference_decode_tps,
        turns: o.turns,
        decision_ms: 1000.0 * r.episode_wall_s / f64::from(o.turns.max(1)),
        valid_turns: r.valid_turns,
    })
}
