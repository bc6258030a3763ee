//! `alpha3 fly` end to end against the built-in world as a PX4-like vehicle over UDP: a person
//! on the operator socket, a named parameter written (and recorded), the telemetry log read
//! back by pymavlink and by our decoder; and `fly` killed with SIGKILL mid-episode, then
//! started again: the first run's lines are kept, a torn tail is cut, nothing is written twice.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sitl_support;

use alpha3_core::record::{Event, parse_record};
use sitl_support::*;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn free_tcp_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn spawn_fly(config: &Path, scenario: &Path, out: &Path, extra: &[&str]) -> Child {
    alpha3()
        .args(["fly", "--config"])
        .arg(config)
        .arg("--scenario")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args([
            "--no-stdin",
            "--ready-timeout-s",
            "20",
            "--episode-id",
            "ep",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `fly` with a ground-station socket on a free port, waiting `wait_ms` for the operator's
/// answer to each turn; returns the child and the port.
fn spawn_fly_with_operator(
    config: &Path,
    scenario: &Path,
    out: &Path,
    wait_ms: u64,
) -> (Child, u16) {
    let port = free_tcp_port();
    let socket = format!("tcp:127.0.0.1:{port}");
    let wait = wait_ms.to_string();
    let child = spawn_fly(
        config,
        scenario,
        out,
        &["--operator-socket", &socket, "--operator-wait-ms", &wait],
    );
    (child, port)
}

/// A ground-station client on `fly`'s operator socket (retried while `fly` starts).
fn connect_operator(port: u16) -> std::net::TcpStream {
    let started = Instant::now();
    loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => return s,
            Err(_) if started.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => panic!("operator socket: {e}"),
        }
    }
}

fn finish(child: Child) -> (bool, String) {
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fly_talks_to_the_operator_socket_writes_named_params_and_logs_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "param_writes = { GF_ACTION = 3.0 }");
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let vehicle = vehicle(port, 1).await;
    let (child, op_port) = spawn_fly_with_operator(&config, &scenario, &out, 20_000);
    // The ground-station bridge: read the agent's turns, answer each one.
    let bridge = std::thread::spawn(move || {
        let stream = connect_operator(op_port);
        let mut writer = stream.try_clone().unwrap();
        let mut heard = Vec::new();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            heard.push(line);
            if writer
                .write_all(format!("ground: copy turn {}\n", heard.len()).as_bytes())
                .is_err()
            {
                break;
            }
        }
        heard
    });
    let (ok, text) = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    assert!(ok, "{text}");
    let heard = bridge.join().unwrap();
    let gf_action = vehicle.with_vehicle(|v| format!("{v:?}"));
    vehicle.shutdown().await.unwrap();

    assert!(
        !heard.is_empty() && heard[0].starts_with("agent: "),
        "{heard:?}"
    );
    let record = out.join("records/ep.jsonl");
    let events = events(&record);
    let Some(Event::Header { config, .. }) = events.first() else {
        panic!("no header")
    };
    assert_eq!(config["vehicle_link"]["simulated"], true, "{config}");
    assert_eq!(
        config["vehicle_link"]["param_writes"]["GF_ACTION"], 3.0,
        "{config}"
    );
    assert_eq!(config["link"]["param_writes"]["GF_ACTION"], 3.0, "{config}");
    let _ = gf_action;
    let operator: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::OperatorTurn { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        operator.first(),
        Some(&"ground: copy turn 1"),
        "{operator:?}"
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Termination { reason, success: true, .. } if reason == "mission_complete"
        )),
        "{text}"
    );
    let tlog = out.join("tlogs/ep.tlog");
    let ours = our_read_tlog(&tlog);
    let py = pymavlink_read_tlog(&tlog);
    assert_eq!(py["bad"], 0, "{py}");
    assert_eq!(py["monotonic"], true, "{py}");
    let theirs: std::collections::BTreeMap<String, u64> =
        serde_json::from_value(py["counts"].clone()).unwrap();
    assert_eq!(theirs, ours);
    assert!(
        ours["PARAM_SET"] >= 1,
        "the parameter write is on the wire: {ours:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fly_killed_mid_episode_and_restarted_keeps_its_record_whole() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let scenario = write_scenario(dir.path());
    let out = dir.path().join("out");
    let record = out.join("records/ep.jsonl");
    let vehicle = vehicle(port, 1).await;

    // First run: killed with SIGKILL while it waits for the operator after the agent's first
    // turn. The record is flushed at the end of every turn, before the agent's turn is shown
    // to the operator. (Without an operator source, `fly` does not wait: the first run
    // finished its episode before it could be killed when the record's buffer happened not to
    // spill mid-turn; CI saw that.)
    let (mut first, op_port) = spawn_fly_with_operator(&config, &scenario, &out, 30_000);
    let said = tokio::task::spawn_blocking(move || {
        let stream = connect_operator(op_port);
        // A run that never shows a turn fails the test rather than hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut line = String::new();
        let _ = BufReader::new(stream).read_line(&mut line);
        line
    })
    .await
    .unwrap();
    assert!(said.starts_with("agent: "), "{said:?}");
    first.kill().unwrap(); // SIGKILL
    let (_, first_output) = finish(first); // shown if it ended on its own
    assert!(
        std::fs::read_to_string(&record)
            .unwrap()
            .contains("\"event\":\"agent_turn\""),
        "the turn is on disk before the operator sees it"
    );
    // A crash in the middle of a write leaves half a line.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&record)
        .unwrap();
    f.write_all(br#"{"v":1,"seq":99999,"t_ms":1,"event":"wat"#)
        .unwrap();
    drop(f);
    let crashed = std::fs::read_to_string(&record).unwrap();
    let kept: Vec<&str> = crashed
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .collect();
    let parsed = parse_record(&crashed).unwrap();
    assert!(parsed.torn_tail);
    assert_eq!(parsed.lines.len(), kept.len());
    assert!(
        !parsed
            .lines
            .iter()
            .any(|l| matches!(l.event, Event::Termination { .. })),
        "the first run ended before it was killed:\n{crashed}\n{first_output}"
    );

    // Second run: same episode id.
    let second = spawn_fly(&config, &scenario, &out, &["--operator-wait-ms", "200"]);
    let (ok, text) = tokio::task::spawn_blocking(move || finish(second))
        .await
        .unwrap();
    vehicle.shutdown().await.unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("torn last line cut"), "{text}");

    let after = std::fs::read_to_string(&record).unwrap();
    assert!(
        after.starts_with(&kept.concat()),
        "the first run's lines are kept byte for byte"
    );
    let parsed = parse_record(&after).unwrap();
    assert!(!parsed.torn_tail);
    let seqs: Vec<u64> = parsed.lines.iter().map(|l| l.seq).collect();
    assert_eq!(
        seqs,
        (0..seqs.len() as u64).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let headers = parsed
        .lines
        .iter()
        .filter(|l| matches!(l.event, Event::Header { .. }))
        .count();
    assert_eq!(headers, 1);
    assert!(matches!(
        &parsed.lines[kept.len()].event,
        Event::Watchdog { reason, .. } if reason.starts_with("restart")
    ));
    let terminations = parsed
        .lines
        .iter()
        .filter(|l| matches!(l.event, Event::Termination { .. }))
        .count();
    assert_eq!(terminations, 1);
    // Each run logged the link to its own file.
    assert!(out.join("tlogs/ep.tlog").exists());
    assert!(out.join("tlogs/ep-2.tlog").exists());

    // A record that ended is never appended to.
    let third = spawn_fly(&config, &scenario, &out, &[]);
    let (ok, text) = finish(third);
    assert!(!ok && text.contains("already ended"), "{text}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), after);
}
