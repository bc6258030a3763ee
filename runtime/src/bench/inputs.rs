//! Which inputs made an output folder. A run writes `inputs.json` into `--out` before it flies —
//! a SHA-256 over the suite's settings, its seeds, every policy's effective configuration, every
//! scenario and the versions of alpha3, the metric and the operator — and a rerun resumes into
//! that folder only when its own inputs hash the same: records flown under a base config with
//! max altitude 120 m are not results of one with 60 m. Otherwise it refuses, naming what
//! differs, unless told `--fresh` (which deletes the old records first). The shard is not an
//! input, so the shards of one suite share one hash, which `bench merge` checks.
//!
//! Not hashed: how fast it runs (`concurrency`), where the files are, and the contents of a
//! model file (its path is part of the configuration; the file itself may be gigabytes).

use super::BenchError;
use super::suite::Suite;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// The file the inputs are written to, in the output folder.
pub const INPUTS_FILE: &str = "inputs.json";

/// What a run was made from, each part hashed (hex SHA-256) so a difference can be named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// Over everything below: equal for runs that may share a folder.
    pub hash: String,
    /// The command that flew: `bench` or `sitl`.
    pub command: String,
    pub alpha3_version: String,
    pub metric_version: String,
    pub operator_version: String,
    /// The suite's settings that shape an episode: its name and turn, token and action budgets.
    pub suite: String,
    pub seeds: Vec<u64>,
    /// Per policy (its leaderboard name): its effective configuration and the model it runs.
    pub policies: BTreeMap<String, String>,
    /// Per scenario (its key): the scenario as parsed.
    pub scenarios: BTreeMap<String, String>,
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn hash_of<T: Serialize + ?Sized>(value: &T) -> String {
    sha256(&serde_json::to_vec(value).unwrap_or_default())
}

/// How [`Inputs::policies`] hashes a policy: its effective configuration and the model it runs
/// (`bench merge` hashes a record's header the same way to check it).
pub fn policy_hash(config: &alpha3_core::config::Config, model: Option<&str>) -> String {
    hash_of(&(config, model))
}

impl Inputs {
    /// The inputs of `command` flying `suite`.
    pub fn of(command: &str, suite: &Suite, metric: alpha3_core::score::MetricVersion) -> Self {
        let b = &suite.bench;
        let settings = (
            &b.name,
            b.min_turns,
            b.max_turns,
            b.max_tokens,
            b.max_tool_actions,
        );
        let policies = suite
            .policies
            .iter()
            .map(|p| {
                let model = p
                    .config
                    .policy
                    .as_ref()
                    .and_then(crate::record_header::model_of);
                (p.name.clone(), policy_hash(&p.config, model.as_deref()))
            })
            .collect();
        let scenarios = suite
            .scenarios
            .iter()
            .map(|s| (s.key.clone(), hash_of(&s.scenario)))
            .collect();
        let mut inputs = Self {
            hash: String::new(),
            command: command.into(),
            alpha3_version: env!("CARGO_PKG_VERSION").into(),
            metric_version: metric.as_str().into(),
            operator_version: alpha3_sim::OPERATOR_VERSION.into(),
            suite: hash_of(&settings),
            seeds: b.seeds.clone(),
            policies,
            scenarios,
        };
        inputs.hash = hash_of(&inputs);
        inputs
    }

    /// What differs from `other`, one phrase each (empty when the hashes agree).
    pub fn differences(&self, other: &Inputs) -> Vec<String> {
        if self.hash == other.hash {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut pair = |what: &str, a: &str, b: &str| {
            if a != b {
                out.push(format!("{what} {a} → {b}"));
            }
        };
        pair("command", &self.command, &other.command);
        pair("alpha3", &self.alpha3_version, &other.alpha3_version);
        pair("metric", &self.metric_version, &other.metric_version);
        pair("operator", &self.operator_version, &other.operator_version);
        if self.suite != other.suite {
            out.push("the suite's settings (name, turn, token or action budgets)".into());
        }
        if self.seeds != other.seeds {
            out.push(format!("seeds {:?} → {:?}", self.seeds, other.seeds));
        }
        out.extend(changed(
            "policy",
            "its configuration (base config and policy file, model) changed",
            &self.policies,
            &other.policies,
        ));
        out.extend(changed(
            "scenario",
            "its content changed",
            &self.scenarios,
            &other.scenarios,
        ));
        if out.is_empty() {
            out.push("the inputs hash".into());
        }
        out
    }
}

/// Per key of `a` and `b`: changed (`how`), added or removed (at most five named).
fn changed(
    what: &str,
    how: &str,
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (k, h) in a {
        match b.get(k) {
            Some(g) if g != h => found.push(format!("{what} {k}: {how}")),
            Some(_) => {}
            None => found.push(format!("{what} {k} removed")),
        }
    }
    found.extend(
        b.keys()
            .filter(|k| !a.contains_key(*k))
            .map(|k| format!("{what} {k} added")),
    );
    if found.len() > 5 {
        let more = found.len() - 5;
        found.truncate(5);
        found.push(format!("{more} more {what} difference(s)"));
    }
    found
}

/// Makes `out` a folder of `inputs`: with `fresh`, deletes the records (and `.tlog`s) found
/// there first; then accepts a folder whose `inputs.json` matches, or one with no records yet
/// (writing the file), and refuses anything else, naming what differs.
pub fn claim(out: &Path, inputs: &Inputs, fresh: bool) -> Result<(), BenchError> {
    let path = out.join(INPUTS_FILE);
    if fresh {
        clear(out)?;
    }
    let refuse = |why: String| {
        Err(BenchError::Inputs(format!(
            "{} {why}; rerun with --fresh to delete its records and start afresh, or choose \
             another --out",
            out.display()
        )))
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => match serde_json::from_str::<Inputs>(&text) {
            Ok(old) if old.hash == inputs.hash => return Ok(()),
            Ok(old) => {
                return refuse(format!(
                    "holds results of different inputs: {}",
                    old.differences(inputs).join(", ")
                ));
            }
            Err(e) => return refuse(format!("has an unreadable {INPUTS_FILE} ({e})")),
        },
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(BenchError::io(&path, e));
        }
        Err(_) => {}
    }
    if has_records(out) {
        return refuse(format!(
            "holds records but no {INPUTS_FILE}, so what made them is unknown (an older alpha3)"
        ));
    }
    write(out, inputs)
}

/// Writes `inputs` into `out`.
pub fn write(out: &Path, inputs: &Inputs) -> Result<(), BenchError> {
    std::fs::create_dir_all(out).map_err(|e| BenchError::io(out, e))?;
    let path = out.join(INPUTS_FILE);
    let text =
        serde_json::to_string_pretty(inputs).map_err(|e| BenchError::Output(e.to_string()))?;
    std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))
}

/// The inputs recorded in `dir`, if it has them.
pub fn read(dir: &Path) -> Option<Inputs> {
    let text = std::fs::read_to_string(dir.join(INPUTS_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Files in `dir` (not below) whose name ends with one of `suffixes`.
fn files_ending(dir: &Path, suffixes: &[&str]) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| suffixes.iter().any(|s| n.ends_with(s)))
        })
        .collect()
}

fn has_records(out: &Path) -> bool {
    !files_ending(&out.join("records"), &[".jsonl", ".jsonl.part"]).is_empty()
}

/// Deletes the records, `.tlog`s and inputs file of `out` (nothing else).
fn clear(out: &Path) -> Result<(), BenchError> {
    let mut doomed = files_ending(&out.join("records"), &[".jsonl", ".jsonl.part"]);
    doomed.extend(files_ending(&out.join("tlogs"), &[".tlog"]));
    let inputs = out.join(INPUTS_FILE);
    if inputs.exists() {
        doomed.push(inputs);
    }
    for f in doomed {
        std::fs::remove_file(&f).map_err(|e| BenchError::io(&f, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(scenarios: &[(&str, &str)]) -> Inputs {
        let mut i = Inputs {
            hash: String::new(),
            command: "bench".into(),
            alpha3_version: "0.1.0".into(),
            metric_version: "alpha3-v1".into(),
            operator_version: "op-1".into(),
            suite: "s".into(),
            seeds: vec![1],
            policies: [("scripted".to_string(), "p".to_string())].into(),
            scenarios: scenarios
                .iter()
                .map(|(k, h)| (k.to_string(), h.to_string()))
                .collect(),
        };
        i.hash = hash_of(&i);
        i
    }

    #[test]
    fn differences_name_what_changed() {
        let a = inputs(&[("sc-1", "a"), ("sc-2", "b")]);
        assert!(a.differences(&a.clone()).is_empty());
        let b = inputs(&[("sc-1", "a"), ("sc-2", "c"), ("sc-3", "d")]);
        assert_ne!(a.hash, b.hash);
        assert_eq!(
            a.differences(&b),
            ["scenario sc-2: its content changed", "scenario sc-3 added"]
        );
        let mut c = a.clone();
        c.seeds = vec![1, 2];
        c.hash = hash_of(&c);
        assert_eq!(a.differences(&c), ["seeds [1] → [1, 2]"]);
    }

    #[test]
    fn a_folder_is_claimed_once_and_refused_to_other_inputs_unless_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let (a, b) = (inputs(&[("sc-1", "a")]), inputs(&[("sc-1", "b")]));
        claim(&out, &a, false).unwrap();
        claim(&out, &a, false).unwrap();
        std::fs::create_dir_all(out.join("records")).unwrap();
        std::fs::write(out.join("records/x.jsonl"), "{}\n").unwrap();
        let e = claim(&out, &b, false).unwrap_err().to_string();
        assert!(
            e.contains("scenario sc-1: its content changed") && e.contains("--fresh"),
            "{e}"
        );
        claim(&out, &b, true).unwrap();
        assert!(
            !out.join("records/x.jsonl").exists(),
            "--fresh deletes the records"
        );
        assert_eq!(read(&out), Some(b));
    }

    #[test]
    fn records_of_unknown_inputs_are_not_resumed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("records")).unwrap();
        std::fs::write(dir.path().join("records/x.jsonl.part"), "").unwrap();
        let e = claim(dir.path(), &inputs(&[]), false).unwrap_err();
        assert!(e.to_string().contains("no inputs.json"), "{e}");
    }
}
