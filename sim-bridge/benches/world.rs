//! World benchmarks: physics steps per second (goal ≥ 1,000,000), one 10-turn episode with the
//! trivial policy, and the whole 50-scenario suite (goal under 2 s).

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_sim::rollout::{MissionFollower, RolloutConfig, run_episode};
use alpha3_sim::scenario::{SUITE_SIZE, suite_scenario};
use alpha3_sim::{World, WorldOptions};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

const STEPS: u64 = 10_000;

/// A world in flight: gusty wind, traffic, noisy sensors, cruising to a far waypoint.
fn cruising_world() -> World {
    // sc-0025: inspection in an industrial area, gusty.
    let mut w = World::new(suite_scenario(25), WorldOptions::seeded(1));
    let far = w
        .scenario()
        .mission
        .waypoints
        .last()
        .copied()
        .unwrap_or([0.0; 3]);
    w.execute_unchecked(&Command::GoTo {
        target: Enu::new(far[0], far[1], far[2]),
        speed_mps: None,
    });
    w.advance_to_ms(5_000);
    w
}

fn dynamics(c: &mut Criterion) {
    let world = cruising_world();
    let dt = world.dt();
    let mut g = c.benchmark_group("dynamics");
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(STEPS));
    g.bench_function("steps", |b| {
        b.iter_batched(
            || world.clone(),
            |mut w| {
                for _ in 0..STEPS {
                    w.step(dt);
                }
                black_box(w.truth())
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn episodes(c: &mut Criterion) {
    let mut g = c.benchmark_group("episode");
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("one_10_turn_trivial_policy", |b| {
        let world = World::new(suite_scenario(0), WorldOptions::seeded(1));
        b.iter_batched(
            || world.clone(),
            |mut w| {
                black_box(
                    run_episode(
                        &mut w,
                        &mut MissionFollower::new(3),
                        RolloutConfig::default(),
                    )
                    .report
                    .success,
                )
            },
            BatchSize::SmallInput,
        )
    });
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("suite_50_trivial_policy", |b| {
        b.iter(|| {
            let mut successes = 0;
            for i in 0..SUITE_SIZE {
                let mut w = World::new(suite_scenario(i), WorldOptions::seeded(1));
                let r = run_episode(
                    &mut w,
                    &mut MissionFollower::new(3),
                    RolloutConfig::default(),
                );
                successes += usize::from(r.report.success);
            }
            black_box(successes)
        })
    });
    g.finish();
}

criterion_group!(benches, dynamics, episodes);
criterion_main!(benches);
