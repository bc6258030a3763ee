//! LLM speed on this device, for `examples/llm_bench.rs` and `alpha3 perf`: decode tokens/s of
//! our backend against llama.cpp's own decode loop (the `simple` example of `llama-cpp-2`, same
//! model, same threads, same prompt), prompt tokens evaluated per turn with and without KV
//! reuse, and the wall time of a full 10-turn episode.

use super::worker::backend;
use super::{LlamaError, LlamaGenerator, LlamaOptions, LlamaRequest};
use crate::policy::contract::Policy;
use crate::policy::decision::{Decision, DecisionContext};
use crate::policy::llm::LlmPolicy;
use crate::policy::synthetic;
use alpha3_core::protocol::catalogue;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// What to measure.
#[derive(Debug, Clone)]
pub struct LlmBenchOptions {
    pub model_path: PathBuf,
    pub threads: u32,
    /// Tokens decoded per free-decoding run.
    pub decode_tokens: u32,
    /// Decisions in the episode.
    pub turns: u32,
    /// Repeats of each decode measurement (the best is kept: the machine may be shared).
    pub repeats: u32,
}

impl LlmBenchOptions {
    pub fn new(model_path: impl Into<PathBuf>) -> Self {
        Self {
            model_path: model_path.into(),
            threads: 2,
            decode_tokens: 64,
            turns: 10,
            repeats: 5,
        }
    }
}

/// The measured figures.
#[derive(Debug, Clone, Serialize)]
pub struct LlmBenchReport {
    pub model: String,
    pub threads: u32,
    pub load_ms: f64,
    /// llama.cpp's `simple` decode loop: tokens/s after the prompt.
    pub reference_decode_tps: f64,
    /// Our backend, free decoding, same prompt and token count.
    pub free_decode_tps: f64,
    /// Our backend, constrained by the turn schema: completion tokens/s (forced ones included).
    pub constrained_decode_tps: f64,
    /// Share of constrained completion tokens that were forced (not sampled).
    pub forced_share: f64,
    pub free_vs_reference: f64,
    pub constrained_vs_reference: f64,
    /// Per turn: prompt tokens, evaluated with KV reuse, evaluated without.
    pub prompt_tokens: Vec<u64>,
    pub evaluated_with_reuse: Vec<u64>,
    pub evaluated_without_reuse: Vec<u64>,
    /// The episode right after loading the model (the header is evaluated in turn 1).
    pub episode_wall_cold_s: f64,
    /// The same episode again: the system header is already in the cache, as for every
    /// episode but the first of a benchmark run.
    pub episode_wall_s: f64,
    pub episode_wall_without_reuse_s: f64,
    pub mean_ttft_ms: f64,
    /// The machine's 1-minute load average when the run ended (the machine may be shared).
    pub load_average: Option<f64>,
    pub valid_turns: u32,
    pub attempts: u32,
}

impl LlmBenchReport {
    /// A short human-readable summary.
    pub fn to_markdown(&self) -> String {
        let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
        format!(
            "| figure | value |\n|---|---|\n\
             | model / threads | {} / {} |\n\
             | decode tok/s: llama.cpp simple loop | {:.1} |\n\
             | decode tok/s: ours, free | {:.1} (ratio {:.3}) |\n\
             | decode tok/s: ours, constrained | {:.1} (ratio {:.3}; {:.0}% forced) |\n\
             | prompt tokens evaluated per turn, KV reuse | {:.1} (of {:.1} in the prompt) |\n\
             | prompt tokens evaluated per turn, no reuse | {:.1} |\n\
             | {}-turn episode wall time, KV reuse, cold / warm header | {:.2} s / {:.2} s |\n\
             | {}-turn episode wall time, no reuse | {:.2} s |\n\
             | mean time to first token | {:.0} ms |\n\
             | valid turns / attempts | {} / {} |\n\
             | load average at the end | {} |\n",
            self.model,
            self.threads,
            self.reference_decode_tps,
            self.free_decode_tps,
            self.free_vs_reference,
            self.constrained_decode_tps,
            self.constrained_vs_reference,
            100.0 * self.forced_share,
            mean(&self.evaluated_with_reuse),
            mean(&self.prompt_tokens),
            mean(&self.evaluated_without_reuse),
            self.prompt_tokens.len(),
            self.episode_wall_cold_s,
            self.episode_wall_s,
            self.prompt_tokens.len(),
            self.episode_wall_without_reuse_s,
            self.mean_ttft_ms,
            self.valid_turns,
            self.attempts,
            self.load_average
                .map_or_else(|| String::from("?"), |l| format!("{l:.2}")),
        )
    }
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(600)
}

/// Runs every measurement in one process, one after the other (never concurrently).
pub async fn run(opts: &LlmBenchOptions) -> Result<LlmBenchReport, LlamaError> {
    let mut lo = LlamaOptions::for_model(&opts.model_path);
    lo.threads = opts.threads;
    let generator = LlamaGenerator::load(&lo, &catalogue())?;
    let info = generator.info().clone();
    let mut policy = LlmPolicy::with_attempts(&info.name, 3, generator, catalogue())
        .map_err(|e| LlamaError::Grammar(e.to_string()))?;

    // Decode speed in paired rounds: ours free, the reference loop, ours constrained, one
    // right after the other, so each ratio compares runs under the same machine load (the
    // median ratio is reported).
    let ctx0 = synthetic::first_context();
    let messages = policy.messages(&ctx0);
    let reference = ReferenceLoop::start(&lo)?;
    let (mut free, mut refs, mut cons, mut forced) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..opts.repeats.max(1) {
        let g = policy.generator();
        let f = g
            .complete(
                messages.clone(),
                LlamaRequest {
                    max_tokens: opts.decode_tokens,
                    constrained: false,
                    reuse_cache: false,
                    stop_at_eog: false,
                    deadline: far(),
                },
            )
            .await?;
        refs.push(
            reference
                .decode(f.prompt.clone(), f.completion_tokens)
                .await?,
        );
        free.push(f.decode_tps());
        let c = g
            .complete(
                messages.clone(),
                LlamaRequest {
                    max_tokens: 192,
                    constrained: true,
                    reuse_cache: false,
                    stop_at_eog: true,
                    deadline: far(),
                },
            )
            .await?;
        cons.push(c.decode_tps());
        forced.push(c.forced_tokens as f64 / c.completion_tokens.max(1) as f64);
    }
    drop(reference);
    let ratio = |ours: &[f64]| {
        median(
            ours.iter()
                .zip(&refs)
                .map(|(o, r)| o / r.max(f64::MIN_POSITIVE))
                .collect(),
        )
    };
    let (free_ratio, cons_ratio) = (ratio(&free), ratio(&cons));
    let (free_tps, ref_tps, constrained_tps, forced_share) =
        (median(free), median(refs), median(cons), median(forced));

    // A full episode with KV reuse from a cold cache, the same again with the header cached,
    // then the same decisions' prompts without reuse.
    policy.generator().clear_cache();
    let (_, wall_cold) = episode(&mut policy, opts.turns).await;
    let (decisions, wall) = episode(&mut policy, opts.turns).await;
    let mut without = Vec::new();
    let started = Instant::now();
    let mut ctx = synthetic::first_context();
    for d in &decisions {
        let out = policy
            .generator()
            .complete(
                policy.messages(&ctx),
                LlamaRequest {
                    reuse_cache: false,
                    ..policy.generator().request(far())
                },
            )
            .await?;
        without.push(out.prompt_tokens - out.cached_tokens);
        let k = ctx.decision_index() + 1;
        ctx.advance(
            d.turn_or_fallback(),
            synthetic::next_situation(&ctx.now, &d.turn_or_fallback(), k),
        );
    }
    let wall_without = started.elapsed().as_secs_f64();
    let first = |d: &Decision| d.attempts.first().cloned();
    let ttfts: Vec<f64> = decisions
        .iter()
        .filter_map(|d| first(d).and_then(|a| a.ttft_ms))
        .collect();
    Ok(LlmBenchReport {
        model: info.name,
        threads: opts.threads,
        load_ms: info.load_ms,
        reference_decode_tps: ref_tps,
        free_decode_tps: free_tps,
        constrained_decode_tps: constrained_tps,
        forced_share,
        free_vs_reference: free_ratio,
        constrained_vs_reference: cons_ratio,
        load_average: load_average(),
        prompt_tokens: decisions
            .iter()
            .filter_map(|d| first(d).map(|a| a.prompt_tokens))
            .collect(),
        evaluated_with_reuse: decisions
            .iter()
            .filter_map(|d| first(d).map(|a| a.evaluated_tokens()))
            .collect(),
        evaluated_without_reuse: without,
        episode_wall_cold_s: wall_cold,
        episode_wall_s: wall,
        episode_wall_without_reuse_s: wall_without,
        mean_ttft_ms: ttfts.iter().sum::<f64>() / ttfts.len().max(1) as f64,
        valid_turns: decisions.iter().filter(|d| !d.is_failure()).count() as u32,
        attempts: decisions.iter().map(Decision::calls).sum(),
    })
}

/// Flies `turns` decisions of the synthetic episode; returns them and the wall time in seconds.
pub async fn episode<P: Policy>(policy: &mut P, turns: u32) -> (Vec<Decision>, f64) {
    let mut ctx: DecisionContext = synthetic::first_context();
    let mut out = Vec::new();
    let started = Instant::now();
    for k in 1..=turns {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let d = policy.decide(&ctx, deadline).await;
        let turn = d.turn_or_fallback();
        let next = synthetic::next_situation(&ctx.now, &turn, k as usize);
        out.push(d);
        ctx.advance(turn, next);
    }
    (out, started.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn load_average() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

type RefJob = (String, u64, oneshot::Sender<Result<f64, LlamaError>>);

/// The reference loop on its own thread, with its own model and context, kept for all rounds.
struct ReferenceLoop {
    jobs: mpsc::Sender<RefJob>,
}

impl ReferenceLoop {
    fn start(o: &LlamaOptions) -> Result<Self, LlamaError> {
        let (jobs, inbox) = mpsc::channel::<RefJob>();
        let (ready_tx, ready) = mpsc::channel();
        let o = o.clone();
        std::thread::Builder::new()
            .name("alpha3-llama-reference".into())
            .spawn(move || reference_thread(&o, &ready_tx, &inbox))
            .map_err(|e| LlamaError::Backend(e.to_string()))?;
        ready.recv().map_err(|_| LlamaError::Stopped)??;
        Ok(Self { jobs })
    }

    async fn decode(&self, prompt: String, n_tokens: u64) -> Result<f64, LlamaError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send((prompt, n_tokens, reply))
            .map_err(|_| LlamaError::Stopped)?;
        answer.await.map_err(|_| LlamaError::Stopped)?
    }
}

fn reference_thread(
    o: &LlamaOptions,
    ready: &mpsc::Sender<Result<(), LlamaError>>,
    inbox: &mpsc::Receiver<RefJob>,
) {
    let err = |e: &dyn std::fmt::Display| LlamaError::Decode(e.to_string());
    super::worker::lower_priority(o);
    let setup = (|| {
        let backend = backend()?;
        let model =
            LlamaModel::load_from_file(backend, &o.model_path, &LlamaModelParams::default())
                .map_err(|e| err(&e))?;
        Ok::<_, LlamaError>((backend, model))
    })();
    let (backend, model) = match setup {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let mut ctx = match model.new_context(backend, reference_params(o)) {
        Ok(c) => c,
        Err(e) => {
            let _ = ready.send(Err(err(&e)));
            return;
        }
    };
    let _ = ready.send(Ok(()));
    while let Ok((prompt, n, reply)) = inbox.recv() {
        ctx.clear_kv_cache();
        let _ = reply.send(reference_decode(
            &model,
            &mut ctx,
            o.batch_tokens,
            &prompt,
            n,
        ));
    }
}

/// The context the reference loop decodes in: the same settings as ours (threads, context
/// size, batch, full sliding-window cache, KV cache type).
fn reference_params(o: &LlamaOptions) -> LlamaContextParams {
    super::worker::context_params(o)
}

/// Decodes on `o`'s model, threads and priority until `stop` is set, as a busy agent loads the
/// machine — on the calling thread, which `o.priority` schedules first. `decoding` is told once
/// the model is loaded and the first tokens are decoded. Returns tokens decoded and seconds.
pub fn decode_until(
    o: &LlamaOptions,
    stop: &std::sync::atomic::AtomicBool,
    decoding: &mpsc::Sender<()>,
) -> Result<(u64, f64), LlamaError> {
    let err = |e: &dyn std::fmt::Display| LlamaError::Decode(e.to_string());
    super::worker::lower_priority(o);
    let backend = backend()?;
    let model = LlamaModel::load_from_file(backend, &o.model_path, &LlamaModelParams::default())
        .map_err(|e| err(&e))?;
    let mut ctx = model
        .new_context(backend, reference_params(o))
        .map_err(|e| err(&e))?;
    let (mut tokens, mut told) = (0u64, false);
    let started = Instant::now();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        ctx.clear_kv_cache();
        reference_decode(&model, &mut ctx, o.batch_tokens, LOAD_PROMPT, 32)?;
        tokens += 32;
        if !told {
            let _ = decoding.send(());
            told = true;
        }
    }
    Ok((tokens, started.elapsed().as_secs_f64()))
}

/// What the load decodes after: a mission turn's opening, as an agent's prompt starts.
const LOAD_PROMPT: &str = "You fly a quadrotor on a delivery. Telemetry: position 102, 70, 32 m; \
     battery 81 %; link good. Decide the next action as JSON.";

/// llama.cpp's `simple` example loop (as in `llama-cpp-2`'s examples): tokenize, decode the
/// prompt, then sample and decode one token at a time — on its own model and a context with the
/// same settings as ours (threads, context size, batch, full sliding-window cache), so the
/// ratio measures our decode loop and nothing else. Returns decode tokens/s.
pub fn reference_decode(
    model: &LlamaModel,
    ctx: &mut LlamaContext<'_>,
    batch_tokens: u32,
    prompt: &str,
    n_tokens: u64,
) -> Result<f64, LlamaError> {
    let err = |e: &dyn std::fmt::Display| LlamaError::Decode(e.to_string());
    let tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
    let n_batch = batch_tokens.max(1) as usize;
    let mut batch = LlamaBatch::new(n_batch, 1);
    let last = tokens.len().saturating_sub(1);
    for (c, chunk) in tokens.chunks(n_batch).enumerate() {
        batch.clear();
        for (i, tok) in chunk.iter().enumerate() {
            let pos = c * n_batch + i;
            batch
                .add(*tok, pos as i32, &[0], pos == last)
                .map_err(|e| err(&e))?;
        }
        ctx.decode(&mut batch).map_err(|e| err(&e))?;
    }
    // Greedy, as our backend decodes by default (the example's `dist` stage would add a
    // softmax over the whole vocabulary to every step and flatter the comparison).
    let mut sampler = LlamaSampler::greedy();
    let first = tokens.len() as i32;
    let started = Instant::now();
    for n_cur in (first..).take(n_tokens as usize) {
        let tok = sampler.sample(ctx, batch.n_tokens() - 1);
        batch.clear();
        batch.add(tok, n_cur, &[0], true).map_err(|e| err(&e))?;
        ctx.decode(&mut batch).map_err(|e| err(&e))?;
    }
    Ok(n_tokens as f64 / started.elapsed().as_secs_f64())
}
