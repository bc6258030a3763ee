//! LLM speed with the configured local model: time to first token and decode tokens/s, taken
//! by the local backend's speed measurement (`policy::llama::speed`), which also runs
//! llama.cpp's own decode loop on the same model and threads as a reference.

use crate::policy::llama::LlamaError;
use crate::policy::llama::speed::{LlmBenchOptions, run};
use serde::Serialize;
use std::path::Path;

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

/// Loads `model` and measures; `quick` decodes fewer tokens over fewer turns and repeats.
pub async fn measure(model: &Path, threads: u32, quick: bool) -> Result<LlmFigures, LlamaError> {
    let mut o = LlmBenchOptions::new(model);
    o.threads = threads.max(1);
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
