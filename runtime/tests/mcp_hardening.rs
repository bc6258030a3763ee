//! `alpha3 mcp` against hostile or careless clients (issue 30, items 1, 6 and 10), each driving
//! the real binary as a client would: raw JSON-RPC lines over stdio and raw HTTP requests for
//! what no SDK would send, the official Python MCP SDK for several sessions sharing one vehicle.
//!
//! - a string argument, a tool name or a whole message over its cap is refused with an answer
//!   naming the cap, and the flight record keeps only a bounded, marked excerpt;
//! - a line or body that is not JSON (bad UTF-8, `NaN`, garbage, 16 MiB) is answered with
//!   JSON-RPC's parse error (HTTP 400, 413 when over the cap), and the server keeps serving;
//! - one session holds control of the vehicle: the others may read and are refused when they
//!   act, control passes when the holder leaves, and the record names every session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod sitl_support;

use alpha3::mcp::caps::{MESSAGE_BYTES, STRING_ARGUMENT_BYTES, TOOL_NAME_BYTES};
use alpha3_core::record::Event;
use alpha3_test_support::root;
use mcp_support::*;
use serde_json::{Value, json};
use sitl_support::{alpha3, events};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// How long an answer may take (a refusal is immediate; the bound only stops a hang).
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// `alpha3 mcp` over stdio, spoken to in raw newline-delimited JSON-RPC.
struct RawStdio {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<Value>,
}

impl RawStdio {
    fn start(dir: &Path) -> Self {
        let mut child = alpha3()
            .args(server_args(dir, &[]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON: {e}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            answers,
        }
    }

    fn send_line(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: u64, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(line.to_string().as_bytes());
    }

    /// The next answer (not a notification), or a failure naming `what` was left unanswered.
    fn answer(&self, what: &str) -> Value {
        loop {
            let v = self
                .answers
                .recv_timeout(ANSWER_WITHIN)
                .unwrap_or_else(|_| panic!("no answer within {ANSWER_WITHIN:?} to {what}"));
            if v.get("id").is_some() {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw-probe", "version": "0"}}),
        );
        let a = self.answer("initialize");
        assert!(a["result"]["protocolVersion"].is_string(), "{a}");
        self.send_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes stdin (the client leaves) and waits for the server to exit.
    fn leave(mut self) {
        drop(self.stdin.take());
        let status = wait_exit(&mut self.child, Duration::from_secs(60));
        assert!(status.success(), "{status}");
    }
}

/// A `tools/call` request line whose `sensor` (or, with `in_name`, the tool name) is `n`
/// bytes of `fill`.
fn oversized_call(id: u64, n: usize, fill: char, in_name: bool) -> Vec<u8> {
    let long: String = std::iter::repeat_n(fill, n).collect();
    let params = if in_name {
        json!({"name": long, "arguments": {}})
    } else {
        json!({"name": "activate_sensor", "arguments": {"sensor": long}})
    };
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        .to_string()
        .into_bytes()
}

fn first_text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    text.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

#[test]
fn an_mcp_string_argument_or_tool_name_over_its_cap_is_refused_and_the_record_keeps_only_an_excerpt()
 {
    let dir = tempfile::tempdir().unwrap();
    let mut server = RawStdio::start(dir.path());
    server.initialize();
    let mut id = 1;
    let mut sent = 0usize;
    // 10 MiB, as the probe sent them: over the cap on a whole message, never parsed.
    for in_name in [false, false, false, true] {
        id += 1;
        let line = oversized_call(id, 10 << 20, if in_name { 'N' } else { 'A' }, in_name);
        sent += line.len();
        server.send_line(&line);
        let a = server.answer("a 10 MiB tools/call");
        assert_eq!(a["id"], id, "the refusal names the request: {a}");
        assert_eq!(a["error"]["code"], -32700, "{a}");
        let message = a["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("over the {MESSAGE_BYTES}-byte cap")),
            "{message}"
        );
    }
    // Under the message cap, over the string and tool-name caps: refused as a tool error.
    for (in_name, cap) in [
        (
            false,
            format!("{STRING_ARGUMENT_BYTES}-byte cap for a string argument"),
        ),
        (
            false,
            format!("{STRING_ARGUMENT_BYTES}-byte cap for a string argument"),
        ),
        (true, format!("{TOOL_NAME_BYTES}-byte cap for a tool name")),
    ] {
        id += 1;
        let line = oversized_call(id, 200 << 10, if in_name { 'N' } else { 'A' }, in_name);
        sent += line.len();
        server.send_line(&line);
        let a = server.answer("a 200 KiB tools/call");
        assert_eq!(a["result"]["isError"], true, "{a}");
        let text = first_text(&a);
        assert!(text.starts_with("refused, not run:"), "{text}");
        assert!(text.contains(&cap), "{text}");
    }
    // The session goes on.
    id += 1;
    server.request(
        id,
        "tools/call",
        json!({"name": "read_telemetry", "arguments": {}}),
    );
    let a = server.answer("read_telemetry");
    assert_eq!(a["result"]["isError"], false, "{a}");
    server.leave();

    let record = dir.path().join("out/records/ep.jsonl");
    wait_complete(&record, Duration::from_secs(30));
    let text = std::fs::read_to_string(&record).unwrap();
    let size = text.len();
    eprintln!("sent {sent} bytes in 7 oversized calls; the record is {size} bytes");
    // Each refused call leaves at most one short line; the rest of the record is one turn.
    let bound = 64 * 1024 + 7 * 2 * STRING_ARGUMENT_BYTES;
    assert!(
        size < bound,
        "the record is {size} bytes (bound {bound}) after {sent} bytes of oversized calls"
    );
    assert!(
        longest_run(&text, 'A') < STRING_ARGUMENT_BYTES && longest_run(&text, 'N') < 256,
        "an oversized string is in the record whole"
    );
    assert!(
        text.contains(&format!("[truncated, {} bytes]", 200 << 10)),
        "the record keeps a marked excerpt"
    );
    let refused = events(&record)
        .into_iter()
        .filter(|e| matches!(e, Event::Generation { error: Some(err), .. } if err.contains("-byte cap")))
        .count();
    assert_eq!(refused, 3, "each refused tool call is in the record");
}

#[test]
fn malformed_json_over_stdio_is_answered_with_a_parse_error_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = RawStdio::start(dir.path());
    let garbage = vec![b'x'; 16 << 20];
    let cases: [(&str, &[u8], i64); 5] = [
        (
            "bad UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"\xc3\x28\"}}",
            -32700,
        ),
        (
            "NaN",
            br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":NaN}}"#,
            -32700,
        ),
        ("a 16 MiB line", &garbage, -32700),
        ("not JSON", b"hello", -32700),
        ("JSON that is no message", b"[1,2,3]", -32600),
    ];
    for (what, line, code) in cases {
        server.send_line(line);
        let a = server.answer(what);
        assert_eq!(a["jsonrpc"], "2.0", "{what}: {a}");
        assert_eq!(a["id"], Value::Null, "{what}: {a}");
        assert_eq!(a["error"]["code"], code, "{what}: {a}");
    }
    // Still serving: the handshake and a ping are answered.
    server.initialize();
    server.request(7, "ping", json!({}));
    let a = server.answer("ping");
    assert_eq!(a["id"], 7, "{a}");
    assert!(a.get("result").is_some(), "{a}");
    server.leave();
}

#[test]
fn malformed_json_over_http_is_answered_400_with_a_json_rpc_parse_error() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url, stderr) = start_http_server(dir.path(), &[]);
    let big = oversized_call(9, 2 << 20, 'A', false);
    let cases: [(&str, &[u8], u16, i64, Value); 5] = [
        (
            "bad UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"s\":\"\xc3\x28\"}}",
            400,
            -32700,
            Value::Null,
        ),
        (
            "NaN",
            br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":NaN}}"#,
            400,
            -32700,
            Value::Null,
        ),
        ("not JSON", b"hello", 400, -32700, Value::Null),
        (
            "JSON that is no message",
            br#"{"jsonrpc":"2.0","id":4}"#,
            400,
            -32600,
            json!(4),
        ),
        ("a 2 MiB body", &big, 413, -32700, json!(9)),
    ];
    for (what, body, status, code, id) in cases {
        let a = post_raw(&url, body);
        assert_eq!(a.status, status, "{what}: {a:?}");
        assert_eq!(a.content_type, "application/json", "{what}: {a:?}");
        let v: Value =
            serde_json::from_str(&a.body).unwrap_or_else(|e| panic!("{what}: {e}: {a:?}"));
        assert_eq!(v["error"]["code"], code, "{what}: {v}");
        assert_eq!(v["id"], id, "{what}: {v}");
    }
    let big = post_raw(&url, &oversized_call(10, 2 << 20, 'A', false));
    assert!(
        big.body.contains(&format!("{MESSAGE_BYTES}-byte cap")),
        "{big:?}"
    );
    // Still serving.
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let a = post_raw(&url, init);
    assert_eq!(a.status, 200, "{a:?}");
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = wait_exit(&mut server, Duration::from_secs(60));
    drop(stderr.join());
}

#[test]
fn one_http_session_holds_control_the_others_may_only_read_and_the_record_names_them_all() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url, stderr) = start_http_server(dir.path(), &[]);
    let out = std::process::Command::new(&py)
        .arg(root().join("tests/py/mcp_control.py"))
        .args(["--url", &url, "--sessions", "5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mcp_control.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let status = wait_exit(&mut server, Duration::from_secs(60));
    let log = stderr.join().unwrap();
    assert!(status.success(), "{log}");

    let members = s["members"].as_array().unwrap();
    assert_eq!(members.len(), 5);
    // Each session as the server names it: `session <Mcp-Session-Id> (client <name> <version>)`.
    let named = |i: usize| members[i]["session"].as_str().unwrap().to_string();
    for (i, m) in members.iter().enumerate() {
        let id = m["session"].as_str().unwrap();
        assert!(
            id.starts_with("session ") && id.ends_with(&format!("(client client-{i} 1.0)")),
            "{m}"
        );
    }
    let pilot = &members[0]["session"];
    assert_eq!(s["pilot_takeoff"]["is_error"], false, "{s:#}");
    assert_eq!(&s["control_while_pilot"], pilot, "{s:#}");
    for other in s["others"].as_array().unwrap() {
        assert_eq!(other["read_telemetry"]["is_error"], false, "{other:#}");
        assert_eq!(other["check_geofence"]["is_error"], false, "{other:#}");
        let refused = &other["set_speed"];
        assert_eq!(refused["is_error"], true, "{other:#}");
        let text = refused["text"][0].as_str().unwrap();
        assert!(
            text.starts_with(&format!(
                "refused, not run: {} holds control",
                pilot.as_str().unwrap()
            )),
            "{text}"
        );
    }
    assert_eq!(s["control_after_pilot_left"], Value::Null, "{s:#}");
    assert_eq!(s["second_set_speed"]["is_error"], false, "{s:#}");
    let third = s["third_set_speed"]["text"][0].as_str().unwrap();
    assert!(
        third.contains(&format!(
            "{} holds control",
            members[1]["session"].as_str().unwrap()
        )),
        "control passed to the second session: {third}"
    );
    assert_eq!(s["second_land"]["is_error"], false, "{s:#}");

    // The record names every session that called anything, by session id and client.
    let record = dir.path().join("out/records/ep.jsonl");
    let callers: Vec<String> = events(&record)
        .into_iter()
        .filter_map(|e| match e {
            Event::Generation { completion, .. } => serde_json::from_str::<Value>(&completion).ok(),
            _ => None,
        })
        .filter_map(|c| {
            Some(format!(
                "session {} (client {})",
                c["session"].as_str()?,
                c["client"].as_str()?
            ))
        })
        .collect();
    for i in 0..5 {
        assert!(
            callers.contains(&named(i)),
            "{} is not in the record: {callers:?}",
            named(i)
        );
    }
    score(&record);
}
