//! The steered policy on the remote backend with the exact turn grammar: llama-cpp-python's
//! server (a real llama.cpp server on loopback) gets each decision's narrowed grammar as GBNF
//! in its `grammar` field (`gbnf_grammar = true`). The server must accept every grammar, and
//! every completion must be an admitted turn: the canonical compact text, no waypoint twice.
//!
//! Needs the model and llama-cpp-python (`scripts/setup.sh`); skips without them outside CI.
#![allow(clippy::unwrap_used)]

use alpha3_core::protocol::AgentTurn;
use alpha3_test_support::{LlamaServer, root, test_model};
use serde_json::Value;
use std::process::Command;

#[test]
fn a_llama_cpp_server_decodes_the_narrowed_turn_grammar() {
    let Some(model) = test_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(server) = LlamaServer::start(&model, None) else {
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
    let root = root().canonicalize().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            r#"[bench]
name = "remote-steered"
scenarios = ["{root}/configs/scenarios"]
max_scenarios = 1
seeds = [1]
policies = ["{policy}"]
concurrency = 1
min_turns = 4
max_turns = 6
max_tokens = 100000
max_tool_actions = 25
base_config = "{root}/configs/alpha3.toml"
"#,
            root = root.display(),
            policy = policy.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let record = std::fs::read_dir(out.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a record");
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
        let waypoints: Vec<String> = turn
            .actions
            .iter()
            .map(|a| serde_json::to_string(a).unwrap())
            .filter(|a| a.contains("\"set_waypoint\""))
            .collect();
        for (k, w) in waypoints.iter().enumerate() {
            assert!(!waypoints[..k].contains(w), "a waypoint twice: {text}");
        }
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
