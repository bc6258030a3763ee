//! A scenario passes `alpha3 validate` only if it can be flown safely, and one function decides
//! for `validate` and for the loaders (issue 30, item 8): a spawn or a waypoint inside a no-fly
//! zone is refused naming the file, the JSON path and the rule, and a key given twice
//! (`radius_m`) is refused by `validate` and `bench` alike, with the same problem.

#![allow(clippy::unwrap_used)]

use alpha3_test_support::root;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn alpha3() -> Command {
    Command::new(env!("CARGO_BIN_EXE_alpha3"))
}

fn shipped_text() -> String {
    std::fs::read_to_string(root().join("configs/scenarios/sc-0000.json")).unwrap()
}

/// Writes `sc-0000` edited by `edit` to `dir/name`.
fn write(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v: Value = serde_json::from_str(&shipped_text()).unwrap();
    edit(&mut v);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path
}

fn output(cmd: &mut Command) -> (Option<i32>, String) {
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// A one-scenario, one-seed scripted suite over `scenario`, written as `dir/suite.toml`.
fn suite(dir: &Path, scenario: &Path) -> PathBuf {
    let root = root().canonicalize().unwrap();
    let text = format!(
        r#"[bench]
name = "flyable"
scenarios = ["{scenario}"]
seeds = [1]
policies = ["{root}/configs/policies/scripted.toml"]
concurrency = 1
min_turns = 8
max_turns = 12
max_tokens = 10000
max_tool_actions = 25
base_config = "{root}/configs/alpha3.toml"
"#,
        scenario = scenario.display(),
        root = root.display(),
    );
    let path = dir.join("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `validate` refuses `path` (exit 1) with a line `<path>: <pointer>… [rule: <rule>]`, and
/// `bench` refuses it (exit 1, nothing flown) naming the same problem; gives the problem.
fn refused_alike(dir: &Path, path: &Path, pointer: &str, rule: &str) -> String {
    let (code, out) = output(alpha3().arg("validate").arg(path));
    assert_eq!(code, Some(1), "{out}");
    let file = path.display().to_string();
    let line = out
        .lines()
        .find(|l| l.contains(&format!("[rule: {rule}]")))
        .unwrap_or_else(|| panic!("no [rule: {rule}] in\n{out}"));
    let problem = line
        .strip_prefix(&format!("{file}: "))
        .unwrap_or_else(|| panic!("the line does not name the file: {line}"));
    assert!(problem.starts_with(pointer), "{problem}");

    let runs = dir.join("runs");
    let (code, text) = output(
        alpha3()
            .args(["bench", "--quiet", "--suite"])
            .arg(suite(dir, path))
            .arg("--out")
            .arg(&runs),
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(problem), "bench names {problem:?}: {text}");
    assert!(!runs.join("records").exists(), "nothing flown");
    problem.to_string()
}

#[test]
fn validate_refuses_a_spawn_inside_a_no_fly_zone() {
    let dir = tempfile::tempdir().unwrap();
    // sc-0000's static zone: a cylinder at (610, 688), radius 67, from 15 to 120 m.
    let path = write(dir.path(), "spawn-in-zone.json", |v| {
        v["spawn"]["xyz"] = json!([610.0, 688.0, 36.0]);
    });
    let problem = refused_alike(dir.path(), &path, "/spawn/xyz: ", "spawn_in_no_fly");
    assert!(problem.contains("/airspace/no_fly_zones/0"), "{problem}");
}

#[test]
fn validate_refuses_a_waypoint_inside_a_no_fly_zone() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "waypoint-in-zone.json", |v| {
        v["mission"]["waypoints"][2] = json!([600.0, 680.0, 60.0]);
    });
    let problem = refused_alike(
        dir.path(),
        &path,
        "/mission/waypoints/2: ",
        "waypoint_in_no_fly",
    );
    assert!(problem.contains("/airspace/no_fly_zones/0"), "{problem}");
}

#[test]
fn a_duplicate_key_is_refused_alike_by_validate_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let text = shipped_text();
    let doubled = text.replacen(
        "\"radius_m\": 67.0,",
        "\"radius_m\": 67.0, \"radius_m\": 5.0,",
        1,
    );
    assert_ne!(doubled, text, "sc-0000 has its zone's radius");
    let path = dir.path().join("radius-twice.json");
    std::fs::write(&path, doubled).unwrap();
    let problem = refused_alike(
        dir.path(),
        &path,
        "/airspace/no_fly_zones/0/radius_m (line ",
        "duplicate_key",
    );
    assert!(problem.contains("radius_m"), "{problem}");
}
