//! Scenarios the runtime cannot fly are refused at the door: `alpha3 validate` names the JSON
//! path and the rule, and `bench`, `fly`, `sitl` and `sim-vehicle` refuse the same files with
//! exit 1 before flying (issue 15, items 3–5: each probe below once passed `validate` and then
//! panicked, aborted on an allocation, flew without lateral containment or planned for minutes).

#![allow(clippy::unwrap_used)]

use alpha3_test_support::{root, shared_file};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn alpha3() -> Command {
    Command::new(env!("CARGO_BIN_EXE_alpha3"))
}

fn shipped() -> Value {
    let text = std::fs::read_to_string(root().join("configs/scenarios/sc-0000.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Writes `sc-0000` edited by `edit` (compact JSON) to `dir/name`.
fn write(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v = shipped();
    edit(&mut v);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path
}

fn output(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

fn validate(path: &Path) -> (i32, String) {
    output(alpha3().arg("validate").arg(path))
}

/// `count` static no-fly cylinders of 1 m in a grid over the suite's 800 m fence.
fn zones(count: usize) -> Value {
    let side = (count as f64).sqrt().ceil() as usize;
    let step = 780 / side;
    let list: Vec<Value> = (0..count)
        .map(|i| {
            let (x, y) = (10 + step * (i % side), 10 + step * (i / side));
            json!({"type": "cylinder", "center": [x, y], "radius_m": 1.0,
                   "floor_m": 0.0, "ceiling_m": 200.0})
        })
        .collect();
    Value::Array(list)
}

/// A probe: file name, the edit of `sc-0000` that makes it, the JSON path and rule to name.
type Probe = (
    &'static str,
    Box<dyn FnOnce(&mut Value)>,
    &'static str,
    &'static str,
);

/// The probes of issue 15, each with the path and rule `validate` must name.
fn probes() -> Vec<Probe> {
    vec![
        (
            "time-budget-1e300.json",
            Box::new(|v: &mut Value| v["mission"]["time_budget_s"] = json!(1e300)),
            "/mission/time_budget_s",
            "range",
        ),
        (
            "bow-tie-fence.json",
            Box::new(|v: &mut Value| {
                v["airspace"]["geofence"][0]["points"] =
                    json!([[0, 0], [800, 800], [800, 0], [0, 700]]);
            }),
            "/airspace/geofence/0",
            "area",
        ),
        (
            "collinear-fence.json",
            Box::new(|v: &mut Value| {
                v["airspace"]["geofence"][0]["points"] = json!([[0, 0], [400, 0], [800, 0]]);
            }),
            "/airspace/geofence/0",
            "area",
        ),
        (
            "no-fence.json",
            Box::new(|v: &mut Value| v["airspace"]["geofence"] = json!([])),
            "/airspace/geofence",
            "containment",
        ),
        (
            "band-1e9.json",
            Box::new(|v: &mut Value| {
                v["airspace"]["altitude_agl_min_m"] = json!(-1e9);
                v["airspace"]["altitude_agl_max_m"] = json!(1e9);
            }),
            "/airspace/altitude_agl_min_m",
            "range",
        ),
        (
            "spawn-1e308.json",
            Box::new(|v: &mut Value| v["spawn"]["xyz"][0] = json!(1e308)),
            "/spawn/xyz/0",
            "range",
        ),
        (
            "spawn-outside.json",
            Box::new(|v: &mut Value| v["spawn"]["xyz"] = json!([900.0, 89.0, 36.0])),
            "/spawn/xyz",
            "spawn_in_fence",
        ),
        (
            "negative-speed.json",
            Box::new(|v: &mut Value| v["uav"]["max_speed_mps"] = json!(-5.0)),
            "/uav/max_speed_mps",
            "positive",
        ),
        (
            "zones-10000.json",
            Box::new(|v: &mut Value| v["airspace"]["no_fly_zones"] = zones(10_000)),
            "/airspace/no_fly_zones",
            "max_items",
        ),
    ]
}

#[test]
fn validate_names_the_path_and_rule_of_every_unflyable_value() {
    let dir = tempfile::tempdir().unwrap();
    for (name, edit, pointer, rule) in probes() {
        let path = write(dir.path(), name, edit);
        let (code, out) = validate(&path);
        assert_eq!(code, 1, "{name}: {out}");
        let expected = format!("{pointer}: ");
        let line = out
            .lines()
            .find(|l| l.contains(&expected) && l.contains(&format!("[rule: {rule}]")));
        assert!(
            line.is_some(),
            "{name}: expected {pointer} [rule: {rule}] in\n{out}"
        );
    }
}

#[test]
fn a_scenario_over_the_size_cap_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    // 50 MB once took 1.7 GB to validate; a few MB over the cap are refused the same way.
    let path = write(dir.path(), "huge.json", |v| {
        v["description"] = json!("x".repeat(3 << 20));
    });
    let (code, out) = validate(&path);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[rule: max_size]"), "{out}");
    let (code, out) = output(alpha3().args(["validate", "--kind", "scenario"]).arg(&path));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("[rule: max_size]"), "{out}");
}

#[test]
fn the_shipped_scenarios_and_the_uavbench_example_still_pass() {
    let (code, out) = validate(&root().join("configs/scenarios"));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("50 file(s) checked, 50 valid"), "{out}");
    if let Some(example) = shared_file("uavbench/example-scenario.json") {
        let (code, out) = validate(&example);
        assert_eq!(code, 0, "{out}");
    }
}

/// A one-scenario, one-seed scripted suite over `scenario`.
fn suite(dir: &Path, scenario: &Path) -> PathBuf {
    let root = root().canonicalize().unwrap();
    let text = format!(
        r#"[bench]
name = "door"
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

#[test]
fn every_loader_refuses_what_validate_refuses_before_flying() {
    let dir = tempfile::tempdir().unwrap();
    let config = root().join("configs/alpha3.toml");
    for (name, edit, pointer, _) in probes() {
        let path = write(dir.path(), name, edit);
        let out = dir.path().join(format!("out-{name}"));
        let suite = suite(dir.path(), &path);
        let runs: [(&str, Command); 4] = [
            ("bench", {
                let mut c = alpha3();
                c.args(["bench", "--quiet", "--suite"])
                    .arg(&suite)
                    .arg("--out")
                    .arg(&out);
                c
            }),
            ("fly", {
                let mut c = alpha3();
                c.args(["fly", "--no-stdin", "--config"])
                    .arg(&config)
                    .arg("--scenario")
                    .arg(&path)
                    .args(["--connect", "udpin:127.0.0.1:14999"]);
                c
            }),
            ("sitl", {
                let mut c = alpha3();
                c.args(["sitl", "--config"])
                    .arg(&config)
                    .arg("--scenario")
                    .arg(&path)
                    .args(["--connect", "udpin:127.0.0.1:14998", "--out"])
                    .arg(&out);
                c
            }),
            ("sim-vehicle", {
                let mut c = alpha3();
                c.args(["sim-vehicle", "--instance", "200", "--scenario"])
                    .arg(&path);
                c
            }),
        ];
        for (what, mut cmd) in runs {
            let (code, text) = output(&mut cmd);
            assert_eq!(code, 1, "{what} on {name}: {text}");
            assert!(text.contains(pointer), "{what} on {name}: {text}");
        }
        assert!(
            !out.join("records").exists()
                || std::fs::read_dir(out.join("records")).unwrap().count() == 0,
            "{name}: nothing was flown"
        );
    }
}
