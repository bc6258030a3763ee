//! World speed: physics steps per second of the built-in world in flight (wind, traffic,
//! sensors, battery, evaluator), and how many times faster than real time that is.

use super::scene::Scene;
use super::stats::median;
use alpha3_core::gate::GateContextError;
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct WorldFigures {
    pub scenario: String,
    pub dt_ms: f64,
    pub steps_per_pass: u64,
    pub passes: u32,
    /// Median over passes.
    pub steps_per_s: f64,
    /// Simulated seconds per wall second.
    pub real_time_factor: f64,
}

/// Steps a copy of the cruising world `steps` times, `passes` times (each from the same start).
pub fn measure(steps: u64, passes: u32) -> Result<WorldFigures, GateContextError> {
    let scene = Scene::busiest()?;
    let dt = scene.world.dt();
    let (steps, passes) = (steps.max(1), passes.max(1));
    let mut rates = Vec::new();
    for _ in 0..passes {
        let mut w = scene.world.clone();
        let started = Instant::now();
        for _ in 0..steps {
            w.step(dt);
        }
        let s = started.elapsed().as_secs_f64().max(1e-9);
        black_box(w.truth());
        rates.push(steps as f64 / s);
    }
    let steps_per_s = median(&mut rates);
    Ok(WorldFigures {
        scenario: scene.world.scenario().name.clone(),
        dt_ms: dt.as_secs_f64() * 1000.0,
        steps_per_pass: steps,
        passes,
        steps_per_s,
        real_time_factor: steps_per_s * dt.as_secs_f64(),
    })
}
