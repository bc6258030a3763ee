//! The OpenAI-compatible backend against a real server: llama-cpp-python's server from the
//! project venv, started on the test model on a free loopback port and killed at the end. The
//! same contexts as the local backend's conformance test must give schema-valid turns.
//!
//! Needs the model (`ALPHA3_MODEL` or `scripts/model-path.sh`) and `llama_cpp` in the venv
//! (`scripts/setup.sh`); without them the test skips with a reason, except in CI (`CI=true`).
#![allow(clippy::unwrap_used)]

use alpha3::policy::openai::{OpenAiGenerator, OutputMode};
use alpha3::policy::synthetic::{first_context, next_situation};
use alpha3::policy::{LlmPolicy, Policy};
use alpha3_core::config::OpenAiConfig;
use alpha3_core::protocol::{Action, AgentTurn, agent_turn_schema, catalogue};
use alpha3_test_support::{LlamaServer, free_port, test_model};
use serde_json::json;
use std::time::Duration;
use tokio::time::Instant;

fn turn(intent: &str, a: Action) -> AgentTurn {
    AgentTurn {
        intent: intent.into(),
        actions: vec![a],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_openai_compatible_server_gives_schema_valid_turns() {
    let Some(model) = test_model() else { return };
    let Some(mut server) = LlamaServer::start(&model, None) else {
        return;
    };
    let cfg = OpenAiConfig {
        base_url: server.base_url(),
        more_base_urls: vec![],
        max_in_flight_per_endpoint: None,
        model: "gemma3-270m".into(),
        api_key_env: None,
        timeout_ms: 60_000,
        max_retries: 2,
        max_completion_tokens: 160,
        temperature: 0.0,
        gbnf_grammar: false,
    };
    let g = OpenAiGenerator::new(&cfg, &catalogue()).unwrap();
    let mut p = LlmPolicy::with_attempts("gemma3-270m-openai", 3, g, catalogue()).unwrap();
    let strict = jsonschema::validator_for(&agent_turn_schema(&catalogue())).unwrap();
    let mut ctx = first_context();
    let script = [
        turn(
            "take_off",
            Action::mcp("takeoff", json!({"altitude_m": 30})),
        ),
        turn("read_state", Action::mcp("read_telemetry", json!({}))),
    ];
    let mut valid = 0;
    for k in 0..=script.len() {
        let d = p
            .decide(&ctx, Instant::now() + Duration::from_secs(120))
            .await;
        server.assert_alive();
        let a = d.attempts.last().unwrap();
        eprintln!(
            "context {k}: {} attempt(s), prompt {} completion {} tokens, {:.0} ms, mode {:?}: {}",
            d.calls(),
            a.prompt_tokens,
            a.completion_tokens,
            a.latency_ms,
            p.generator().mode(),
            a.completion
        );
        let t = d
            .outcome
            .as_ref()
            .unwrap_or_else(|e| panic!("context {k}: {e}"));
        assert!(strict.is_valid(&serde_json::to_value(t).unwrap()));
        assert!(
            a.prompt_tokens > 0 && a.completion_tokens > 0,
            "usage comes from the server"
        );
        valid += 1;
        if let Some(next) = script.get(k) {
            let s = next_situation(&ctx.now, next, k + 1);
            ctx.advance(next.clone(), s);
        }
    }
    assert_eq!(valid, 3);
    // llama-cpp-python refuses `json_schema` response formats; the backend stepped down to a
    // forced tool call, which it constrains with the same schema.
    assert_eq!(p.generator().mode(), OutputMode::ToolCall);
}

#[tokio::test]
async fn an_unreachable_server_is_retried_then_reported() {
    let port = free_port(); // nothing listens there now
    let cfg = OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        more_base_urls: vec![],
        max_in_flight_per_endpoint: None,
        model: "m".into(),
        api_key_env: None,
        timeout_ms: 2_000,
        max_retries: 2,
        max_completion_tokens: 16,
        temperature: 0.0,
        gbnf_grammar: false,
    };
    let g = OpenAiGenerator::new(&cfg, &catalogue()).unwrap();
    let mut p = LlmPolicy::with_attempts("down", 1, g, catalogue()).unwrap();
    let started = std::time::Instant::now();
    let d = p
        .decide(&first_context(), Instant::now() + Duration::from_secs(20))
        .await;
    assert!(d.is_failure());
    assert_eq!(d.calls(), 1);
    assert!(
        d.attempts[0]
            .error
            .as_deref()
            .unwrap()
            .contains("request failed")
    );
    // Two retries with backoff (250 ms, 500 ms) before giving up.
    assert!(
        started.elapsed() >= Duration::from_millis(700),
        "{:?}",
        started.elapsed()
    );
}
