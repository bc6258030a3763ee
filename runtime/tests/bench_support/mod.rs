//! Shared by the `bench_*` tests: a small scripted-only suite written into a temp dir, the
//! binary's runner, and readers for what a bench run leaves behind.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use alpha3_test_support::root;

/// Writes a scripted-only suite over the first `scenarios` suite scenarios × `seeds` into
/// `dir/suite.toml` (absolute paths, so the suite file can live anywhere).
pub fn write_suite(dir: &Path, scenarios: u32, seeds: &[u64], concurrency: u32) -> PathBuf {
    let root = root().canonicalize().unwrap();
    let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
    let text = format!(
        r#"[bench]
name = "test-suite"
scenarios = ["{root}/configs/scenarios"]
max_scenarios = {scenarios}
seeds = [{seeds}]
policies = ["{root}/configs/policies/scripted.toml"]
concurrency = {concurrency}
min_turns = 8
max_turns = 12
max_tokens = 10000
max_tool_actions = 25
base_config = "{root}/configs/alpha3.toml"
"#,
        root = root.display(),
        seeds = seeds.join(", "),
    );
    let path = dir.join("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Writes a suite named `name` of the first suite scenario (sc-0000), seed 1, one worker, with
/// `policies` (paths), `turns` (min, max) and `max_tokens`, into `dir/suite.toml`.
pub fn one_scenario_suite(
    dir: &Path,
    name: &str,
    policies: &[PathBuf],
    turns: (u32, u32),
    max_tokens: u64,
) -> PathBuf {
    let root = root().canonicalize().unwrap();
    let policies: Vec<String> = policies
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    let text = format!(
        r#"[bench]
name = "{name}"
scenarios = ["{root}/configs/scenarios"]
max_scenarios = 1
seeds = [1]
policies = [{policies}]
concurrency = 1
min_turns = {min}
max_turns = {max}
max_tokens = {max_tokens}
max_tool_actions = 25
base_config = "{root}/configs/alpha3.toml"
"#,
        root = root.display(),
        policies = policies.join(", "),
        min = turns.0,
        max = turns.1,
    );
    let path = dir.join("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

pub fn alpha3() -> Command {
    Command::new(env!("CARGO_BIN_EXE_alpha3"))
}

/// Runs `alpha3 bench ARGS…` to the end.
pub fn bench(args: &[&str]) -> Output {
    let out = alpha3().arg("bench").args(args).output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

pub fn run_suite(suite: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "--suite",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let o = bench(&args);
    assert_eq!(o.status.code(), Some(0), "bench failed");
    o
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names of the finished records (`*.jsonl`) in `dir/records`, sorted.
pub fn record_names(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("records"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
}

/// How many lines of each event kind a record has.
pub fn event_count(record: &Path, event: &str) -> usize {
    let needle = format!("\"event\":\"{event}\"");
    read(record).lines().filter(|l| l.contains(&needle)).count()
}

/// Whether `actions` fly one waypoint twice in a turn (the steered grammar's order rules it out).
pub fn repeats_a_waypoint(actions: &[alpha3_core::protocol::Action]) -> bool {
    let waypoints: Vec<String> = actions
        .iter()
        .map(|a| serde_json::to_string(a).unwrap())
        .filter(|a| a.contains("\"set_waypoint\""))
        .collect();
    (0..waypoints.len()).any(|k| waypoints[..k].contains(&waypoints[k]))
}
