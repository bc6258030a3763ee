//! The OpenAI-compatible backend's API key never shows: not in logs (every tracing event at
//! TRACE, captured), not in the flight record, not in error messages or `Debug` output — even
//! when a hostile or misconfigured server echoes the `Authorization` header back in its error
//! bodies, or a model repeats the key in its answer.
//!
//! A fake chat-completions server on loopback answers from a script: a valid turn, a 401 and a
//! 500 that echo the bearer token, a 200 whose completion contains the key, garbage. A whole
//! closed-loop episode flies against it through `LlmPolicy`. A second script echoes the key
//! only in encoded forms (`\u`-escaped once or twice, inside the turn or the body, and
//! percent-encoded) to `alpha3 bench`: nothing it leaves behind holds the key, decoded or not.

#![allow(clippy::unwrap_used)]

use alpha3::agent::run_episode;
use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::LlmPolicy;
use alpha3::policy::openai::{OpenAiError, OpenAiGenerator};
use alpha3::recorder::Recorder;
use alpha3_core::config::{Config, OpenAiConfig};
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::catalogue;
use alpha3_sim::scenario::parse_scenario;
use alpha3_sim::{World, WorldOptions};
use alpha3_test_support::root;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const KEY: &str = "sk-alpha3-SECRET-7f3a9c1e5b2d4086";

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

/// Every character of `s` as a JSON `\uXXXX` escape.
fn u_escaped(s: &str) -> String {
    s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

/// A valid turn whose intent is `intent`, as the model's text.
fn turn_with_intent(intent: &str) -> String {
    format!(
        r#"{{"intent": "{intent}", "actions": [{{"type": "mcp", "name": "read_telemetry", "args": {{}}}}]}}"#
    )
}

/// A server that echoes the key only encoded, each form decoding to the key somewhere on its
/// way into a record or a prompt.
fn escaped_reply(n: usize, auth: &str) -> (u16, String) {
    let ok = |content: &str| {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
        .to_string()
    };
    match n % 5 {
        // The probe of issue 15: escaped inside the turn, so the parsed intent is the key.
        0 => (200, ok(&turn_with_intent(&u_escaped(KEY)))),
        // Escaped in the body: the completion text itself holds the key once the body is read.
        1 => {
            let content = turn_with_intent(&u_escaped(KEY)).replace('"', "\\\"");
            (
                200,
                format!(
                    r#"{{"choices": [{{"message": {{"role": "assistant", "content": "{content}"}}}}], "usage": {{"prompt_tokens": 10, "completion_tokens": 5}}}}"#
                ),
            )
        }
        // Percent-encoded in the intent.
        2 => {
            let pct: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
            (200, ok(&turn_with_intent(&pct)))
        }
        // Escaped twice inside the turn: the intent holds `\u0073…`, the key after one more
        // decoding.
        3 => (
            200,
            ok(&turn_with_intent(&u_escaped(KEY).replace('\\', "\\\\"))),
        ),
        // An error body echoing the header escaped (fatal: the script's last reply).
        _ => (
            401,
            format!(
                r#"{{"error": {{"message": "Incorrect API key provided: {}"}}}}"#,
                u_escaped(auth)
            ),
        ),
    }
}

type Script = fn(usize, &str) -> (u16, String);

/// Serves `script` on a loopback port until the test process ends; counts requests and
/// checks that each one carried the key (so the key really was in play).
fn serve_script(requests: Arc<AtomicUsize>, with_key: Arc<AtomicUsize>, script: Script) -> String {
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
            let (status, text) = script(n, &auth);
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
        more_base_urls: vec![],
        max_in_flight_per_endpoint: None,
        model: "fake".into(),
        api_key_env: Some("ALPHA3_TEST_KEY_NOT_SET".into()),
        timeout_ms: 2000,
        max_retries: 1,
        max_completion_tokens: 64,
        temperature: 0.0,
        gbnf_grammar: false,
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
    let cfg = openai_config(serve_script(requests.clone(), with_key.clone(), reply));

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

/// `text` decoded by `\uXXXX` escapes, `\\` and `%XX` (ASCII), once each.
fn decode_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let hex = |s: &str| u32::from_str_radix(s, 16).ok().and_then(char::from_u32);
        let (decoded, used) = match c {
            '\\' if rest.get(1..2) == Some("u") => match rest.get(2..6).and_then(hex) {
                Some(d) => (d, 6),
                None => (c, 1),
            },
            '\\' if rest.get(1..2) == Some("\\") => ('\\', 2),
            '%' => match rest.get(1..3).and_then(hex) {
                Some(d) => (d, 3),
                None => (c, 1),
            },
            _ => (c, c.len_utf8()),
        };
        out.push(decoded);
        rest = &rest[used..];
    }
    out
}

/// Where `text` holds the key: plainly, or after up to four rounds of decoding.
fn holds_key(text: &str) -> bool {
    let mut t = text.to_string();
    for _ in 0..5 {
        if t.contains(KEY) {
            return true;
        }
        t = decode_once(&t);
    }
    false
}

/// Every string in a JSON value.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

/// The files under `dir` whose text, or any JSON string in it, holds the key in any form.
fn files_holding_the_key(dir: &Path) -> (usize, Vec<String>) {
    let mut found = Vec::new();
    let mut seen = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            seen += 1;
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            let mut texts = vec![text.clone()];
            for line in std::iter::once(text.as_str()).chain(text.lines()) {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                    strings(&v, &mut texts);
                }
            }
            if texts.iter().any(|t| holds_key(t)) {
                found.push(p.display().to_string());
            }
        }
    }
    (seen, found)
}

#[test]
fn bench_against_a_server_echoing_the_key_encoded_leaves_no_decodable_key() {
    let requests = Arc::new(AtomicUsize::new(0));
    let with_key = Arc::new(AtomicUsize::new(0));
    let url = serve_script(requests.clone(), with_key.clone(), escaped_reply);
    let dir = tempfile::tempdir().unwrap();
    let root = root().canonicalize().unwrap();
    let policy = dir.path().join("remote.toml");
    std::fs::write(
        &policy,
        format!(
            "[policy]\nname = \"remote\"\nbackend = \"openai\"\ndeadline_ms = 10000\nmax_attempts = 3\n\n[policy.openai]\nbase_url = \"{url}\"\nmodel = \"fake\"\napi_key_env = \"ALPHA3_TEST_REMOTE_KEY\"\ntimeout_ms = 2000\nmax_retries = 0\nmax_completion_tokens = 64\ntemperature = 0.0\n"
        ),
    )
    .unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[bench]\nname = \"secrets\"\nscenarios = [\"{root}/configs/scenarios/sc-0000.json\"]\nseeds = [1]\npolicies = [\"{}\"]\nconcurrency = 1\nmin_turns = 12\nmax_turns = 12\nmax_tokens = 100000\nmax_tool_actions = 25\nbase_config = \"{root}/configs/alpha3.toml\"\n",
            policy.display(),
            root = root.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .env("ALPHA3_TEST_REMOTE_KEY", KEY)
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let n = requests.load(Ordering::SeqCst);
    let record: String = std::fs::read_dir(out.join("records"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    let ending = record.lines().find(|l| l.contains("\"termination\""));
    eprintln!(
        "bench exit {:?}, {n} requests, {} record bytes, {ending:?}",
        o.status.code(),
        record.len()
    );
    assert!(
        n >= 5,
        "the whole script was served: {n} requests\n{record}"
    );
    assert_eq!(
        with_key.load(Ordering::SeqCst),
        n,
        "every request carried the key"
    );
    let (files, holding) = files_holding_the_key(&out);
    assert!(
        files >= 2,
        "bench wrote its outputs: {files} files\n{stderr}"
    );
    assert!(
        holding.is_empty(),
        "the API key, decoded, is in {} of {files} files: {holding:?}",
        holding.len()
    );
    for (what, text) in [("stdout", &stdout), ("stderr (logs at TRACE)", &stderr)] {
        assert!(!holds_key(text), "the API key, decoded, is in {what}");
    }
    assert!(
        record.contains("<redacted>"),
        "the echoed forms were redacted"
    );
}
