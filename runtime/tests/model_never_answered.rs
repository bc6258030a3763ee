//! A model that never answered had no say in its episode, so the episode is not the model's and
//! never scores as valid (issue 30, item 2). A remote policy whose server refuses the key (HTTP
//! 401 to everything) fails its episode at the first call, as a missing key does: the record
//! ends `episode_failed: the model endpoint refused the key: HTTP 401`, the episode is not in
//! the valid set, and `alpha3 bench` and `alpha3 fly` exit 1. A server that fails every call
//! another way fails the episode too (`the model never answered: …`, exit 3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sitl_support;

use alpha3_sim::endpoint::{BootTiming, Endpoint, EndpointOptions, EndpointTransport, LinkOptions};
use alpha3_sim::{World, WorldOptions};
use sitl_support::{alpha3, ended, events, free_udp_port, root, short_scenario};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const KEY: &str = "sk-alpha3-REFUSED-0b1c2d3e4f";
const KEY_ENV: &str = "ALPHA3_TEST_NEVER_ANSWERED_KEY";
const REFUSED: &str = "episode_failed: the model endpoint refused the key: HTTP 401";

/// A chat-completions server that answers every request with `status` and `body`; counts the
/// requests. Serves until the test process ends.
fn serve(status: u16, body: &'static str) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
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
            let mut request = vec![0u8; length];
            let _ = reader.read_exact(&mut request);
            counted.fetch_add(1, Ordering::SeqCst);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (format!("http://{addr}/v1"), requests)
}

/// The `[policy]` section of a remote policy on `url`.
fn policy_section(url: &str) -> String {
    format!(
        "[policy]\nname = \"remote\"\nbackend = \"openai\"\ndeadline_ms = 5000\nmax_attempts = 3\n\n[policy.openai]\nbase_url = \"{url}\"\nmodel = \"fake\"\napi_key_env = \"{KEY_ENV}\"\ntimeout_ms = 2000\nmax_retries = 0\nmax_completion_tokens = 64\ntemperature = 0.0\n"
    )
}

/// `alpha3 bench` of one episode (sc-0000, seed 1) of the remote policy on `url`.
fn bench(dir: &Path, url: &str) -> (Output, PathBuf) {
    let root = root().canonicalize().unwrap();
    let policy = dir.join("remote.toml");
    std::fs::write(&policy, policy_section(url)).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[bench]\nname = \"never-answered\"\nscenarios = [\"{root}/configs/scenarios/sc-0000.json\"]\nseeds = [1]\npolicies = [\"{}\"]\nconcurrency = 1\nmin_turns = 4\nmax_turns = 4\nmax_tokens = 100000\nmax_tool_actions = 25\nbase_config = \"{root}/configs/alpha3.toml\"\n",
            policy.display(),
            root = root.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let output = alpha3()
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .env(KEY_ENV, KEY)
        .output()
        .unwrap();
    (output, out)
}

/// The one record under `out/records`.
fn the_record(out: &Path) -> PathBuf {
    let records: Vec<PathBuf> = std::fs::read_dir(out.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    records[0].clone()
}

fn termination(record: &Path) -> (String, bool) {
    ended(&events(record))
}

/// `alpha3 score --out DIR RECORD`: the leaderboard's valid count of the record's run.
fn valid_episodes(dir: &Path, record: &Path) -> (u64, u64) {
    let out = dir.join("scored");
    let o = alpha3()
        .args(["score", "--out"])
        .arg(&out)
        .arg(record)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let board: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("leaderboard.json")).unwrap())
            .unwrap_or_else(|e| panic!("leaderboard.json: {e}\n{text}"));
    let run = &board["runs"][0];
    (
        run["n"].as_u64().unwrap(),
        run["requested"].as_u64().unwrap(),
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_refused_key_fails_the_bench_episode_and_the_run_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let (url, requests) = serve(
        401,
        r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#,
    );
    let (o, out) = bench(dir.path(), &url);
    let text = stderr(&o);
    let record = the_record(&out);
    let (reason, success) = termination(&record);
    eprintln!(
        "bench exit {:?}, {} requests, termination {reason:?}",
        o.status.code(),
        requests.load(Ordering::SeqCst)
    );
    assert_eq!(
        (reason.as_str(), success),
        (REFUSED, false),
        "the record says the episode failed, and why\n{text}"
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "a refused key is input at fault, as a missing one\n{text}"
    );
    assert!(
        text.contains("the model endpoint refused the key: HTTP 401"),
        "{text}"
    );
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "the episode ended at the first refusal"
    );
    assert_eq!(
        valid_episodes(dir.path(), &record),
        (0, 1),
        "counted in N, never valid"
    );
}

#[test]
fn a_model_that_never_answered_fails_the_bench_episode_and_the_run_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let (url, requests) = serve(404, r#"{"error": {"message": "no such route"}}"#);
    let (o, out) = bench(dir.path(), &url);
    let text = stderr(&o);
    let record = the_record(&out);
    let (reason, success) = termination(&record);
    eprintln!(
        "bench exit {:?}, {} requests, termination {reason:?}",
        o.status.code(),
        requests.load(Ordering::SeqCst)
    );
    assert!(
        reason.starts_with("episode_failed: the model never answered: HTTP 404"),
        "{reason}\n{text}"
    );
    assert!(!success);
    assert!(
        requests.load(Ordering::SeqCst) >= 2,
        "every decision asked the model"
    );
    assert_eq!(o.status.code(), Some(3), "{text}");
    assert_eq!(valid_episodes(dir.path(), &record).0, 0);
}

/// The short scenario's world on the ground at its spawn, as a PX4-like vehicle talking to
/// `port` (a failed episode then needs no hand-over flight).
async fn ground_vehicle(port: u16) -> Endpoint {
    let mut s = short_scenario();
    s["spawn"]["xyz"][2] = serde_json::json!(0.0);
    let scenario = alpha3_sim::scenario::parse_scenario(&s.to_string()).unwrap();
    let world = World::new(scenario, WorldOptions::seeded(1));
    let link = LinkOptions::onboard(EndpointTransport::Udp {
        bind: "127.0.0.1:0".parse().unwrap(),
        remote: Some(format!("127.0.0.1:{port}").parse().unwrap()),
    });
    let mut options = EndpointOptions::single(0, link);
    options.boot = BootTiming {
        heartbeat_ms: 200,
        home_ms: 400,
        arm_ready_ms: 600,
    };
    Endpoint::spawn(world, options).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_fails_the_fly_episode_and_fly_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let (url, requests) = serve(
        401,
        r#"{"error": {"message": "Incorrect API key provided"}}"#,
    );
    let port = free_udp_port();
    let text = std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap();
    let scripted = "[policy]\nname = \"scripted\"\nbackend = \"scripted\"\ndeadline_ms = 1000\nmax_attempts = 1\n";
    assert!(text.contains(scripted));
    let text = text
        .replace(scripted, &policy_section(&url))
        .replace("127.0.0.1:14540", &format!("127.0.0.1:{port}"));
    let config = dir.path().join("alpha3.toml");
    std::fs::write(&config, text).unwrap();
    let mut s = short_scenario();
    s["spawn"]["xyz"][2] = serde_json::json!(0.0);
    let scenario = dir.path().join("ground-short.json");
    std::fs::write(&scenario, s.to_string()).unwrap();
    let out = dir.path().join("out");
    let vehicle = ground_vehicle(port).await;
    let mut fly = alpha3();
    fly.args(["fly", "--config"])
        .arg(&config)
        .arg("--scenario")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args([
            "--no-stdin",
            "--ready-timeout-s",
            "30",
            "--episode-id",
            "ep",
        ])
        .env(KEY_ENV, KEY);
    let o = tokio::task::spawn_blocking(move || fly.output().unwrap())
        .await
        .unwrap();
    vehicle.shutdown().await.unwrap();
    let text = stderr(&o);
    let record = out.join("records/ep.jsonl");
    let (reason, success) = termination(&record);
    eprintln!(
        "fly exit {:?}, {} requests, termination {reason:?}",
        o.status.code(),
        requests.load(Ordering::SeqCst)
    );
    assert_eq!((reason.as_str(), success), (REFUSED, false), "{text}");
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("the episode failed: the model endpoint refused the key: HTTP 401"),
        "{text}"
    );
    assert_eq!(valid_episodes(dir.path(), &record).0, 0);
}
