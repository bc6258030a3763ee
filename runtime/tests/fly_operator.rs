//! `alpha3 fly`'s operator channel under abuse, driven as a person or a ground-station bridge
//! would (issue 15, item 6), against the built-in world as a PX4-like vehicle:
//! - `--operator-socket unix:PATH` never deletes what is at PATH unless it is a stale socket: a
//!   regular file or a live socket there is refused (exit 1) before anything is opened;
//! - a 300 MB line with no newline does not grow `fly` (its peak RSS stays far below the
//!   line), is refused with a notice to the sender, and the record says so;
//! - a burst of 10,000 lines from a client that then disconnects is kept whole: every line is
//!   in the record, heard in an operator turn or noted as unheard at the end;
//! - invalid UTF-8 on stdin is replaced and reading goes on.
//!
//! The record is read as plain JSON so that the same tests run against an older binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sitl_support;

use serde_json::Value;
use sitl_support::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `fly` on `port` with a Unix operator socket at `socket`, its stdin piped when `stdin`.
fn spawn_fly(dir: &Path, port: u16, socket: &Path, wait_ms: u64, stdin: bool) -> Child {
    let config = write_config(dir, port, "");
    let scenario = write_scenario(dir);
    let mut cmd = alpha3();
    cmd.args(["fly", "--config"])
        .arg(config)
        .arg("--scenario")
        .arg(scenario)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--ready-timeout-s", "20", "--episode-id", "ep"])
        .arg("--operator-socket")
        .arg(format!("unix:{}", socket.display()))
        .args(["--operator-wait-ms", &wait_ms.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if stdin {
        cmd.stdin(Stdio::piped());
    } else {
        cmd.arg("--no-stdin").stdin(Stdio::null());
    }
    cmd.spawn().unwrap()
}

/// Waits for `fly` to end; its success and stderr.
fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A client on `fly`'s Unix socket (retried while `fly` starts).
fn connect(path: &Path) -> UnixStream {
    let started = Instant::now();
    loop {
        match UnixStream::connect(path) {
            Ok(s) => return s,
            Err(_) if started.elapsed() < Duration::from_secs(60) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => panic!("operator socket {}: {e}", path.display()),
        }
    }
}

/// Reads lines from `fly` until one satisfies `pred`; that line.
fn read_until(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    pred: impl Fn(&str) -> bool,
) -> String {
    for line in lines {
        let line = line.expect("reading from fly's operator socket");
        if pred(&line) {
            return line;
        }
    }
    panic!("fly closed the operator socket first")
}

fn record_path(dir: &Path) -> PathBuf {
    dir.join("out/records/ep.jsonl")
}

/// Every operator line the record keeps, in order: those of the operator turns, then any
/// noted as unheard at the end.
fn recorded_operator_lines(record: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(record).unwrap();
    let mut lines = Vec::new();
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        match v["event"].as_str() {
            Some("operator_turn") if v["intent"] == "operator_message" => {
                lines.extend(v["text"].as_str().unwrap().lines().map(str::to_owned))
            }
            Some("operator_unheard") => lines.extend(
                v["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_owned()),
            ),
            _ => {}
        }
    }
    lines
}

fn terminated(record: &Path) -> bool {
    std::fs::read_to_string(record)
        .unwrap()
        .contains("\"event\":\"termination\"")
}

/// `fly`'s peak resident memory so far, kB (`VmHWM`).
fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn fly_refuses_an_operator_socket_path_that_is_not_a_stale_socket() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port(); // nothing listens: the refusal comes before connecting
    let file = dir.path().join("precious.txt");
    std::fs::write(&file, "not a socket").unwrap();
    let (code, err) = finish(spawn_fly(dir.path(), port, &file, 100, false));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not a socket"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a socket");

    let live = dir.path().join("live.sock");
    let listener = UnixListener::bind(&live).unwrap();
    let (code, err) = finish(spawn_fly(dir.path(), port, &live, 100, false));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("listening"), "{err}");
    // The other process's socket still works.
    let _client = UnixStream::connect(&live).unwrap();
    listener.accept().unwrap();
    assert!(
        !record_path(dir.path()).exists(),
        "refused before a record was made"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fly_refuses_a_300_mb_line_without_growing_and_says_so() {
    const LINE_BYTES: usize = 300 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let socket = dir.path().join("op.sock");
    let vehicle = vehicle(port, 1).await;
    let child = spawn_fly(dir.path(), port, &socket, 60_000, false);
    let pid = child.id();
    let path = socket.clone();
    let measured = tokio::task::spawn_blocking(move || {
        let stream = connect(&path);
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut writer = stream.try_clone().unwrap();
        let mut lines = BufReader::new(stream).lines();
        read_until(&mut lines, |l| l.starts_with("agent: "));
        let before_kb = peak_rss_kb(pid);
        let chunk = vec![b'x'; 1024 * 1024];
        for _ in 0..LINE_BYTES / chunk.len() {
            writer.write_all(&chunk).unwrap();
        }
        writer
            .write_all(b"\nground: after the long line\n")
            .unwrap();
        // The notice, or the agent's next turn when none comes.
        let reply = read_until(&mut lines, |l| {
            l.contains("refused a line") || l.starts_with("agent: ")
        });
        let after_kb = peak_rss_kb(pid);
        // Keep the mission going: answer every turn from now on.
        std::thread::spawn(move || {
            for line in lines {
                let Ok(line) = line else { break };
                if line.starts_with("agent: ") && writer.write_all(b"ground: copy\n").is_err() {
                    break;
                }
            }
        });
        (reply, before_kb, after_kb)
    })
    .await
    .unwrap();
    let (reply, before_kb, after_kb) = measured;
    eprintln!(
        "fly peak RSS: {} MB before the 300 MB line, {} MB after it",
        before_kb / 1024,
        after_kb / 1024
    );
    let mut child = child;
    if !reply.contains("refused a line") || after_kb >= 100 * 1024 {
        let _ = child.kill();
    }
    let (code, err) = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    vehicle.shutdown().await.unwrap();
    assert!(
        reply.contains(&format!("refused a line of {LINE_BYTES} bytes")),
        "the sender is told: {reply}"
    );
    // A generous sanity bound: the line itself is 300 MB.
    assert!(after_kb < 100 * 1024, "peak RSS {after_kb} kB");
    assert_eq!(code, Some(0), "{err}");
    let heard = recorded_operator_lines(&record_path(dir.path()));
    assert!(
        heard
            .iter()
            .any(|l| l.contains("refused") && l.contains(&LINE_BYTES.to_string())),
        "the record notes the refused line: {heard:?}"
    );
    assert!(
        heard.iter().any(|l| l == "ground: after the long line"),
        "reading went on after it: {heard:?}"
    );
    assert!(terminated(&record_path(dir.path())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fly_keeps_every_line_of_a_burst_from_a_client_that_left() {
    const LINES: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let socket = dir.path().join("op.sock");
    let vehicle = vehicle(port, 1).await;
    let child = spawn_fly(dir.path(), port, &socket, 300, false);
    let sent: Vec<String> = (0..LINES).map(|i| format!("burst {i:05}")).collect();
    let burst = sent.join("\n") + "\n";
    let path = socket.clone();
    let client = tokio::task::spawn_blocking(move || {
        let stream = connect(&path);
        let mut writer = stream.try_clone().unwrap();
        let mut lines = BufReader::new(stream).lines();
        read_until(&mut lines, |l| l.starts_with("agent: "));
        writer.write_all(burst.as_bytes()).unwrap();
        // Gone without reading another line.
    });
    client.await.unwrap();
    let (code, err) = tokio::task::spawn_blocking(move || finish(child))
        .await
        .unwrap();
    vehicle.shutdown().await.unwrap();
    assert_eq!(code, Some(0), "{err}");
    let record = record_path(dir.path());
    assert!(terminated(&record));
    let kept: Vec<String> = recorded_operator_lines(&record)
        .into_iter()
        .filter(|l| l.starts_with("burst "))
        .collect();
    eprintln!("{} of {LINES} lines recorded", kept.len());
    assert_eq!(
        kept.len(),
        LINES,
        "lines lost: {}",
        LINES - kept.len().min(LINES)
    );
    assert_eq!(kept, sent, "every line once, in order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fly_reads_on_after_invalid_utf8_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let socket = dir.path().join("op.sock");
    let vehicle = vehicle(port, 1).await;
    let mut child = spawn_fly(dir.path(), port, &socket, 2_000, true);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"ground: bad \xff\xfe bytes\nground: after the bad bytes\n")
        .unwrap();
    let (code, err) = tokio::task::spawn_blocking(move || {
        let r = finish(child);
        drop(stdin);
        r
    })
    .await
    .unwrap();
    vehicle.shutdown().await.unwrap();
    assert_eq!(code, Some(0), "{err}");
    let heard = recorded_operator_lines(&record_path(dir.path()));
    assert!(
        heard.iter().any(|l| l == "ground: after the bad bytes"),
        "stdin was read on: {heard:?}"
    );
    assert!(
        heard
            .iter()
            .any(|l| l == "ground: bad \u{fffd}\u{fffd} bytes"),
        "the bad line arrives, its bytes replaced: {heard:?}"
    );
    assert!(
        err.contains("not valid UTF-8"),
        "the operator is told: {err}"
    );
}
