//! Gate latency: `evaluate` for the next leg and `time_to_breach` for the current trajectory,
//! timed call by call so p50 and p99 are visible (the watchdog runs `time_to_breach` on every
//! tick; every command the agent proposes pays one `evaluate`).

use super::scene::Scene;
use super::stats::{mean, quantile};
use alpha3_core::gate::{GateContextError, GateState, evaluate, time_to_breach};
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct GateFigures {
    pub scenario: String,
    pub fence_vertices: usize,
    pub no_fly_zones: usize,
    pub traffic: usize,
    pub peer_plans: usize,
    /// The verdict on the timed command (approved means every check ran to the end).
    pub verdict: String,
    pub calls: u32,
    pub evaluate_p50_us: f64,
    pub evaluate_p99_us: f64,
    pub evaluate_mean_us: f64,
    pub time_to_breach_p50_us: f64,
    pub time_to_breach_p99_us: f64,
}

/// Times `calls` single calls of each (after a tenth as many to warm the caches).
pub fn measure(calls: u32) -> Result<GateFigures, GateContextError> {
    let scene = Scene::busiest()?;
    let snapshot = scene.world.snapshot();
    let now = scene.world.now_ms();
    let verdict = evaluate(
        &scene.gate,
        &snapshot,
        &scene.command,
        now,
        &mut GateState::default(),
    );
    let calls = calls.max(1);
    let warm = calls / 10;
    let mut eval_us = Vec::with_capacity(calls as usize);
    let mut ttb_us = Vec::with_capacity(calls as usize);
    for i in 0..calls + warm {
        let mut state = GateState::default();
        let started = Instant::now();
        let v = evaluate(
            black_box(&scene.gate),
            black_box(&snapshot),
            black_box(&scene.command),
            now,
            &mut state,
        );
        let e = started.elapsed();
        black_box(v);
        let started = Instant::now();
        let b = time_to_breach(black_box(&scene.gate), black_box(&snapshot), now);
        let t = started.elapsed();
        black_box(b);
        if i >= warm {
            eval_us.push(e.as_secs_f64() * 1e6);
            ttb_us.push(t.as_secs_f64() * 1e6);
        }
    }
    eval_us.sort_by(f64::total_cmp);
    ttb_us.sort_by(f64::total_cmp);
    Ok(GateFigures {
        scenario: scene.world.scenario().name.clone(),
        fence_vertices: scene.fence_vertices,
        no_fly_zones: scene.no_fly_zones,
        traffic: scene.traffic,
        peer_plans: scene.peer_plans,
        verdict: verdict.outcome().as_str().to_string(),
        calls,
        evaluate_p50_us: quantile(&eval_us, 0.5),
        evaluate_p99_us: quantile(&eval_us, 0.99),
        evaluate_mean_us: mean(&eval_us),
        time_to_breach_p50_us: quantile(&ttb_us, 0.5),
        time_to_breach_p99_us: quantile(&ttb_us, 0.99),
    })
}
