//! The OpenAI-compatible backend's API key never shows: not in logs (every tracing event at
//! TRACE, captured), not in the flight record, not in error messages or `Debug` output — even
//! when a hostile or misconfigured server echoes the `Authorization` header back in its error
//! bodies, or a model repeats the key in its answer.
//!
//! A fake chat-completions server on loopback answers from a script: a valid turn, a 401 and a
//! 500 that echo the bearer token, a 200 whose completion contains the key, garbage. A whole
//! closed-loop episode flies against it through `LlmPolicy`.

#![allow(clippy::unwrap_used)]

use alpha3::agent::{EpisodeSettings, profile_for_scenario, run_episode};
use alpha3::policy::LlmPolicy;
use alpha3::policy::openai::{OpenAiError, OpenAiGenerator};
use alpha3::recorder::Recorder;
use alpha3_core::config::{Config, OpenAiConfig};
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::catalogue;
use alpha3_sim::scenario::parse_scenario;
use alpha3_sim::{World, WorldOptions};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const KEY: &str = "sk-alpha3-SECRET-7f3a9c1e5b2d4086";

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Everything the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// The reply to request `n` (0-based): the script cycles; some replies echo `auth`.
fn reply(n: usize, auth: &str) -> (u16, String) {
    let turn = json!({"intent": "look", "actions": [
        {"type": "mcp", "name": "read_telemetry", "args": {}}]})
    .to_string();
    let ok = |content: &str| {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
        .to_string()
    };
    match n % 6 {
        0 => (200, ok(&turn)),
        1 => (
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {auth}")}})
                .to_string(),
        ),
        2 => (
            500,
            format!("upstream failed for request with header {auth}"),
        ),
        3 => (200, ok(&format!("My key is {KEY}. {turn}"))),
        4 => (200, "not json at all".into()),
        _ => (
            200,
            ok(&format!("{{\"intent\": \"{KEY}\", \"actions\": []}}")),
        ),
    }
}

/// Serves the script on a loopback port until the test process ends; counts requests and
/// checks that each one carried the key (so the key really was in play).
fn serve(requests: Arc<AtomicUsize>, with_key: Arc<AtomicUsize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut auth, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..].trim().to_string();
                }
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let n = requests.fetch_add(1, Ordering::SeqCst);
            if auth.contains(KEY) {
                with_key.fetch_add(1, Ordering::SeqCst);
            }
            let (status, text) = reply(n, &auth);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    format!("http://{addr}/v1")
}

fn openai_config(base_url: String) -> OpenAiConfig {
    OpenAiConfig {
        base_url,
        model: "fake".into(),
        api_key_env: Some("ALPHA3_TEST_KEY_NOT_SET".into()),
        timeout_ms: 2000,
        max_retries: 1,
        max_completion_tokens: 64,
        temperature: 0.0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_never_reaches_logs_records_or_errors() {
    let logs = Captured::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let requests = Arc::new(AtomicUsize::new(0));
    let with_key = Arc::new(AtomicUsize::new(0));
    let cfg = openai_config(serve(requests.clone(), with_key.clone()));

    // A missing key: the error names the variable only.
    let missing = OpenAiGenerator::new(&cfg, &catalogue()).unwrap_err();
    assert_eq!(
        missing,
        OpenAiError::MissingKey("ALPHA3_TEST_KEY_NOT_SET".into())
    );

    let generator = OpenAiGenerator::with_key(&cfg, &catalogue(), Some(KEY.into())).unwrap();
    let debug = format!("{generator:?}");
    let mut policy = LlmPolicy::with_attempts("remote", 3, generator, catalogue()).unwrap();
    let debug_policy = format!("{policy:?}");

    let text = std::fs::read_to_string(root().join("configs/scenarios/sc-0000.json")).unwrap();
    let scenario = parse_scenario(&text).unwrap();
    let config =
        Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
            .unwrap();
    let mut settings = EpisodeSettings::from_config(&config, None);
    settings.deadline_ms = 10_000;
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let mut world = World::new(scenario, WorldOptions::seeded(1));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep.jsonl");
    let mut rec = Recorder::create(&path).unwrap();
    let out = run_episode(&mut world, &mut policy, &mut gate, &settings, &mut rec)
        .await
        .unwrap();
    let record = std::fs::read_to_string(&path).unwrap();
    let logs = logs.text();

    eprintln!(
        "{} requests ({} with the key), {} policy calls, {} record bytes, {} log bytes",
        requests.load(Ordering::SeqCst),
        with_key.load(Ordering::SeqCst),
        out.policy_calls,
        record.len(),
        logs.len()
    );
    // The key was in play: every request carried it, and the echoing replies were served.
    let n = requests.load(Ordering::SeqCst);
    assert!(n >= 6, "the whole script was served: {n} requests");
    assert_eq!(with_key.load(Ordering::SeqCst), n);
    assert!(
        record.contains("<redacted>"),
        "the echoed key reached the record, redacted"
    );
    for (what, text) in [
        ("the flight record", &record),
        ("the logs", &logs),
        ("the generator's Debug", &debug),
        ("the policy's Debug", &debug_policy),
        ("the outcome", &format!("{out:?}")),
    ] {
        assert!(!text.contains(KEY), "the API key appears in {what}");
        assert!(
            !text.contains(&KEY[3..20]),
            "part of the API key appears in {what}"
        );
    }
}
