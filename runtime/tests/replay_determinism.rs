//! Determinism of the closed loop (issue 8): an episode re-run on the same scenario and seed
//! with the `replay` of its own decisions writes the same flight record.
//!
//! Two paths:
//! - scripted agent → record R0 → α3-Bench episode (`episode_from_record`) → `ReplayPolicy`
//!   → record R1 → replay again → R2. R1 and R2 are equal line for line; R0 and R1 differ only
//!   by the replay's own accounting (see [`LEGITIMATE`]).
//! - an LLM policy (canned completions, with garbage and empty answers that go through the
//!   repair path) → record L0 → the same policy fed the record's own `generation.completion`s
//!   in order → L1, equal to L0 line for line, prompts and token counts included.
//!
//! Fields that legitimately differ between runs, and only these, are blanked before comparing:
//! see [`LEGITIMATE`].

#![allow(clippy::unwrap_used)]

use alpha3::agent::{EpisodeOutcome, run_episode};
use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::canned::CannedGenerator;
use alpha3::policy::replay::ReplayPolicy;
use alpha3::policy::{EpisodeBrief, LlmPolicy, Policy, from_config};
use alpha3::recorder::{Recorder, read_record};
use alpha3_core::config::Config;
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::{catalogue, render_turn};
use alpha3_core::record::{Event, RecordLine};
use alpha3_core::scenario::Scenario;
use alpha3_core::score::episode_from_record;
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use alpha3_test_support::root;
use serde_json::{Value, json};
use std::path::Path;

/// `(event kind, field)`: what may differ between two runs of the same episode.
/// - `generation.latency_ms`, `generation.ttft_ms`: wall-clock time of a model call;
/// - `header.policy`: the replay runs under its own policy name.
const LEGITIMATE: [(&str, &str); 3] = [
    ("generation", "latency_ms"),
    ("generation", "ttft_ms"),
    ("header", "policy"),
];

fn config() -> Config {
    Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
        .unwrap()
}

/// The scripted agent for `scenario`, built from the config by the policy factory.
fn scripted(scenario: &Scenario) -> Box<dyn Policy> {
    let config = config();
    let settings = EpisodeSettings::from_config(&config, None);
    let vehicle = profile_for_scenario(scenario, config.vehicle.as_ref().unwrap());
    let brief = EpisodeBrief {
        scenario,
        settings: &settings,
        vehicle: &vehicle,
        // The scripted agent draws nothing at random.
        seed: 0,
    };
    from_config(config.policy.as_ref().unwrap(), root(), Some(&brief)).unwrap()
}

/// Flies `policy` on `scenario` with `seed`, writing the record to `path` (header first).
async fn fly(
    scenario: &Scenario,
    seed: u64,
    policy: &mut dyn Policy,
    path: &Path,
) -> (EpisodeOutcome, Vec<RecordLine>) {
    let config = config();
    let settings = EpisodeSettings::from_config(&config, None);
    let profile = profile_for_scenario(scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(scenario, &settings.limits, &profile, 0).unwrap();
    let mut world = World::new(scenario.clone(), WorldOptions::seeded(seed));
    let mut rec = Recorder::create(path).unwrap();
    rec.append(
        0,
        Event::Header {
            episode_id: format!("{}-s{seed}", scenario.name),
            scenario: scenario.name.clone(),
            seed,
            policy: policy.name().to_string(),
            model: None,
            operator_version: alpha3_sim::OPERATOR_VERSION.to_string(),
            metric_version: alpha3_core::METRIC_VERSION.to_string(),
            alpha3_version: "test".into(),
            config: json!({}),
        },
    )
    .unwrap();
    let out = run_episode(&mut world, policy, &mut gate, &settings, &mut rec)
        .await
        .unwrap();
    let record = read_record(path).unwrap();
    assert!(!record.torn_tail);
    (out, record.lines)
}

/// The record as JSON with the [`LEGITIMATE`] fields blanked.
fn normalised(lines: &[RecordLine]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| {
            let mut v = serde_json::to_value(l).unwrap();
            let kind = v["event"].as_str().unwrap_or_default().to_string();
            for (k, field) in LEGITIMATE {
                if k == kind && v.get(field).is_some() {
                    v[field] = Value::Null;
                }
            }
            v
        })
        .collect()
}

/// Asserts equality line by line, naming the first line that differs.
fn assert_same(what: &str, a: &[Value], b: &[Value]) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x, y, "{what}: line {i} differs");
    }
    assert_eq!(a.len(), b.len(), "{what}: {} vs {} lines", a.len(), b.len());
}

fn replay_of(lines: &[RecordLine]) -> ReplayPolicy {
    let parsed = alpha3_core::record::ParsedRecord {
        lines: lines.to_vec(),
        torn_tail: false,
    };
    ReplayPolicy::from_episode("replay", &episode_from_record(&parsed).episode)
}

fn without_generations(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|v| v["event"] != "generation")
        .map(|v| {
            let mut v = v.clone();
            v["seq"] = Value::Null;
            v
        })
        .collect()
}

async fn scripted_then_replayed(index: usize, seed: u64) {
    let scenario = suite_scenario(index);
    let dir = tempfile::tempdir().unwrap();
    let mut scripted = scripted(&scenario);
    let (out0, r0) = fly(
        &scenario,
        seed,
        scripted.as_mut(),
        &dir.path().join("r0.jsonl"),
    )
    .await;
    let mut replay = replay_of(&r0);
    let (out1, r1) = fly(&scenario, seed, &mut replay, &dir.path().join("r1.jsonl")).await;
    let mut replay = replay_of(&r1);
    let (out2, r2) = fly(&scenario, seed, &mut replay, &dir.path().join("r2.jsonl")).await;
    eprintln!(
        "{}: {} lines, {} turns, {} ({}); replays {} and {} lines",
        scenario.name,
        r0.len(),
        out0.turns,
        out0.reason,
        out0.success,
        r1.len(),
        r2.len()
    );
    let (n0, n1, n2) = (normalised(&r0), normalised(&r1), normalised(&r2));
    // The replay of a replay: the same record, generation lines included.
    assert_same(&format!("{} R1 vs R2", scenario.name), &n1, &n2);
    assert_eq!(out1, out2);
    // The scripted run writes no generation lines (it calls no model); the replay writes one
    // per decision. Everything else — every action, verdict, observation, link sample and
    // truth sample, at the same times — is the same.
    assert_same(
        &format!("{} R0 vs R1 (generation lines aside)", scenario.name),
        &without_generations(&n0),
        &without_generations(&n1),
    );
    assert_eq!(
        (out0.reason, out0.success, out0.turns, out0.tool_actions),
        (out1.reason, out1.success, out1.turns, out1.tool_actions)
    );
    // The check can fail: a record is not equal to another seed's.
    let mut replay = replay_of(&r1);
    let (_, other) = fly(
        &scenario,
        seed + 1,
        &mut replay,
        &dir.path().join("other.jsonl"),
    )
    .await;
    assert_ne!(normalised(&other), n1, "another seed gives another record");
}

#[tokio::test]
async fn a_scripted_episode_replayed_from_its_record_writes_the_same_record() {
    scripted_then_replayed(0, 1).await;
}

#[tokio::test]
async fn replays_are_deterministic_across_mission_kinds() {
    // Delivery, surveillance, mapping, with traffic and faults among them.
    for (index, seed) in [(3, 2), (10, 7), (25, 3)] {
        scripted_then_replayed(index, seed).await;
    }
}

/// An LLM's completions for `scenario`: the scripted agent's decisions rendered as JSON, with a
/// garbage answer before the first and an empty one before the third (both repaired).
async fn llm_completions(scenario: &Scenario, seed: u64, dir: &Path) -> Vec<String> {
    let mut scripted = scripted(scenario);
    let (_, r0) = fly(
        scenario,
        seed,
        scripted.as_mut(),
        &dir.join("scripted.jsonl"),
    )
    .await;
    let mut out = Vec::new();
    let mut k = 0;
    for l in &r0 {
        if let Event::AgentTurn { agent_turn, .. } = &l.event {
            k += 1;
            match k {
                1 => out.push("I will take off now!".to_string()),
                3 => out.push(String::new()),
                _ => {}
            }
            out.push(render_turn(agent_turn));
        }
    }
    out
}

fn llm(replies: Vec<String>) -> LlmPolicy<CannedGenerator> {
    LlmPolicy::with_attempts("llm", 3, CannedGenerator::new(replies), catalogue()).unwrap()
}

#[tokio::test]
async fn an_llm_episode_replayed_with_its_own_completions_writes_the_same_record() {
    let scenario = suite_scenario(0);
    let dir = tempfile::tempdir().unwrap();
    let replies = llm_completions(&scenario, 1, dir.path()).await;
    let mut first = llm(replies);
    let (out0, l0) = fly(&scenario, 1, &mut first, &dir.path().join("l0.jsonl")).await;
    let completions: Vec<String> = l0
        .iter()
        .filter_map(|l| match &l.event {
            Event::Generation { completion, .. } => Some(completion.clone()),
            _ => None,
        })
        .collect();
    let repaired = l0
        .iter()
        .filter(|l| matches!(&l.event, Event::Generation { error: Some(_), .. }))
        .count();
    eprintln!(
        "{}: {} lines, {} generations ({repaired} repaired), {} ({})",
        scenario.name,
        l0.len(),
        completions.len(),
        out0.reason,
        out0.success
    );
    assert_eq!(
        repaired, 2,
        "the garbage and the empty answer were repaired"
    );
    let mut again = llm(completions);
    let (out1, l1) = fly(&scenario, 1, &mut again, &dir.path().join("l1.jsonl")).await;
    assert_same("L0 vs L1", &normalised(&l0), &normalised(&l1));
    assert_eq!(out0, out1);
}
