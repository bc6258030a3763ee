//! `alpha3 perf`: measures this device, so a user knows before flying whether a Raspberry Pi
//! or a Jetson keeps up — the safety gate's latency, the built-in world's speed, the MAVLink
//! decode rate and, with a local model, time to first token and decode tokens/s.
//!
//! Everything runs in one process, one measurement after the other, on the calling thread
//! (the model on its own worker thread), so the figures are for one core of this device.

mod gate;
mod llm;
mod mavlink;
pub mod memory;
mod scene;
pub mod stats;
mod table;
mod under_load;
mod world;

pub use gate::GateFigures;
pub use llm::{LlmFigures, WorkerMemory};
pub use mavlink::MavlinkFigures;
pub use scene::{Scene, busiest_scenario};
pub use under_load::{TickFigures, UnderLoadFigures};
pub use world::WorldFigures;

use crate::policy::llama::LlamaOptions;
use serde::Serialize;

/// What to measure, and how long.
#[derive(Debug, Clone)]
pub struct PerfOptions {
    /// Small counts: a smoke run of every measurement (seconds), not a figure to quote.
    pub quick: bool,
    /// The local model to time, with the policy's settings (context, batch, threads); no LLM
    /// figures without one.
    pub llama: Option<LlamaOptions>,
    /// The decision deadline the LLM figures are judged against.
    pub deadline_ms: u64,
    /// Seconds of the safety tick each way (idle, model at normal priority, model lowered),
    /// the model decoding on every core; none: not measured.
    pub under_load_s: Option<f64>,
}

/// Why a measurement could not run.
#[derive(Debug, thiserror::Error)]
pub enum PerfError {
    #[error("cannot build the gate's context for the perf scenario: {0}")]
    Gate(#[from] alpha3_core::gate::GateContextError),
    #[error("LLM measurement failed: {0}")]
    Llm(#[from] crate::policy::llama::LlamaError),
}

/// One goal and whether this device meets it.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub what: String,
    pub value: f64,
    pub goal: String,
    pub ok: bool,
}

/// Every figure, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct PerfReport {
    pub alpha3_version: String,
    pub arch: String,
    pub os: String,
    /// Threads the OS offers this process.
    pub cpus: usize,
    /// 1-minute load average when the run ended (the machine may be shared).
    pub load_average: Option<f64>,
    pub quick: bool,
    pub gate: GateFigures,
    pub world: WorldFigures,
    pub mavlink: MavlinkFigures,
    /// `null` when no model is configured.
    pub llm: Option<LlmFigures>,
    /// What one model worker holds resident; `null` without a model or off Linux.
    pub worker_memory: Option<WorkerMemory>,
    /// The safety tick while the model decodes (`--under-load`); `null` when not measured.
    pub under_load: Option<UnderLoadFigures>,
    pub checks: Vec<Check>,
}

impl PerfReport {
    /// The human-readable table.
    pub fn to_table(&self) -> String {
        table::render(self)
    }
}

/// The resident memory one model worker may take (issue 31), MB.
pub const WORKER_MEMORY_GOAL_MB: f64 = 400.0;

/// Runs every measurement.
pub async fn run(o: &PerfOptions) -> Result<PerfReport, PerfError> {
    let (gate_calls, steps, passes, mav_passes) = if o.quick {
        (2_000, 5_000, 2, 3)
    } else {
        (100_000, 500_000, 5, 50)
    };
    // First: what the worker costs is read as the growth of the resident set, which memory
    // the other measurements freed (and the worker would reuse) would hide.
    let worker_memory = match &o.llama {
        Some(l) => llm::worker_memory(l, if o.quick { 2 } else { 6 }).await?,
        None => None,
    };
    let gate = gate::measure(gate_calls)?;
    let world = world::measure(steps, passes)?;
    let mavlink = mavlink::measure(mav_passes);
    let llm = match &o.llama {
        Some(l) => Some(llm::measure(l, o.quick).await?),
        None => None,
    };
    let under_load = match (&o.llama, o.under_load_s) {
        (Some(l), Some(secs)) => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            Some(under_load::measure(&l.model_path, cores, secs)?)
        }
        _ => None,
    };
    let mut checks = checks(&gate, &world, &mavlink, llm.as_ref(), o.deadline_ms);
    if let Some(m) = &worker_memory {
        // A worker alone, as one onboard agent runs it.
        checks.push(Check {
            what: "model worker resident (alone), MB".into(),
            value: m.resident_mb,
            goal: format!("≤ {WORKER_MEMORY_GOAL_MB} (a Raspberry Pi 4 has 2–4 GB)"),
            ok: m.resident_mb <= WORKER_MEMORY_GOAL_MB,
        });
        // Per worker as the bench runs them: two workers, one model mapped between them.
        let per_worker = m.per_worker_of_two_mb();
        checks.push(Check {
            what: "model worker resident (each of two sharing the model), MB".into(),
            value: per_worker,
            goal: format!("≤ {WORKER_MEMORY_GOAL_MB} (a Raspberry Pi 4 has 2–4 GB)"),
            ok: per_worker <= WORKER_MEMORY_GOAL_MB,
        });
    }
    Ok(PerfReport {
        alpha3_version: env!("CARGO_PKG_VERSION").to_string(),
        arch: std::env::consts::ARCH.to_string(),
        os: std::env::consts::OS.to_string(),
        cpus: std::thread::available_parallelism().map_or(1, usize::from),
        load_average: load_average(),
        quick: o.quick,
        gate,
        world,
        mavlink,
        llm,
        worker_memory,
        under_load,
        checks,
    })
}

/// The goals that decide whether the device keeps up (see `docs/AARCH64.md`).
fn checks(
    gate: &GateFigures,
    world: &WorldFigures,
    mavlink: &MavlinkFigures,
    llm: Option<&LlmFigures>,
    deadline_ms: u64,
) -> Vec<Check> {
    let mut v = vec![
        Check {
            what: "gate evaluate p99, µs".into(),
            value: gate.evaluate_p99_us,
            goal: "≤ 20".into(),
            ok: gate.evaluate_p99_us <= 20.0,
        },
        Check {
            what: "world real-time factor".into(),
            value: world.real_time_factor,
            goal: "≥ 1 (sitl and onboard world)".into(),
            ok: world.real_time_factor >= 1.0,
        },
        Check {
            what: "one core decoding a PX4-rate stream, %".into(),
            value: mavlink.px4_stream_core_pct,
            goal: "≤ 1".into(),
            ok: mavlink.px4_stream_core_pct <= 1.0,
        },
    ];
    if let Some(l) = llm {
        v.push(Check {
            what: "LLM decision, ms".into(),
            value: l.decision_ms,
            goal: format!("≤ {deadline_ms} (the decision deadline)"),
            ok: l.decision_ms <= deadline_ms as f64,
        });
    }
    v
}

fn load_average() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
