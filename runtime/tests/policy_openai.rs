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
use alpha3_test_support::{python_path, require_or_skip, test_model};
use serde_json::json;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::time::Instant;

/// The server process; killed (and reaped) when dropped, whatever the test's outcome.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

fn start_server(model: &PathBuf) -> Option<(Server, u16)> {
    let py = python_path();
    let probe = Command::new(&py)
        .args(["-c", "import llama_cpp.server"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        require_or_skip(
            "llama-cpp-python's server",
            &format!("not installed for {} (run scripts/setup.sh)", py.display()),
        );
        return None;
    }
    let port = free_port();
    let child = Command::new(&py)
        .args([
            "-m",
            "llama_cpp.server",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .arg("--model")
        .arg(model)
        .args([
            "--model_alias",
            "gemma3-270m",
            "--chat_format",
            "gemma",
            "--n_ctx",
            "4096",
        ])
        .args(["--n_threads", "2", "--seed", "42", "--verbose", "false"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let until = std::time::Instant::now() + Duration::from_secs(120);
    while std::time::Instant::now() < until {
        if let Some(r) = get(port, "/v1/models")
            && r.starts_with("HTTP/1.1 200")
        {
            return Some((server, port));
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            panic!("the server exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("the server did not answer on port {port} within 120 s");
}

fn turn(intent: &str, a: Action) -> AgentTurn {
    AgentTurn {
        intent: intent.into(),
        actions: vec![a],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_openai_compatible_server_gives_schema_valid_turns() {
    let Some(model) = test_model() else { return };
    let Some((_server, port)) = start_server(&model) else {
        return;
    };
    let cfg = OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "gemma3-270m".into(),
        api_key_env: None,
        timeout_ms: 60_000,
        max_retries: 2,
        max_completion_tokens: 160,
        temperature: 0.0,
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
        model: "m".into(),
        api_key_env: None,
        timeout_ms: 2_000,
        max_retries: 2,
        max_completion_tokens: 16,
        temperature: 0.0,
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
