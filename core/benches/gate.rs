//! The gate's hot path: `evaluate` for a set-waypoint command in a busy airspace (a 100-vertex
//! polygon fence, 20 no-fly cylinders of which 5 move, 10 traffic tracks; see
//! `tests/gate_common`). Goal: p99 ≤ 20 µs.
//!
//! `cargo bench -p alpha3-core --bench gate` runs criterion (mean and spread), then times
//! 200,000 single calls and prints p50, p99, p99.9 and the mean, since criterion reports means.

#[path = "../tests/gate_common/mod.rs"]
mod gate_common;

use alpha3_core::gate::{GateState, Verdict, evaluate, time_to_breach};
use criterion::{Criterion, criterion_group};
use gate_common::{NOW, context, set_waypoint, snapshot};
use std::hint::black_box;
use std::time::Instant;

fn bench_evaluate(c: &mut Criterion) {
    let ctx = context().expect("the fixture is valid");
    let snap = snapshot();
    let cmd = set_waypoint();
    let check = evaluate(&ctx, &snap, &cmd, NOW, &mut GateState::default());
    assert!(matches!(check, Verdict::Approved(_)), "{check:?}");
    c.bench_function("gate/evaluate set_waypoint (busy airspace)", |b| {
        b.iter(|| {
            let mut state = GateState::default();
            evaluate(
                black_box(&ctx),
                black_box(&snap),
                black_box(&cmd),
                NOW,
                &mut state,
            )
        })
    });
    c.bench_function("gate/time_to_breach (busy airspace)", |b| {
        b.iter(|| time_to_breach(black_box(&ctx), black_box(&snap), NOW))
    });
}

/// Times single calls so the tail is visible (criterion only reports means).
fn percentiles() {
    let ctx = context().expect("the fixture is valid");
    let snap = snapshot();
    let cmd = set_waypoint();
    let mut samples_ns: Vec<u64> = Vec::with_capacity(200_000);
    for i in 0..220_000u64 {
        let mut state = GateState::default();
        let start = Instant::now();
        let v = evaluate(&ctx, black_box(&snap), black_box(&cmd), NOW, &mut state);
        let ns = start.elapsed().as_nanos() as u64;
        black_box(v);
        if i >= 20_000 {
            samples_ns.push(ns); // the first 20,000 warm the caches
        }
    }
    samples_ns.sort_unstable();
    let at = |q: f64| samples_ns[((samples_ns.len() - 1) as f64 * q).round() as usize] as f64 / 1e3;
    let mean = samples_ns.iter().sum::<u64>() as f64 / samples_ns.len() as f64 / 1e3;
    println!(
        "gate/evaluate set_waypoint, {} single calls: p50 {:.2} µs, p99 {:.2} µs, p99.9 {:.2} µs, \
         max {:.2} µs, mean {:.2} µs (goal: p99 ≤ 20 µs)",
        samples_ns.len(),
        at(0.50),
        at(0.99),
        at(0.999),
        at(1.0),
        mean
    );
}

criterion_group!(benches, bench_evaluate);

fn main() {
    benches();
    percentiles();
    Criterion::default().configure_from_args().final_summary();
}
