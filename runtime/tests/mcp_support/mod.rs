//! Shared by the `mcp*` tests: the official Python MCP SDK's client (`tests/py/mcp_client.py`)
//! and what every flown session must show.
#![allow(dead_code, clippy::unwrap_used)]

use super::sitl_support::{alpha3, events};
use alpha3_core::record::Event;
use alpha3_test_support::{python_path, require_or_skip, root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// The venv's Python with the `mcp` SDK, or `None` after saying why the test skips (a failure
/// under `CI=true`).
pub fn mcp_python() -> Option<PathBuf> {
    let py = python_path();
    let ok = std::process::Command::new(&py)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        require_or_skip(
            "Python MCP SDK",
            &format!(
                "`{} -c 'import mcp'` failed; scripts/setup.sh installs it (pip install mcp)",
                py.display()
            ),
        );
        return None;
    }
    Some(py)
}

/// Suite scenario 1 from the ground: two short legs, the no-fly zone of the suite, no faults,
/// no traffic.
pub fn scenario(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join("configs/scenarios/sc-0001.json")).unwrap();
    let mut s: Value = serde_json::from_str(&text).unwrap();
    s["name"] = json!("mcp-short");
    s["spawn"] = json!({"xyz": [102.0, 70.0, 0.0], "yaw_deg": 45.0});
    s["mission"]["waypoints"] = json!([
        [150.0, 100.0, 30.0],
        [200.0, 130.0, 35.0],
        [573.0, 276.0, 30.0]
    ]);
    s["faults"] = json!([]);
    s["traffic"] = json!([]);
    let path = dir.join("mcp-short.json");
    std::fs::write(&path, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    path
}

pub fn config(dir: &Path, connect_port: Option<u16>) -> PathBuf {
    let mut text = std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap();
    if let Some(port) = connect_port {
        text = text.replace("127.0.0.1:14540", &format!("127.0.0.1:{port}"));
    }
    let path = dir.join("alpha3.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The `alpha3 mcp` arguments for a session in `dir`.
pub fn server_args(dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "mcp".into(),
        "--config".into(),
        config(dir, None).display().to_string(),
        "--scenario".into(),
        scenario(dir).display().to_string(),
        "--out".into(),
        dir.join("out").display().to_string(),
        "--episode-id".into(),
        "ep".into(),
        "--deadline-ms".into(),
        "10000".into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The `alpha3 mcp` arguments for a session in `dir` flying the flight controller on
/// `udpin:127.0.0.1:PORT` with config `cfg` and scenario `scen`.
pub fn connect_args(
    dir: &Path,
    cfg: &Path,
    scen: &Path,
    port: u16,
    deadline_ms: u64,
    ready_timeout_s: u64,
) -> Vec<String> {
    vec![
        "mcp".into(),
        "--config".into(),
        cfg.display().to_string(),
        "--scenario".into(),
        scen.display().to_string(),
        "--connect".into(),
        format!("udpin:127.0.0.1:{port}"),
        "--out".into(),
        dir.join("out").display().to_string(),
        "--episode-id".into(),
        "ep".into(),
        "--deadline-ms".into(),
        deadline_ms.to_string(),
        "--ready-timeout-s".into(),
        ready_timeout_s.to_string(),
    ]
}

pub fn bin() -> String {
    std::env::var("ALPHA3_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_alpha3").to_string())
}

/// Runs the client in `mode`; `server` is the stdio server command, or empty with `--url`.
pub fn client(py: &Path, mode: &str, url: Option<&str>, server: &[String]) -> Value {
    let mut cmd = std::process::Command::new(py);
    cmd.arg(root().join("tests/py/mcp_client.py")).arg(mode);
    if let Some(u) = url {
        cmd.args(["--url", u]);
    } else {
        cmd.arg("--").arg(bin()).args(server);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mcp_client.py {mode} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Waits (bounded) until the record has its termination line.
pub fn wait_complete(record: &Path, within: Duration) {
    let started = Instant::now();
    while !alpha3::recorder::is_complete(record) {
        assert!(
            started.elapsed() < within,
            "{} not complete after {within:?}",
            record.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if started.elapsed() > within {
            let _ = child.kill();
            panic!("alpha3 mcp did not exit within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn call<'a>(summary: &'a Value, tool: &str, nth: usize) -> &'a Value {
    summary["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tool"] == tool)
        .nth(nth)
        .unwrap_or_else(|| panic!("no call {nth} of {tool}: {summary:#}"))
}

/// What every flown session must show: the catalogue's tools, an accepted take-off and
/// waypoints, a schema failure and a gate denial as error results, the landing, and a
/// complete, violation-free record that `alpha3 score` scores.
pub fn check_flight(summary: &Value, record: &Path) {
    let want: Vec<&str> = alpha3_core::protocol::catalogue()
        .iter()
        .filter(|t| t.kind == alpha3_core::protocol::ToolKind::Mcp)
        .map(|t| t.name)
        .collect();
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tools, want);
    assert_eq!(summary["protocol"], "2025-11-25");
    assert_eq!(
        summary["schemas"]["set_waypoint"],
        alpha3_core::protocol::catalogue()
            .iter()
            .find(|t| t.name == "set_waypoint")
            .unwrap()
            .args_schema
    );
    for r in [
        "alpha3://telemetry",
        "alpha3://mission",
        "alpha3://operator",
        "alpha3://session",
    ] {
        assert!(
            summary["resources"]
                .as_array()
                .unwrap()
                .iter()
                .any(|u| u == r),
            "{r}"
        );
    }
    let takeoff = call(summary, "takeoff", 0);
    assert_eq!(takeoff["is_error"], false, "{takeoff:#}");
    assert_eq!(takeoff["structured"]["status"], "accepted", "{takeoff:#}");
    for i in 0..2 {
        let w = call(summary, "set_waypoint", i);
        assert_eq!(w["is_error"], false, "{w:#}");
        assert_eq!(w["structured"]["status"], "accepted", "{w:#}");
    }
    let bad = call(summary, "set_waypoint", 2);
    assert_eq!(bad["is_error"], true, "{bad:#}");
    assert!(
        bad["text"][0].as_str().unwrap().contains("schema"),
        "{bad:#}"
    );
    let denied = call(summary, "set_waypoint", 3);
    assert_eq!(denied["is_error"], true, "{denied:#}");
    assert_eq!(denied["structured"]["status"], "denied", "{denied:#}");
    let findings = denied["structured"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["id"].as_str().unwrap().contains("no_fly")),
        "{denied:#}"
    );
    let first_id = findings[0]["id"].as_str().unwrap();
    assert!(
        denied["text"][0].as_str().unwrap().contains(first_id),
        "the denial's words name the finding: {denied:#}"
    );
    let land = call(summary, "land", 0);
    assert_eq!(land["is_error"], false, "{land:#}");
    assert_eq!(
        summary["telemetry"]["landed"], "on_ground",
        "the vehicle landed: {:#}",
        summary["telemetry"]
    );
    assert!(
        !summary["operator"]["messages"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let ev = events(record);
    let Some(Event::Header { policy, model, .. }) = ev.first() else {
        panic!("no header")
    };
    assert_eq!(policy, "mcp");
    assert!(
        model.as_deref().unwrap_or("").starts_with("mcp"),
        "{model:?}"
    );
    assert!(matches!(ev.last(), Some(Event::Termination { .. })));
    let violations: Vec<&Event> = ev
        .iter()
        .filter(|e| matches!(e, Event::Violation { .. }))
        .collect();
    assert!(violations.is_empty(), "{violations:#?}");
    // Every call the loop ran is an agent turn; the schema failure is a failed attempt.
    let turns = ev
        .iter()
        .filter(
            |e| matches!(e, Event::AgentTurn { agent_turn, .. } if !agent_turn.actions.is_empty()),
        )
        .count();
    assert!(turns >= 6, "{turns} agent turns with an action");
    assert!(ev.iter().any(|e| matches!(e, Event::Generation { error: Some(err), .. } if err.contains("schema") || err.contains("waypoint"))));
    let denied_verdicts = ev
        .iter()
        .filter(|e| matches!(e, Event::Verdict { outcome, .. } if outcome.as_str() == "denied"))
        .count();
    assert!(denied_verdicts >= 1);
    score(record);
}

/// The record header's `vehicle_link` of a session on a SITL: a proven simulator whose
/// real-vehicle verdict names `autopilot`, the config's `param` write as the autopilot
/// confirmed it, and the mission anchored on the ground at the SITL's home (latitude
/// `home_lat_deg`). Returns the note.
pub fn check_vehicle_link(
    record: &Path,
    autopilot: &str,
    (param, value): (&str, f64),
    home_lat_deg: f64,
) -> Value {
    let Some(Event::Header { config, .. }) = events(record).into_iter().next() else {
        panic!("no header")
    };
    let link = config["vehicle_link"].clone();
    eprintln!("vehicle_link: {link}");
    assert_eq!(link["simulated"], true, "{link}");
    assert!(
        link["real_vehicle_gate"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains(autopilot),
        "{link}"
    );
    assert_eq!(link["param_writes"][param], value, "{link}");
    assert_eq!(link["anchor"]["on_ground"], true, "{link}");
    let home_lat = link["anchor"]["home"]["lat_deg"].as_f64().unwrap();
    assert!(
        (home_lat - home_lat_deg).abs() < 1e-3,
        "the SITL's home: {link}"
    );
    link
}

/// `alpha3 score` on the record: one episode, every pillar a number.
pub fn score(record: &Path) {
    let dir = record.parent().unwrap().join("score");
    let out = alpha3()
        .arg("score")
        .arg(record)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "alpha3 score: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let board: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("leaderboard.json")).unwrap())
            .unwrap();
    let run = &board["runs"][0];
    assert_eq!(run["n"], 1, "{board:#}");
    assert_eq!(run["safety"]["truth_violations"], 0, "{board:#}");
    let pillars = run["pillars"].as_object().unwrap();
    for p in ["TO", "SP", "TC", "IQ", "NR", "CC"] {
        assert!(pillars[p].is_number(), "{p}: {board:#}");
    }
    eprintln!("score: {board}");
}

/// Starts `alpha3 mcp --transport http` in `dir` on a free loopback port with `extra`
/// arguments; returns the child, the URL it printed, and the thread collecting its stderr.
pub fn start_http_server(
    dir: &Path,
    extra: &[&str],
) -> (Child, String, std::thread::JoinHandle<String>) {
    use std::io::BufRead;
    let mut args = server_args(dir, &["--transport", "http", "--listen", "127.0.0.1:0"]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut child = alpha3()
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
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
        .unwrap_or_else(|e| panic!("alpha3 mcp printed no address: {e}"));
    (child, url, reader)
}

/// An HTTP answer as a raw client sees it.
#[derive(Debug)]
pub struct RawAnswer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// POSTs `body` to the server at `url` (`http://HOST:PORT/mcp`) over a plain TCP connection, as
/// any HTTP client would, with the headers a streamable HTTP MCP client sends.
pub fn post_raw(url: &str, body: &[u8]) -> RawAnswer {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let content_type = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    RawAnswer {
        status,
        content_type,
        body: body.to_string(),
    }
}
