//! One model on several endpoints: two real llama-cpp-python servers on loopback serve a bench
//! of the remote policy (`base_url` + `more_base_urls`, at most one request in flight each),
//! and one of them is killed mid-run. The run finishes on the other: every episode recorded
//! to its end, no decision lost to the dead server, and the survivor kept serving.
//!
//! Needs the model and llama-cpp-python (`scripts/setup.sh`); skips without them outside CI.
#![allow(clippy::unwrap_used)]

use alpha3_test_support::{LlamaServer, root, test_model};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn requests(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count()
}

#[test]
fn a_bench_spreads_over_two_servers_and_survives_losing_one() {
    let Some(model) = test_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (log_a, log_b) = (dir.path().join("a.log"), dir.path().join("b.log"));
    let Some(a) = LlamaServer::start(&model, Some(&log_a)) else {
        return;
    };
    let Some(mut b) = LlamaServer::start(&model, Some(&log_b)) else {
        return;
    };
    let policy = dir.path().join("remote.toml");
    std::fs::write(
        &policy,
        format!(
            r#"[policy]
name = "gemma-two-servers"
backend = "openai"
deadline_ms = 300000
max_attempts = 2

[policy.openai]
base_url = "{}"
more_base_urls = ["{}"]
max_in_flight_per_endpoint = 1
model = "gemma3-270m"
timeout_ms = 240000
max_retries = 1
max_completion_tokens = 64
temperature = 0.0
"#,
            a.base_url(),
            b.base_url()
        ),
    )
    .unwrap();
    let root = root().canonicalize().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            r#"[bench]
name = "two-servers"
scenarios = ["{root}/configs/scenarios"]
max_scenarios = 2
seeds = [1]
policies = ["{policy}"]
concurrency = 2
min_turns = 4
max_turns = 4
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
    let mut bench = Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Kill B once it has served two requests (a generous bound; not a speed target).
    let started = Instant::now();
    while requests(&log_b) < 2 {
        assert!(
            bench.try_wait().unwrap().is_none(),
            "the bench ended before server B served two requests (A {}, B {})",
            requests(&log_a),
            requests(&log_b)
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "B served no requests"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    b.kill();
    let (a_at_kill, b_total) = (requests(&log_a), requests(&log_b));
    let status = bench.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut bench.stderr.take().unwrap(), &mut stderr).unwrap();
    eprintln!("{stderr}");
    let a_total = requests(&log_a);
    eprintln!(
        "server A: {a_at_kill} requests before the kill, {a_total} in all; server B: {b_total}"
    );
    assert!(status.success(), "bench: {status}\n{stderr}");
    assert!(a_total > a_at_kill, "the run went on on server A");

    let (mut records, mut generations) = (0, 0usize);
    for entry in std::fs::read_dir(out.join("records")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        records += 1;
        let events: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(
            events.iter().any(|e| e["event"] == "termination"),
            "every record is complete"
        );
        for e in events.iter().filter(|e| e["event"] == "generation") {
            // A transport failure that reached the policy: the request to the dead server was
            // not moved to the live one.
            let error = e["error"].as_str().unwrap_or_default();
            assert!(
                !(error.contains("request failed") || error.contains("no endpoint")),
                "a decision was lost to the transport: {e}"
            );
            generations += 1;
        }
    }
    assert_eq!(records, 2);
    eprintln!("{generations} generations recorded");
}
