//! The local backend generating for real on the test model (Gemma 3 270M Q4_K_M): schema-valid
//! agent turns for a handful of rendered contexts, and the KV cache kept across the turns of an
//! episode (turn k evaluates only its new tokens).
//!
//! The model is found through `ALPHA3_MODEL` or `scripts/model-path.sh`; without it these tests
//! skip with a reason, except in CI (`CI=true`), where a missing model is a failure.
#![allow(clippy::unwrap_used)]

use alpha3::policy::llama::{LlamaGenerator, LlamaOptions, LlamaRequest, speed};
use alpha3::policy::synthetic::{first_context, next_situation};
use alpha3::policy::{DecisionContext, LlmPolicy, Policy};
use alpha3_core::protocol::{Action, AgentTurn, agent_turn_schema, catalogue};
use alpha3_test_support::test_model;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;
use tokio::time::Instant;

/// One model test at a time within this binary: the machine has two cores.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn policy(path: PathBuf) -> LlmPolicy<LlamaGenerator> {
    let g = LlamaGenerator::load(&LlamaOptions::for_model(path), &catalogue()).unwrap();
    LlmPolicy::with_attempts("gemma3-270m", 3, g, catalogue()).unwrap()
}

fn turn(intent: &str, actions: Vec<Action>) -> AgentTurn {
    AgentTurn {
        intent: intent.into(),
        actions,
    }
}

/// Contexts of several kinds: on the ground, airborne, after an operator message, hard link.
fn contexts() -> Vec<DecisionContext> {
    let script = [
        turn(
            "take_off",
            vec![Action::mcp("takeoff", json!({"altitude_m": 30}))],
        ),
        turn("read_state", vec![Action::mcp("read_telemetry", json!({}))]),
        turn(
            "go_to_survey_point",
            vec![Action::mcp(
                "set_waypoint",
                json!({"waypoint": {"x": 150, "y": 100, "z": 30}}),
            )],
        ),
        turn("check_link", vec![Action::mcp("read_network", json!({}))]),
    ];
    let mut out = vec![first_context()];
    let mut ctx = first_context();
    for (k, t) in script.into_iter().enumerate() {
        let next = next_situation(&ctx.now, &t, k + 1);
        ctx.advance(t, next);
        out.push(ctx.clone());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn the_test_model_answers_schema_valid_turns() {
    let _g = SERIAL.lock().await;
    let Some(path) = test_model() else { return };
    let mut p = policy(path);
    let strict = jsonschema::validator_for(&agent_turn_schema(&catalogue())).unwrap();
    let names: Vec<&str> = catalogue().iter().map(|t| t.name).collect();
    for (i, ctx) in contexts().iter().enumerate() {
        let d = p
            .decide(ctx, Instant::now() + Duration::from_secs(60))
            .await;
        let a = &d.attempts[0];
        eprintln!(
            "context {i}: {} attempt(s), prompt {} (cached {}), completion {} tokens, {:.0} ms: {}",
            d.calls(),
            a.prompt_tokens,
            a.cached_tokens,
            a.completion_tokens,
            a.latency_ms,
            a.completion
        );
        let t = d
            .outcome
            .as_ref()
            .unwrap_or_else(|e| panic!("context {i}: {e}"));
        assert_eq!(d.calls(), 1, "constrained decoding needs no repair");
        assert!(strict.is_valid(&serde_json::to_value(t).unwrap()));
        assert!(!t.actions.is_empty());
        assert!(t.actions.iter().all(|a| names.contains(&a.name())));
        assert!(a.ttft_ms.is_some_and(|v| v > 0.0 && v <= a.latency_ms));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn each_turn_evaluates_only_its_new_tokens() {
    let _g = SERIAL.lock().await;
    let Some(path) = test_model() else { return };
    let mut p = policy(path.clone());
    let (decisions, wall_s) = speed::episode(&mut p, 4).await;
    eprintln!("4 turns in {wall_s:.2} s");
    let first: Vec<_> = decisions.iter().map(|d| d.attempts[0].clone()).collect();
    assert_eq!(first[0].cached_tokens, 0, "a fresh cache holds nothing");
    for k in 1..first.len() {
        let (prev, cur) = (&first[k - 1], &first[k]);
        eprintln!(
            "turn {}: prompt {} cached {} evaluated {}",
            k + 1,
            cur.prompt_tokens,
            cur.cached_tokens,
            cur.evaluated_tokens()
        );
        // Everything up to the previous answer is reused; only the answer's last token (never
        // evaluated: generation stops at it) and the new messages are evaluated.
        assert!(
            cur.cached_tokens + 1 >= prev.prompt_tokens + prev.completion_tokens,
            "turn {}: cached {} < previous prompt {} + completion {}",
            k + 1,
            cur.cached_tokens,
            prev.prompt_tokens,
            prev.completion_tokens
        );
        let new_tokens = cur.prompt_tokens - (prev.prompt_tokens + prev.completion_tokens);
        assert!(cur.evaluated_tokens() <= new_tokens + 1);
        assert!(cur.evaluated_tokens() * 3 < cur.prompt_tokens);
    }
    // The same last prompt without the cache is evaluated in full.
    let mut ctx = first_context();
    for (k, d) in decisions.iter().enumerate().take(3) {
        let t = d.turn_or_fallback();
        let next = next_situation(&ctx.now, &t, k + 1);
        ctx.advance(t, next);
    }
    let g = p.generator();
    let fresh = g
        .complete(
            p.messages(&ctx),
            LlamaRequest {
                reuse_cache: false,
                ..g.request(std::time::Instant::now() + Duration::from_secs(60))
            },
        )
        .await
        .unwrap();
    assert_eq!(fresh.cached_tokens, 0);
    assert!(fresh.prompt_tokens.abs_diff(first[3].prompt_tokens) <= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_missing_model_file_is_a_typed_error() {
    let err = LlamaGenerator::load(
        &LlamaOptions::for_model("/nonexistent/model.gguf"),
        &catalogue(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/model.gguf"), "{err}");
}
