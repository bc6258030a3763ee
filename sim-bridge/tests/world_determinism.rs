//! Same scenario and seed, same world bit for bit; another seed, another world.
#![allow(clippy::unwrap_used)]

use alpha3_core::link::LinkSample;
use alpha3_sim::rollout::{MissionFollower, RolloutConfig, run_episode};
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::world::TruthState;
use alpha3_sim::{World, WorldOptions};

/// Everything observable of one episode, with floats as bits so equality is exact.
#[derive(Debug, PartialEq)]
struct Trace {
    truth: Vec<[u64; 7]>,
    link: Vec<[u64; 5]>,
    telemetry: Vec<[u64; 3]>,
    violations: Vec<(u64, String)>,
    operator: Vec<String>,
    success: bool,
}

fn bits(t: &TruthState) -> [u64; 7] {
    let p = t.position;
    let v = t.ground_velocity;
    [p[0], p[1], p[2], v[0], v[1], t.yaw_deg, t.battery_fraction].map(f64::to_bits)
}

fn link_bits(s: &LinkSample) -> [u64; 5] {
    [
        s.lat_ms,
        s.jitter_ms,
        s.loss_pct,
        s.throughput_mbps,
        s.edge_load,
    ]
    .map(f64::to_bits)
}

fn trace(index: usize, seed: u64) -> Trace {
    let mut w = World::new(suite_scenario(index), WorldOptions::seeded(seed));
    let mut truth = Vec::new();
    let mut telemetry = Vec::new();
    // A minute of hovering with noise, wind and traffic, sampled every 100 ms…
    for i in 1..=600 {
        w.advance_to_ms(i * 100);
        truth.push(bits(&w.truth()));
        let s = w.snapshot();
        telemetry.push([s.position.x, s.position.y, s.position.z].map(f64::to_bits));
    }
    // …then a whole episode with the operator.
    let r = run_episode(
        &mut w,
        &mut MissionFollower::new(3),
        RolloutConfig::default(),
    );
    truth.push(bits(&w.truth()));
    Trace {
        truth,
        link: r.link.iter().map(link_bits).collect(),
        telemetry,
        violations: w
            .violations()
            .iter()
            .map(|v| (v.t_ms, v.detail.clone()))
            .collect(),
        operator: r.operator_turns.iter().map(|t| t.text.clone()).collect(),
        success: r.report.success,
    }
}

#[test]
fn the_same_seed_gives_identical_traces() {
    for index in [0, 7, 13, 44] {
        assert_eq!(trace(index, 42), trace(index, 42), "scenario {index}");
    }
}

#[test]
fn different_seeds_give_different_traces() {
    for index in [0, 7] {
        let (a, b) = (trace(index, 42), trace(index, 43));
        assert_ne!(a.truth, b.truth, "scenario {index}: truth");
        assert_ne!(a.link, b.link, "scenario {index}: link");
        assert_ne!(a.telemetry, b.telemetry, "scenario {index}: telemetry");
    }
}

#[test]
fn a_clone_continues_exactly_like_the_original() {
    let mut a = World::new(suite_scenario(3), WorldOptions::seeded(9));
    a.advance_to_ms(30_000);
    let mut b = a.clone();
    a.advance_to_ms(90_000);
    b.advance_to_ms(90_000);
    assert_eq!(bits(&a.truth()), bits(&b.truth()));
    assert_eq!(link_bits(&a.link_sample()), link_bits(&b.link_sample()));
}
