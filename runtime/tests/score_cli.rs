//! `alpha3 score` as a user runs it: a directory tree in the published layout, `--out` files,
//! `--compare` against a published-style CSV, and a corrupted file counted as a generation
//! failure of its run (reported, never a crash, never dropped).

#![allow(clippy::unwrap_used)]

use alpha3_test_support::shared_data;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// The published CSV header, which `leaderboard.csv` must reproduce column for column.
const HEADER: &str = "model,domain,mean,ci95,n,success_rate,gen_fail_rate,reliability,coverage,alpha3_rel,pillars,mean_gen_time_s,mean_total_tokens,alpha3_per_second,alpha3_per_1k_tokens,total_attempt_calls,mean_attempts_used,call_efficiency";

fn score(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .arg("score")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A small valid episode: 4 alternating turns, one monitoring action per agent turn.
fn episode(attempts: u32, tokens: u64) -> Value {
    let net = json!({"slice": "URLLC", "lat_ms": 8, "jitter_ms": 1, "loss_pct": 0.1, "throughput_mbps": 40, "edge_load": 0.3});
    let read = json!({"type": "mcp", "name": "read_telemetry", "args": {}});
    let obs = json!({"tool": "read_telemetry", "result": {"pose": {"x": 10, "y": 10, "z": 30, "yaw": 0}}});
    let turn = |n: u32, speaker: &str| {
        let (actions, observations) = if speaker == "agent" {
            (json!([read]), json!([obs]))
        } else {
            (json!([]), json!([]))
        };
        json!({"turn": n, "speaker": speaker, "intent": "step", "actions": actions, "obs": observations, "net": net})
    };
    json!({
        "initial_state": {"domain": "uav", "time_s": 0.0,
            "airspace": {"alt_bounds": [5.0, 120.0], "geofence": [{"type": "polygon", "points": [[0, 0], [200, 0], [200, 200], [0, 200]]}]},
            "uav": {"pose": {"x": 10.0, "y": 10.0, "z": 30.0, "yaw": 0.0}, "energy": {"battery_pct": 100.0}},
            "policy": {"alt_bounds": [5.0, 120.0]}},
        "dialogue": [turn(1, "agent"), turn(2, "user"), turn(3, "agent"), turn(4, "user")],
        "success": true,
        "_meta": {"gen_time_s": 12.5, "attempts_used": attempts, "generation_failed": false,
            "usage": {"prompt_tokens": tokens / 2, "completion_tokens": tokens - tokens / 2, "total_tokens": tokens}}
    })
}

/// `<tmp>/acme/bot-1/uav/` with three good episodes, a truncated one, and a checkpoint copy
/// that must be ignored.
fn tree() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs/acme/bot-1/uav");
    std::fs::create_dir_all(dir.join(".ipynb_checkpoints")).unwrap();
    for (i, attempts) in [1, 2, 1].iter().enumerate() {
        let text = serde_json::to_string_pretty(&episode(*attempts, 4000)).unwrap();
        std::fs::write(dir.join(format!("sc-000{i}-ep-00.json")), &text).unwrap();
        if i == 0 {
            std::fs::write(
                dir.join(".ipynb_checkpoints/sc-0000-ep-00-checkpoint.json"),
                &text,
            )
            .unwrap();
        }
    }
    let full = serde_json::to_string(&episode(1, 4000)).unwrap();
    std::fs::write(dir.join("sc-0003-ep-00.json"), &full[..full.len() / 2]).unwrap();
    (tmp, dir)
}

fn csv_cell(line: &str, column: &str) -> String {
    let text = format!("{HEADER}\n{line}\n");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut rows = reader.records();
    let header = rows.next().unwrap().unwrap();
    let row = rows.next().unwrap().unwrap();
    let i = header.iter().position(|h| h == column).unwrap();
    row[i].to_string()
}

#[test]
fn out_writes_the_three_reports_and_counts_a_truncated_file_as_a_failure() {
    let (tmp, _) = tree();
    let out = tmp.path().join("out");
    let runs = tmp.path().join("runs");
    let (code, _, stderr) = score(&[runs.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("sc-0003-ep-00.json"),
        "the bad file is named: {stderr}"
    );
    assert!(
        stderr.contains("not an episode"),
        "with its reason: {stderr}"
    );

    let csv = std::fs::read_to_string(out.join("leaderboard.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let row = lines.next().unwrap();
    assert!(row.starts_with("acme/bot-1,uav,"), "{row}");
    // N = 4 (the checkpoint copy ignored), n = 3; attempts 1 + 2 + 1 + 1 (the bad file) = 5.
    assert_eq!(csv_cell(row, "n"), "3.0");
    assert_eq!(csv_cell(row, "gen_fail_rate"), "0.25");
    assert_eq!(csv_cell(row, "total_attempt_calls"), "5.0");
    assert_eq!(csv_cell(row, "call_efficiency"), "0.8");
    assert_eq!(csv_cell(row, "mean_total_tokens"), "4000.0");
    // The published layout: a Python dict literal, read back as the published file is.
    let cell = csv_cell(row, "pillars");
    assert!(cell.starts_with("{'TO': 1.0, 'SP': "), "{cell}");
    let pillars = alpha3::score::parse_py_dict(&cell).unwrap();
    assert_eq!(pillars["TO"], 1.0);
    assert_eq!(pillars.len(), 6);
    assert_eq!(
        lines.next().map(|l| l.starts_with("acme/bot-1,macro,")),
        Some(true)
    );

    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("leaderboard.json")).unwrap())
            .unwrap();
    assert_eq!(json["metric_version"], "alpha3-v2");
    let run = &json["runs"][0];
    assert_eq!(
        (run["requested"].as_u64(), run["n"].as_u64()),
        (Some(4), Some(3))
    );
    for key in [
        "proposed",
        "approved",
        "clamped",
        "denied",
        "denied_by_finding",
        "truth_violations",
    ] {
        assert!(run["safety"].get(key).is_some(), "safety.{key}");
    }
    assert_eq!(run["problems"].as_array().map(Vec::len), Some(1));
    assert_eq!(run["episodes"].as_array().map(Vec::len), Some(4));

    let md = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    assert!(
        md.contains("alpha3-v2") && md.contains("| acme/bot-1 | uav |"),
        "{md}"
    );
    assert!(md.contains("sc-0003-ep-00.json"), "{md}");
}

#[test]
fn without_out_the_markdown_goes_to_stdout() {
    let (tmp, dir) = tree();
    let (code, stdout, _) = score(&[dir.join("sc-0000-ep-00.json").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("| # | model |") && stdout.contains("acme/bot-1"),
        "{stdout}"
    );
    drop(tmp);
}

#[test]
fn compare_prints_ours_published_and_the_difference() {
    let (tmp, _) = tree();
    let out = tmp.path().join("out");
    let published = tmp.path().join("published.csv");
    let row = "acme/bot-1,uav,0.9,0.01,4.0,1.0,0.0,1.0,1.0,0.7,\"{'TO': 1.0, 'SP': 1, 'TC': 1.0, 'IQ': 0.9, 'NR': 0.8, 'CC': 0.7}\",12.5,4000.0,0.05,0.2,5.0,1.25,0.8";
    std::fs::write(
        &published,
        format!("{HEADER}\n{row}\nacme/bot-1,macro,0.7,,,,,,,,,,,,,,,\n"),
    )
    .unwrap();
    let runs = tmp.path().join("runs");
    let (code, stdout, stderr) = score(&[
        runs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--compare",
        published.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("acme/bot-1 (uav)") && stdout.contains("difference"),
        "{stdout}"
    );
    let compare = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    assert!(compare.starts_with("model,domain,column,ours,published,difference\n"));
    assert!(
        compare.contains("acme/bot-1,uav,call_efficiency,0.8,0.8,0.0"),
        "{compare}"
    );
    assert!(
        compare.contains("acme/bot-1,uav,pillar.SP,1.0,1.0,0.0"),
        "{compare}"
    );
    assert!(
        compare.contains("acme/bot-1,uav,n,3.0,4.0,-1.0"),
        "{compare}"
    );
}

#[test]
fn a_missing_path_is_reported_with_exit_code_1() {
    let (code, _, stderr) = score(&["/nonexistent/alpha3/episodes"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no such file"), "{stderr}");
}

#[test]
fn the_published_gpt_4_1_mini_run_against_the_published_leaderboard() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let runs = data.join("alphabench/eval_runs/openai/gpt-4.1-mini");
    let published = data.join("alphabench/reports/leaderboard_uav.csv");
    let (code, stdout, stderr) = score(&[
        runs.to_str().unwrap(),
        "--out",
        tmp.path().to_str().unwrap(),
        "--compare",
        published.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("openai/gpt-4.1-mini (uav)"), "{stdout}");
    let compare = std::fs::read_to_string(tmp.path().join("compare.csv")).unwrap();
    for exact in [
        "openai/gpt-4.1-mini,uav,n,50.0,50.0,0.0",
        "openai/gpt-4.1-mini,uav,total_attempt_calls,64.0,64.0,0.0",
        "openai/gpt-4.1-mini,uav,call_efficiency,0.78125,0.78125,0.0",
        "openai/gpt-4.1-mini,uav,mean_total_tokens,4754.1,4754.1,0.0",
        "openai/gpt-4.1-mini,uav,pillar.TC,1.0,1.0,0.0",
    ] {
        assert!(compare.contains(exact), "{exact} not in\n{compare}");
    }
    let csv = std::fs::read_to_string(tmp.path().join("leaderboard.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some(HEADER));
}

/// A short closed-loop record: header, one generation, one agent turn with its observation, an
/// operator turn and the termination.
fn record_lines(model: &str) -> Vec<String> {
    use alpha3_core::protocol::{Action, AgentTurn};
    use alpha3_core::record::{Event, RECORD_VERSION, RecordLine, to_json_line};
    let events = vec![
        Event::Header {
            episode_id: "e1".into(),
            scenario: "sc-0001".into(),
            seed: 1,
            policy: "scripted".into(),
            model: Some(model.into()),
            operator_version: "1".into(),
            metric_version: "alpha3-v1".into(),
            alpha3_version: "0.1.0".into(),
            config: json!({}),
        },
        Event::Generation {
            turn: 1,
            attempt: 1,
            prompt: String::new(),
            completion: String::new(),
            prompt_tokens: 900,
            cached_tokens: 0,
            completion_tokens: 100,
            latency_ms: 2000.0,
            ttft_ms: None,
            error: None,
            admissible: None,
        },
        Event::AgentTurn {
            turn: 1,
            agent_turn: AgentTurn {
                intent: "hold".into(),
                actions: vec![Action::mcp("hold", json!({}))],
            },
        },
        Event::Observation {
            turn: 1,
            action: 0,
            tool: "hold".into(),
            result: json!({"status": "completed"}),
            executed: true,
        },
        Event::OperatorTurn {
            turn: 2,
            intent: "ack".into(),
            text: "ok".into(),
            actions: vec![],
        },
        Event::Termination {
            reason: "mission_complete".into(),
            success: true,
            turns: 2,
        },
    ];
    events
        .into_iter()
        .enumerate()
        .map(|(i, event)| {
            to_json_line(&RecordLine {
                v: RECORD_VERSION,
                seq: i as u64,
                t_ms: i as u64 * 10,
                event,
            })
        })
        .collect()
}

#[test]
fn flight_records_are_scored_and_a_corrupted_one_fails_its_run() {
    let tmp = tempfile::tempdir().unwrap();
    let good = record_lines("local/tiny");
    std::fs::write(tmp.path().join("a.jsonl"), good.concat()).unwrap();
    let mut bad = record_lines("local/tiny");
    bad[2] = "{\"v\":1,\"seq\":2,\"t_ms\":20,\"event\":\"agent_tu\n".into();
    std::fs::write(tmp.path().join("b.jsonl"), bad.concat()).unwrap();
    let out = tmp.path().join("out");
    let (code, _, stderr) = score(&[tmp.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("b.jsonl") && stderr.contains("line 3"),
        "{stderr}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("leaderboard.json")).unwrap())
            .unwrap();
    let run = &json["runs"][0];
    assert_eq!(
        run["model"], "local/tiny",
        "the bad record stays in its run"
    );
    assert_eq!(
        (run["requested"].as_u64(), run["n"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(run["mean_total_tokens"], 1000.0);
    assert_eq!(run["pillars"]["TC"], 1.0);
    assert_eq!(run["safety"]["proposed"], 1);
}

#[test]
fn metric_selects_the_definitions_and_every_output_names_it() {
    let (_tmp, dir) = tree();
    let file = dir.join("sc-0000-ep-00.json");
    let mut cc = Vec::new();
    for metric in ["alpha3-v1", "alpha3-v2"] {
        let out = tempfile::tempdir().unwrap();
        let (code, _, stderr) = score(&[
            file.to_str().unwrap(),
            "--metric",
            metric,
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let json: Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join("leaderboard.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(json["metric_version"], metric);
        let md = std::fs::read_to_string(out.path().join("leaderboard.md")).unwrap();
        assert!(md.contains(&format!("Metric `{metric}`")), "{md}");
        cc.push(json["runs"][0]["pillars"]["CC"].as_f64().unwrap());
    }
    // 4,000 tokens: v1 charges them against 10,000 and the actions against 25, v2 only what
    // exceeds 3,000 tokens and 10 actions.
    assert!(cc[1] > cc[0], "CC v1 {} v2 {}", cc[0], cc[1]);
    let (code, _, stderr) = score(&[file.to_str().unwrap(), "--metric", "alpha3-v9"]);
    assert_eq!(code, 2, "an unknown metric is a usage error: {stderr}");
    assert!(stderr.contains("alpha3-v9"), "{stderr}");
}
