//! The API key never shows in any form a person turns back into it (issue 30, item 9): a
//! server that echoes the key base64-encoded (standard and URL-safe, at each of the three byte
//! offsets), as hex (lower and upper case), upper-cased, reversed, or with zero-width
//! characters between its characters — in the model's answer and in error bodies — leaves none
//! of it in what `alpha3 bench` writes: the flight record, the review page, the report, and
//! the log at `RUST_LOG=debug`. (`secrets.rs` covers the plain, escaped and percent-encoded
//! forms.)
#![allow(clippy::unwrap_used)]

use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `alpha3` binary under test; `ALPHA3_BIN` runs another build (an older one, to show that
/// this test fails without its fix).
fn alpha3() -> std::process::Command {
    std::process::Command::new(
        std::env::var_os("ALPHA3_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_alpha3").into()),
    )
}

const KEY: &str = "sk-alpha3-SECRET-9c41d7e2b05f";
const KEY_ENV: &str = "ALPHA3_TEST_FORMS_KEY";
const INVISIBLE: [char; 5] = ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'];

/// Base64 of `bytes`, standard alphabet, padded.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for g in bytes.chunks(3) {
        let n = (u32::from(g[0]) << 16)
            | (u32::from(*g.get(1).unwrap_or(&0)) << 8)
            | u32::from(*g.get(2).unwrap_or(&0));
        for k in 0..4 {
            out.push(if k <= g.len() {
                char::from(A[((n >> (18 - 6 * k)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Every form the server echoes, named.
fn forms() -> Vec<(String, String)> {
    let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
    let mut forms = vec![
        ("hex".to_string(), hex.clone()),
        ("HEX".into(), hex.to_uppercase()),
        ("upper case".into(), KEY.to_uppercase()),
        ("reversed".into(), KEY.chars().rev().collect()),
    ];
    for (i, prefix) in ["", "u", "us"].iter().enumerate() {
        let encoded = base64(format!("{prefix}{KEY}:").as_bytes());
        let url = encoded.replace('+', "-").replace('/', "_").replace('=', "");
        forms.push((format!("base64 at offset {i}"), encoded));
        forms.push((format!("URL-safe base64 at offset {i}"), url));
    }
    for c in INVISIBLE {
        let split: Vec<String> = KEY.chars().map(String::from).collect();
        forms.push((
            format!("split by U+{:04X}", c as u32),
            split.join(&c.to_string()),
        ));
    }
    forms
}

/// Where `text` still holds the key, in any of the forms (decoding `\u` escapes, dropping
/// invisible characters, ignoring case, reading it backwards, as hex, and decoding every
/// base64 run at every alignment).
fn leaks(text: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    let mut t = text.to_string();
    for _ in 0..3 {
        let visible: String = t.chars().filter(|c| !INVISIBLE.contains(c)).collect();
        let lower = visible.to_lowercase();
        let key = KEY.to_lowercase();
        let reversed: String = key.chars().rev().collect();
        let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        for (what, needle) in [("key", &key), ("reversed key", &reversed), ("hex", &hex)] {
            if lower.contains(needle.as_str()) {
                found.push(what);
            }
        }
        let runs = visible.split(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_' | '='))
        });
        for run in runs.filter(|r| r.len() >= 16) {
            for skip in 0..4 {
                let bytes = base64_decode(&run[skip..]);
                if bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()) {
                    found.push("base64");
                }
            }
        }
        t = decode_u(&t);
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// `\uXXXX` escapes decoded once.
fn decode_u(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("\\u") {
        out.push_str(&rest[..i]);
        let hex = rest.get(i + 2..i + 6);
        match hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => {
                out.push(c);
                rest = &rest[i + 6..];
            }
            None => {
                out.push_str("\\u");
                rest = &rest[i + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reply to request `n`: the forms in turn, each once in the model's answer (the turn's
/// intent) and once in a 500's body.
fn reply(n: usize) -> (u16, String) {
    let all = forms();
    let (_, form) = &all[(n / 2) % all.len()];
    if n.is_multiple_of(2) {
        let turn = json!({"intent": format!("my key is {form}"),
            "actions": [{"type": "mcp", "name": "read_telemetry", "args": {}}]})
        .to_string();
        let body = json!({"choices": [{"message": {"role": "assistant", "content": turn}}],
                          "usage": {"prompt_tokens": 10, "completion_tokens": 5}});
        (200, body.to_string())
    } else {
        let body = json!({"error": {"message": format!("upstream rejected token {form}")}});
        (500, body.to_string())
    }
}

fn serve(requests: Arc<AtomicUsize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let (status, text) = reply(requests.fetch_add(1, Ordering::SeqCst));
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    format!("http://{addr}/v1")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn the_detector_finds_every_form() {
    for (name, form) in forms() {
        assert!(
            !leaks(&format!("{{\"intent\": \"my key is {form}\"}}")).is_empty(),
            "{name}"
        );
    }
    assert!(leaks("an ordinary record line, base64 c2VjcmV0LXNhdWNl").is_empty());
}

#[test]
fn an_echoed_key_in_any_form_never_reaches_the_record_the_review_page_or_the_debug_log() {
    let requests = Arc::new(AtomicUsize::new(0));
    let url = serve(requests.clone());
    let dir = tempfile::tempdir().unwrap();
    let root = alpha3_test_support::root().canonicalize().unwrap();
    let policy = dir.path().join("remote.toml");
    std::fs::write(
        &policy,
        format!(
            "[policy]\nname = \"remote\"\nbackend = \"openai\"\ndeadline_ms = 10000\nmax_attempts = 3\n\n[policy.openai]\nbase_url = \"{url}\"\nmodel = \"fake\"\napi_key_env = \"{KEY_ENV}\"\ntimeout_ms = 2000\nmax_retries = 1\nmax_completion_tokens = 64\ntemperature = 0.0\n"
        ),
    )
    .unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[bench]\nname = \"forms\"\nscenarios = [\"{root}/configs/scenarios/sc-0000.json\"]\nseeds = [1]\npolicies = [\"{}\"]\nconcurrency = 1\nmin_turns = 60\nmax_turns = 60\nmax_tokens = 100000\nmax_tool_actions = 60\nbase_config = \"{root}/configs/alpha3.toml\"\n",
            policy.display(),
            root = root.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = alpha3()
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .env(KEY_ENV, KEY)
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let n = requests.load(Ordering::SeqCst);
    assert!(
        n >= 2 * forms().len(),
        "every form was served, in an answer and in an error body: {n} requests\n{stderr}"
    );
    assert!(
        stderr.contains("DEBUG"),
        "the log is at debug level\n{stderr}"
    );
    let written = files(&out);
    let pages: Vec<&PathBuf> = written
        .iter()
        .filter(|p| p.starts_with(out.join("episodes")))
        .collect();
    assert!(!pages.is_empty(), "bench wrote the review page");
    let mut holding = Vec::new();
    let mut record = String::new();
    for p in &written {
        let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        if p.extension().is_some_and(|e| e == "jsonl") {
            record.push_str(&text);
        }
        let found = leaks(&text);
        if !found.is_empty() {
            holding.push(format!("{}: {found:?}", p.display()));
        }
    }
    let in_log = leaks(&stderr);
    if !in_log.is_empty() {
        holding.push(format!("the debug log: {in_log:?}"));
    }
    eprintln!(
        "bench exit {:?}, {n} requests, {} files, {} log bytes",
        o.status.code(),
        written.len(),
        stderr.len()
    );
    assert!(
        holding.is_empty(),
        "the key, in some form, reached:\n{}",
        holding.join("\n")
    );
    assert!(
        record.matches("<redacted>").count() >= forms().len(),
        "every echoed form was redacted in the record"
    );
}
