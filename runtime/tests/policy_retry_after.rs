//! The remote backend under load shedding, against loopback HTTP servers that answer 429/503
//! with `Retry-After`: it waits the time asked when there is nowhere else to go, gives up at
//! once when that wait would pass the decision's deadline, and with a second endpoint goes
//! there instead and leaves the busy one resting.
#![allow(clippy::unwrap_used)]

use alpha3::policy::openai::OpenAiGenerator;
use alpha3::policy::synthetic::first_context;
use alpha3::policy::{LlmPolicy, Policy};
use alpha3_core::config::OpenAiConfig;
use alpha3_core::protocol::catalogue;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// `(status, extra header line or "", body)` for request `n`.
type Script = fn(usize) -> (u16, &'static str, String);

fn ok_body() -> String {
    let turn =
        r#"{"intent": "look", "actions": [{"type": "mcp", "name": "read_telemetry", "args": {}}]}"#;
    json!({"choices": [{"message": {"role": "assistant", "content": turn}}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
    .to_string()
}

/// Serves `script` on a loopback port for the rest of the test process; counts requests.
fn serve(script: Script) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let requests = Arc::clone(&count);
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
            let (status, header, text) = script(requests.fetch_add(1, Ordering::SeqCst));
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (format!("http://{addr}/v1"), count)
}

fn policy(urls: &[String]) -> LlmPolicy<OpenAiGenerator> {
    let cfg = OpenAiConfig {
        base_url: urls[0].clone(),
        more_base_urls: urls[1..].to_vec(),
        max_in_flight_per_endpoint: None,
        model: "m".into(),
        api_key_env: None,
        timeout_ms: 5_000,
        max_retries: 2,
        max_completion_tokens: 64,
        temperature: 0.0,
        gbnf_grammar: false,
    };
    let g = OpenAiGenerator::new(&cfg, &catalogue()).unwrap();
    LlmPolicy::with_attempts("busy", 1, g, catalogue()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_endpoint_waits_out_retry_after() {
    let (url, n) = serve(|k| match k {
        0 => (
            429,
            "Retry-After: 1\r\n",
            r#"{"error": "slow down"}"#.into(),
        ),
        _ => (200, "", ok_body()),
    });
    let mut p = policy(&[url]);
    let started = std::time::Instant::now();
    let d = p
        .decide(&first_context(), Instant::now() + Duration::from_secs(20))
        .await;
    assert!(!d.is_failure(), "{:?}", d.attempts);
    assert_eq!(n.load(Ordering::SeqCst), 2);
    // The backoff alone would have retried after 250 ms; the server asked for a second.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_past_the_deadline_ends_the_decision_at_once() {
    let (url, n) = serve(|_| {
        (
            503,
            "Retry-After: 30\r\n",
            r#"{"error": "overloaded"}"#.into(),
        )
    });
    let mut p = policy(&[url]);
    let started = std::time::Instant::now();
    let d = p
        .decide(&first_context(), Instant::now() + Duration::from_secs(3))
        .await;
    assert!(d.is_failure());
    let error = d.attempts[0].error.as_deref().unwrap();
    assert!(error.contains("HTTP 503"), "{error}");
    assert_eq!(
        n.load(Ordering::SeqCst),
        1,
        "no request while the server rests"
    );
    // It did not sleep 30 s (nor until the 3 s deadline) for nothing.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_endpoint_rests_while_the_other_serves() {
    let (busy, busy_n) = serve(|_| (429, "Retry-After: 60\r\n", r#"{"error": "busy"}"#.into()));
    let (free, free_n) = serve(|_| (200, "", ok_body()));
    let mut p = policy(&[busy, free]);
    for _ in 0..4 {
        let d = p
            .decide(&first_context(), Instant::now() + Duration::from_secs(20))
            .await;
        assert!(!d.is_failure(), "{:?}", d.attempts);
    }
    assert_eq!(free_n.load(Ordering::SeqCst), 4);
    assert!(
        busy_n.load(Ordering::SeqCst) <= 1,
        "asked once at most, then left resting: {}",
        busy_n.load(Ordering::SeqCst)
    );
}
