//! `alpha3 mcp` driven by the official Python MCP SDK (`tests/py/mcp_client.py`) as an outside
//! client would drive it: over stdio and over streamable HTTP against the built-in world, and
//! against `alpha3 sim-vehicle` over the MAVLink wire. The client lists the tools, takes off,
//! flies waypoints, gets the gate's denial for a waypoint inside a no-fly zone as an error
//! result naming the finding, lands, and leaves; the session's record is complete, has no truth
//! violation, and `alpha3 score` scores it. A client that leaves mid-flight hands the vehicle to
//! the failsafe, and the record is complete. HTTP refuses a non-loopback address without
//! `--allow-remote` and a token, and a request without the token.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod sitl_support;

use alpha3_core::record::Event;
use mcp_support::*;

use sitl_support::{alpha3, events};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

#[test]
fn stdio_client_flies_the_builtin_world_is_denied_the_no_fly_zone_and_the_record_scores() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let summary = client(&py, "fly", None, &server_args(dir.path(), &[]));
    let record = dir.path().join("out/records/ep.jsonl");
    // The client closed stdin on leaving: the episode ends, the server exits.
    wait_complete(&record, Duration::from_secs(60));
    check_flight(&summary, &record);
}

/// Starts `alpha3 mcp --transport http` on a free port; returns it and the URL it printed.
fn http_server(dir: &Path, extra: &[&str]) -> (Child, String, std::thread::JoinHandle<String>) {
    let mut args = server_args(dir, &["--transport", "http", "--listen", "127.0.0.1:0"]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut child = alpha3()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(url) = line.strip_prefix("alpha3 mcp: listening on ") {
                let _ = tx.send(url.to_string());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("alpha3 mcp printed no address");
    (child, url, reader)
}

#[test]
fn http_client_flies_the_builtin_world_and_the_record_scores() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url, stderr) = http_server(dir.path(), &[]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let summary = client(&py, "fly", Some(&url), &[]);
    // The client deleted its session on leaving: the episode ends and the server exits.
    let status = wait_exit(&mut server, Duration::from_secs(60));
    let text = stderr.join().unwrap();
    assert!(status.success(), "{text}");
    let record = dir.path().join("out/records/ep.jsonl");
    check_flight(&summary, &record);
}

#[test]
fn a_client_that_leaves_mid_flight_is_followed_by_the_failsafe_and_the_record_is_complete() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let summary = client(&py, "disconnect", None, &server_args(dir.path(), &[]));
    assert_eq!(
        call(&summary, "takeoff", 0)["is_error"],
        false,
        "{summary:#}"
    );
    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(120));
    let ev = events(&record);
    let Some(Event::Termination {
        reason, success, ..
    }) = ev.last()
    else {
        panic!("no termination")
    };
    assert_eq!(reason, "client_left");
    assert!(!success);
    let failsafe: Vec<String> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Watchdog { action, reason } => Some(format!("{action}: {reason}")),
            _ => None,
        })
        .collect();
    assert!(
        failsafe
            .iter()
            .any(|w| w.starts_with("return") || w.starts_with("land")),
        "the failsafe brought the vehicle down: {failsafe:#?}"
    );
    let last_truth = ev
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Truth { .. } => Some(serde_json::to_value(e).unwrap()),
            _ => None,
        })
        .unwrap();
    eprintln!("last truth: {last_truth}");
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Violation { .. })),
        "no truth violation"
    );
}

#[test]
fn a_silent_client_gets_the_watchdogs_hold_and_return_and_the_record_says_so() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut args = server_args(dir.path(), &[]);
    // A short deadline, so the silence is many missed decisions.
    let at = args.iter().position(|a| a == "--deadline-ms").unwrap();
    args[at + 1] = "200".into();
    let summary = client(&py, "silent", None, &args);
    assert_eq!(
        call(&summary, "takeoff", 0)["is_error"],
        false,
        "{summary:#}"
    );
    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(60));
    let ev = events(&record);
    let watchdog: Vec<(u64, String)> = alpha3::recorder::read_record(&record)
        .unwrap()
        .lines
        .into_iter()
        .filter_map(|l| match l.event {
            Event::Watchdog { action, .. } => Some((l.t_ms, action)),
            _ => None,
        })
        .collect();
    let first = |a: &str| {
        watchdog
            .iter()
            .find(|(_, w)| w.starts_with(a))
            .map(|(t, _)| *t)
    };
    let (Some(hold), Some(ret)) = (first("hold"), first("return")) else {
        panic!("no hold then return: {watchdog:?}")
    };
    assert!(hold < ret, "{watchdog:?}");
    let missed = ev
        .iter()
        .filter(
            |e| matches!(e, Event::Generation { error: Some(err), .. } if err.contains("deadline")),
        )
        .count();
    assert!(missed >= 3, "{missed} missed decisions");
    // The session told the client while it was still connected.
    assert_eq!(
        summary["telemetry_after"]["landed"], "on_ground",
        "{summary:#}"
    );
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Violation { .. })),
        "no truth violation"
    );
}

#[test]
fn http_refuses_other_machines_without_a_flag_and_a_token_and_requests_without_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let out = alpha3()
        .args(server_args(
            dir.path(),
            &["--transport", "http", "--listen", "0.0.0.0:0"],
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a loopback address"), "{err}");
    let out = alpha3()
        .args(server_args(
            dir.path(),
            &[
                "--transport",
                "http",
                "--listen",
                "0.0.0.0:0",
                "--allow-remote",
            ],
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--token-env"));

    // Loopback with a token: a request without it is refused, and the token is never printed.
    let token = "tok-7f3a9c-never-logged";
    let mut args = server_args(
        dir.path(),
        &[
            "--transport",
            "http",
            "--listen",
            "127.0.0.1:0",
            "--token-env",
            "ALPHA3_TEST_MCP_TOKEN",
        ],
    );
    args.extend(["--log".to_string(), "debug".to_string()]);
    let mut child = alpha3()
        .args(&args)
        .env("ALPHA3_TEST_MCP_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
        if let Some(u) = line.trim().strip_prefix("alpha3 mcp: listening on ") {
            break u.to_string();
        }
    };
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let status = |auth: &str| {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut resp = String::new();
        let _ = s.read_to_string(&mut resp);
        resp.lines().next().unwrap_or_default().to_string()
    };
    assert!(status("").contains("401"), "no token");
    assert!(
        status("Authorization: Bearer wrong\r\n").contains("401"),
        "wrong token"
    );
    assert!(
        status(&format!("Authorization: Bearer {token}\r\n")).contains("200"),
        "the right token"
    );
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = wait_exit(&mut child, Duration::from_secs(60));
    let mut rest = String::new();
    let _ = stderr.read_to_string(&mut rest);
    assert!(!rest.contains(token), "the token was printed: {rest}");
    let record = dir.path().join("out/records/ep.jsonl");
    if record.exists() {
        let text = std::fs::read_to_string(&record).unwrap();
        assert!(!text.contains(token), "the token is in the record");
    }
}

/// `alpha3 sim-vehicle` for this test: companion port 14540 + INSTANCE.
const INSTANCE: u16 = 53;

#[test]
fn the_same_client_flies_sim_vehicle_over_mavlink() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let scen = scenario(dir.path());
    let port = 14540 + INSTANCE;
    let mut vehicle = alpha3()
        .args(["sim-vehicle", "--scenario"])
        .arg(&scen)
        .args([
            "--instance",
            &INSTANCE.to_string(),
            "--seed",
            "3",
            "--speed-factor",
            "4",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cfg = config(dir.path(), Some(port));
    let args = connect_args(dir.path(), &cfg, &scen, port, 20000, 60);
    let summary = client(&py, "fly", None, &args);
    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(120));
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &vehicle.id().to_string()])
        .status();
    let _ = wait_exit(&mut vehicle, Duration::from_secs(20));
    let Some(Event::Header { config, .. }) = events(&record).into_iter().next() else {
        panic!("no header")
    };
    assert_eq!(config["vehicle_link"]["simulated"], true, "{config}");
    check_flight(&summary, &record);
}
