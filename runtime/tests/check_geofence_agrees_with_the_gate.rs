//! A tool that reports a limit reports the gate's (issue 30, item 7): through `alpha3 mcp`, as
//! any MCP client would ask, `check_geofence` says a point is inside exactly when the gate
//! flies a `set_waypoint` there as asked — at 0, 1, 2.9 and 3.1 m inside the fence's edge
//! (the gate keeps a 3 m margin there: twice the GNSS EPH) and at 121 m (the config's ceiling
//! is 120 m, the scenario's 150 m). The client is a few lines of JSON-RPC over stdio.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod sitl_support;

use serde_json::{Value, json};
use sitl_support::alpha3;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A JSON-RPC client of `alpha3 mcp` over its stdin and stdout.
struct Client {
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits for its response's `result`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// Calls a tool; returns (is the result an error, its structured content).
    fn call(&mut self, name: &str, arguments: Value) -> (bool, Value) {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let structured = r["structuredContent"].clone();
        (r["isError"] == json!(true), structured)
    }
}

#[test]
fn check_geofence_agrees_with_the_gate_through_alpha3_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = alpha3()
        .args(mcp_support::server_args(dir.path(), &[]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let mut client = Client {
        stdin: child.stdin.take().unwrap(),
        lines,
        next_id: 0,
    };
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "check-geofence-probe", "version": "0"}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (error, took_off) = client.call("takeoff", json!({"altitude_m": 30}));
    assert!(!error, "take-off: {took_off}");

    // The scenario's fence runs along x = 0; the vehicle is at (102, 70). From the inside out,
    // so every approved move is a short step west.
    let mut seen = Vec::new();
    for (x, y, z, expected) in [
        (10.0, 70.0, 30.0, true),
        (3.1, 70.0, 30.0, true),
        (2.9, 70.0, 30.0, false),
        (1.0, 70.0, 30.0, false),
        (0.0, 70.0, 30.0, false),
        (50.0, 70.0, 121.0, false),
    ] {
        let point = json!({"x": x, "y": y, "z": z});
        let (error, check) = client.call("check_geofence", json!({"point": point}));
        assert!(!error, "check_geofence: {check}");
        let inside = check["inside"].as_bool().unwrap();
        let (denied, flown) = client.call("set_waypoint", json!({"waypoint": point}));
        // As asked: not denied and not changed (a clamped altitude comes with its finding).
        let as_asked = !denied
            && flown["findings"]
                .as_array()
                .is_none_or(|findings| findings.is_empty());
        seen.push(format!(
            "({x}, {y}, {z}): check_geofence {check} / set_waypoint {flown}"
        ));
        assert_eq!(
            inside,
            as_asked,
            "check_geofence and the gate disagree at ({x}, {y}, {z}):\n{}",
            seen.join("\n")
        );
        assert_eq!(inside, expected, "({x}, {y}, {z}):\n{}", seen.join("\n"));
        if !inside {
            assert!(
                !check["findings"].as_array().unwrap().is_empty(),
                "the gate's finding is named: {check}"
            );
        }
    }
    eprintln!("{}", seen.join("\n"));
    drop(client);
    let _ = child.wait();
    let _ = log.join();
}
