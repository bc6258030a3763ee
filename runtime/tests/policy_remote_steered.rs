//! The steered policy on the remote backend with the exact turn grammar: llama-cpp-python's
//! server (a real llama.cpp server on loopback) gets each decision's narrowed grammar as GBNF
//! in its `grammar` field (`gbnf_grammar = true`). The server must accept every grammar, and
//! every completion must be an admitted turn: the canonical compact text, no waypoint twice.
//!
//! Needs the model and llama-cpp-python (`scripts/setup.sh`); skips without them outside CI.
#![allow(clippy::unwrap_used)]

mod bench_support;

use alpha3_core::protocol::AgentTurn;
use alpha3_test_support::{LlamaServer, test_model};
use bench_support::{bench, one_scenario_suite, record_names, repeats_a_waypoint};
use serde_json::Value;

#[test]
fn a_llama_cpp_server_decodes_the_narrowed_turn_grammar() {
    let Some(model) = test_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(mut server) = LlamaServer::start(&model, None) else {
        return;
    };
    let policy = dir.path().join("remote.toml");
    std::fs::write(
        &policy,
        format!(
            r#"[policy]
name = "gemma-remote-steered"
backend = "openai"
deadline_ms = 300000
max_attempts = 3

[policy.openai]
base_url = "{}"
model = "gemma3-270m"
timeout_ms = 240000
max_retries = 1
max_completion_tokens = 192
temperature = 0.0
gbnf_grammar = true

[policy.steering]
gate_aware_grammar = true
state_block = true
"#,
            server.base_url()
        ),
    )
    .unwrap();
    let suite = one_scenario_suite(dir.path(), "remote-steered", &[policy], (4, 6), 100_000);
    let out = dir.path().join("out");
    let run = bench(&[
        "--suite",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    // A server that died mid-run is named as a crash, not as the refused connections after it.
    server.assert_alive();
    assert_eq!(run.status.code(), Some(0), "bench failed");
    let record = out.join("records").join(&record_names(&out)[0]);
    let events: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut generations = 0;
    for g in events.iter().filter(|e| e["event"] == "generation") {
        generations += 1;
        assert!(
            g["error"].is_null(),
            "the server refused or broke a turn: {g}"
        );
        assert!(g["admissible"].as_u64().unwrap() >= 2, "{g}");
        let text = g["completion"].as_str().unwrap();
        let turn: AgentTurn = serde_json::from_str(text).unwrap();
        // Unconstrained, the model writes spaces, other numbers or other actions; under the
        // grammar its text is the canonical rendering of an admitted turn.
        assert_eq!(serde_json::to_string(&turn).unwrap(), text);
        assert!(
            !repeats_a_waypoint(&turn.actions),
            "a waypoint twice: {text}"
        );
        eprintln!(
            "turn {}: admissible {}, {} prompt tokens: {text}",
            g["turn"], g["admissible"], g["prompt_tokens"]
        );
    }
    assert!(generations >= 2, "only {generations} generation(s)");
    assert!(
        events.iter().any(|e| e["event"] == "termination"),
        "the record is complete"
    );
}
