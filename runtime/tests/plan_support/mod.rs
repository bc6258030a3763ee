//! Shared by the plan tests on real autopilots: the shipped test plans, `alpha3 check` and
//! `alpha3 fly --plan` run as a user runs them, and what their answers and records say.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use alpha3_test_support::{python_path, require_or_skip, root};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

/// A shipped test plan (`configs/plans/NAME`).
pub fn plan(name: &str) -> PathBuf {
    root().join("configs/plans").join(name)
}

/// The venv's Python when `module` imports there, else `None` after saying why the test skips
/// (a failure under `CI=true`).
pub fn python_with(module: &str) -> Option<PathBuf> {
    let py = python_path();
    let ok = std::process::Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        require_or_skip(
            &format!("Python module {module}"),
            &format!(
                "`{} -c 'import {module}'` failed; scripts/setup.sh installs it",
                py.display()
            ),
        );
        return None;
    }
    Some(py)
}

/// `alpha3 check --json` with `args`: its exit code and its answer.
pub fn check(bin: &Path, config: &Path, args: &[&str]) -> (i32, Value) {
    let out = std::process::Command::new(bin)
        .arg("check")
        .arg("--config")
        .arg(config)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let answer = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "check {args:?} printed no JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), answer)
}

/// The refusals of a check's answer: (plan item, finding id).
pub fn refusals(answer: &Value) -> Vec<(Option<u64>, String)> {
    answer["check"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "deny")
        .map(|f| (f["item"].as_u64(), f["id"].as_str().unwrap().to_string()))
        .collect()
}

/// The detours of a check's answer: (plan item, finding id).
pub fn detours(answer: &Value) -> Vec<(Option<u64>, String)> {
    answer["check"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "detour")
        .map(|f| (f["item"].as_u64(), f["id"].as_str().unwrap().to_string()))
        .collect()
}

/// A record's lines as JSON.
pub fn record_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Horizontal distance from `p` to the axis-aligned box `[x0, x1] × [y0, y1]` (0 inside).
pub fn distance_to_box(p: [f64; 2], b: [f64; 4]) -> f64 {
    let dx = (b[0] - p[0]).max(0.0).max(p[0] - b[1]);
    let dy = (b[2] - p[1]).max(0.0).max(p[1] - b[3]);
    dx.hypot(dy)
}

/// What a flown plan's record shows: how it ended, the truth's closest approach to the
/// exclusion box and farthest reach out of the inclusion box, and the plan note's sources.
pub struct Flown {
    pub termination: String,
    pub closest_to_exclusion_m: f64,
    pub outside_fence_m: f64,
    pub truth_samples: usize,
    pub plan: Value,
    /// The last truth sample is on the ground (not airborne).
    pub ended_on_ground: bool,
    /// Horizontal distance of the last truth sample from home (the frame's origin).
    pub end_from_home_m: f64,
}

/// Reads a `fly --plan` record; `exclusion` and `inclusion` are boxes in the mission's frame
/// (metres from the autopilot's home).
pub fn flown(record: &Path, exclusion: [f64; 4], inclusion: [f64; 4]) -> Flown {
    let lines = record_lines(record);
    let plan = lines[0]["config"]["vehicle_link"]["plan"].clone();
    let last = lines.iter().rev().find(|l| l["event"] == "truth").cloned();
    let ended_on_ground = last
        .as_ref()
        .is_some_and(|l| l["airborne"] == Value::Bool(false));
    let end_from_home_m = last.as_ref().map_or(f64::INFINITY, |l| {
        l["position"]["x"]
            .as_f64()
            .unwrap_or(f64::INFINITY)
            .hypot(l["position"]["y"].as_f64().unwrap_or(f64::INFINITY))
    });
    let truth: Vec<[f64; 2]> = lines
        .iter()
        .filter(|l| l["event"] == "truth")
        .map(|l| {
            [
                l["position"]["x"].as_f64().unwrap(),
                l["position"]["y"].as_f64().unwrap(),
            ]
        })
        .collect();
    let termination = lines
        .iter()
        .find(|l| l["event"] == "termination")
        .map(|l| l["reason"].as_str().unwrap().to_string())
        .unwrap_or_default();
    let closest = truth
        .iter()
        .map(|p| distance_to_box(*p, exclusion))
        .fold(f64::INFINITY, f64::min);
    let outside = truth
        .iter()
        .map(|p| {
            let inside = p[0] >= inclusion[0]
                && p[0] <= inclusion[1]
                && p[1] >= inclusion[2]
                && p[1] <= inclusion[3];
            if inside {
                0.0
            } else {
                distance_to_box(*p, inclusion)
            }
        })
        .fold(0.0, f64::max);
    Flown {
        termination,
        closest_to_exclusion_m: closest,
        outside_fence_m: outside,
        truth_samples: truth.len(),
        plan,
        ended_on_ground,
        end_from_home_m,
    }
}

/// A ground station as a drone engineer runs one: a MAVSDK-Python session
/// (`tests/py/mavsdk_plan.py`) on an autopilot's ground-station port, for a whole test (PX4's
/// GCS link keeps the first partner it hears). Stopped however the test ends.
pub struct GroundStation {
    child: Child,
    lines: std::io::Lines<BufReader<ChildStdout>>,
    stderr: PathBuf,
}

impl GroundStation {
    /// Connects MAVSDK to `url`; its stderr goes to `stderr`.
    pub fn start(py: &Path, url: &str, stderr: PathBuf) -> Self {
        let mut child = Command::new(py)
            .arg(root().join("tests/py/mavsdk_plan.py"))
            .arg(url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next();
        let mut gs = Self {
            child,
            lines,
            stderr,
        };
        match first {
            Some(Ok(l)) if l.contains("connected") => gs,
            other => panic!("MAVSDK did not connect ({other:?}): {}", gs.log()),
        }
    }

    /// What MAVSDK said on stderr: its warnings and errors, and how Python ended.
    pub fn log(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let said = lines
            .iter()
            .filter(|l| l.contains("Warn") || l.contains("Err"))
            .copied();
        let end = lines[lines.len().saturating_sub(2)..].iter().copied();
        said.chain(end).collect::<Vec<_>>().join("\n")
    }

    /// `upload PLAN [--fence-only]`: MAVSDK's import, its upload of the fence (and rally
    /// points and mission), and the counts it downloads back.
    pub fn upload(&mut self, plan: &Path, fence_only: bool) -> Value {
        let stdin = self.child.stdin.as_mut().unwrap();
        let flag = if fence_only { " --fence-only" } else { "" };
        writeln!(stdin, "upload {}{flag}", plan.display()).unwrap();
        stdin.flush().unwrap();
        match self.lines.next() {
            Some(Ok(line)) => serde_json::from_str(&line).unwrap(),
            _ => panic!("MAVSDK ended during the upload:\n{}", self.log()),
        }
    }
}

impl Drop for GroundStation {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
