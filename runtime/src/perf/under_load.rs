//! The safety path while the model decodes (issue 31): a 50 Hz tick on its own thread — as the
//! watchdog and the gate run in flight — sleeps to each deadline, then evaluates the next leg
//! and the time to breach on the busiest scenario. Measured three ways: idle, with the model
//! decoding on every core at the process's own priority, and with the model's threads lowered
//! (SCHED_BATCH, nice 10, [`crate::policy::llama::priority`]). How late each tick woke, and how
//! long its gate work took, are the figures: p50, p99, max.

use super::scene::Scene;
use super::stats::quantile;
use crate::policy::llama::priority::InferencePriority;
use crate::policy::llama::speed::decode_until;
use crate::policy::llama::{LlamaError, LlamaOptions};
use alpha3_core::gate::{GateState, evaluate, time_to_breach};
use serde::Serialize;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The tick's period: a 50 Hz watchdog.
const PERIOD: Duration = Duration::from_millis(20);

/// One way of running the ticks.
#[derive(Debug, Clone, Serialize)]
pub struct TickFigures {
    pub ticks: u32,
    /// How late the tick woke after its deadline, µs.
    pub late_p50_us: f64,
    pub late_p99_us: f64,
    pub late_max_us: f64,
    /// The gate's work in the tick (evaluate + time to breach), µs.
    pub gate_p50_us: f64,
    pub gate_p99_us: f64,
    pub gate_max_us: f64,
    /// The model's decode rate meanwhile, tokens/s (none when idle).
    pub decode_tps: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnderLoadFigures {
    pub period_ms: u64,
    pub seconds_each: f64,
    /// Threads the model decodes on (every core the process has).
    pub llm_threads: u32,
    pub idle: TickFigures,
    /// The model at the process's own priority.
    pub busy_normal: TickFigures,
    /// The model's threads lowered (the runtime's default).
    pub busy_low: TickFigures,
}

/// Ticks for `seconds` each way, the model `model` decoding on `threads` threads.
pub fn measure(model: &Path, threads: u32, seconds: f64) -> Result<UnderLoadFigures, LlamaError> {
    let scene = Scene::busiest().map_err(|e| LlamaError::Backend(e.to_string()))?;
    let span = Duration::from_secs_f64(seconds.max(0.1));
    let idle = ticks(&scene, span, None);
    let mut o = LlamaOptions::for_model(model);
    o.threads = threads.max(1);
    o.priority = InferencePriority::Normal;
    let busy_normal = under(&scene, span, &o)?;
    o.priority = InferencePriority::Low;
    let busy_low = under(&scene, span, &o)?;
    Ok(UnderLoadFigures {
        period_ms: PERIOD.as_millis() as u64,
        seconds_each: span.as_secs_f64(),
        llm_threads: o.threads,
        idle,
        busy_normal,
        busy_low,
    })
}

/// The ticks while the model decodes with `o`.
fn under(scene: &Scene, span: Duration, o: &LlamaOptions) -> Result<TickFigures, LlamaError> {
    let stop = Arc::new(AtomicBool::new(false));
    let (decoding_tx, decoding) = mpsc::channel();
    let load = {
        let (o, stop) = (o.clone(), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("alpha3-perf-load".into())
            .spawn(move || decode_until(&o, &stop, &decoding_tx))
            .map_err(|e| LlamaError::Backend(e.to_string()))?
    };
    // Ticks only once the model decodes: loading it is not the load being measured.
    let started = decoding.recv_timeout(Duration::from_secs(120)).is_ok();
    let figures = started.then(|| ticks(scene, span, None));
    stop.store(true, Ordering::Relaxed);
    let decoded = load.join().map_err(|_| LlamaError::Stopped)??;
    let mut figures = figures.ok_or(LlamaError::Stopped)?;
    figures.decode_tps = Some(decoded.0 as f64 / decoded.1.max(1e-9));
    Ok(figures)
}

/// 50 Hz ticks for `span` on this thread.
fn ticks(scene: &Scene, span: Duration, decode_tps: Option<f64>) -> TickFigures {
    let snapshot = scene.world.snapshot();
    let now_ms = scene.world.now_ms();
    let (mut late, mut work) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let mut deadline = start + PERIOD;
    while deadline.duration_since(start) <= span {
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        let woke = Instant::now();
        late.push(woke.saturating_duration_since(deadline).as_secs_f64() * 1e6);
        let v = evaluate(
            black_box(&scene.gate),
            black_box(&snapshot),
            black_box(&scene.command),
            now_ms,
            &mut GateState::default(),
        );
        let b = time_to_breach(black_box(&scene.gate), black_box(&snapshot), now_ms);
        black_box((v, b));
        work.push(woke.elapsed().as_secs_f64() * 1e6);
        deadline += PERIOD;
    }
    late.sort_by(f64::total_cmp);
    work.sort_by(f64::total_cmp);
    let max = |v: &[f64]| v.last().copied().unwrap_or(0.0);
    TickFigures {
        ticks: late.len() as u32,
        late_p50_us: quantile(&late, 0.5),
        late_p99_us: quantile(&late, 0.99),
        late_max_us: max(&late),
        gate_p50_us: quantile(&work, 0.5),
        gate_p99_us: quantile(&work, 0.99),
        gate_max_us: max(&work),
        decode_tps,
    }
}
