//! `alpha3 bench merge` checks every record against what it claims (its header against the
//! shards' inputs and its own file name, its score line against its events scored again) and
//! refuses the merge — exit 1, naming the file and what differs, nothing written — when one is
//! not: an edited outcome, a record flown under another configuration, an `inputs.json` copied
//! into a shard flown from other inputs, and a record renamed to another episode.

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;
use std::path::{Path, PathBuf};

/// A scripted suite over sc-0000, seeds 1 and 2 (shard 0/2 flies seed 1, shard 1/2 seed 2),
/// on `base_config`, written as `dir/<name>.toml`.
fn suite(dir: &Path, name: &str, base_config: &Path) -> PathBuf {
    let root = root().canonicalize().unwrap();
    let text = format!(
        r#"[bench]
name = "merge-verify"
scenarios = ["{root}/configs/scenarios"]
max_scenarios = 1
seeds = [1, 2]
policies = ["{root}/configs/policies/scripted.toml"]
concurrency = 1
min_turns = 8
max_turns = 12
max_tokens = 10000
max_tool_actions = 25
base_config = "{base}"
"#,
        root = root.display(),
        base = base_config.display(),
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The shipped base config with the planning battery reserve at 30 %.
fn reserve_30(dir: &Path) -> PathBuf {
    let text = read(&root().join("configs/alpha3.toml"));
    let edited = text.replace(
        "\nreserve_battery_pct = 25.0",
        "\nreserve_battery_pct = 30.0",
    );
    assert_ne!(edited, text, "the base config names its reserve");
    let path = dir.join("reserve-30.toml");
    std::fs::write(&path, edited).unwrap();
    path
}

/// Both shards of the suite on the shipped base config: `(dir/s0, dir/s1)`.
fn shards(dir: &Path) -> (PathBuf, PathBuf) {
    let s = suite(dir, "suite", &root().join("configs/alpha3.toml"));
    let (s0, s1) = (dir.join("s0"), dir.join("s1"));
    run_suite(&s, &s0, &["--shard", "0/2"]);
    run_suite(&s, &s1, &["--shard", "1/2"]);
    (s0, s1)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `bench merge --out dir/merged A B`: its exit code, stderr and the merged folder.
fn merge(dir: &Path, a: &Path, b: &Path) -> (Option<i32>, String, PathBuf) {
    let merged = dir.join("merged");
    let o = bench(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code(), err, merged)
}

/// The merge was refused naming `file` and `what`, and wrote nothing.
fn assert_refused(dir: &Path, a: &Path, b: &Path, file: &Path, what: &str) {
    let (code, err, merged) = merge(dir, a, b);
    assert!(
        !merged.join("leaderboard.csv").exists() && !merged.join("records").exists(),
        "a refused merge wrote a leaderboard or records (exit {code:?}): {err}"
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains(what), "says {what:?}: {err}");
}

#[test]
fn genuine_shards_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, s1) = shards(dir.path());
    let (code, err, merged) = merge(dir.path(), &s0, &s1);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(record_names(&merged).len(), 2);
}

#[test]
fn merge_refuses_a_record_whose_outcome_was_edited() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, s1) = shards(dir.path());
    let file = s1.join("records").join(&record_names(&s1)[0]);
    let text = read(&file);
    let edited = text.replace(
        "\"reason\":\"mission_complete\"",
        "\"reason\":\"safety_violation\"",
    );
    assert_ne!(edited, text, "the scripted agent completes sc-0000 seed 2");
    std::fs::write(&file, edited).unwrap();
    assert_refused(
        dir.path(),
        &s0,
        &s1,
        &file,
        "scoring its events again gives",
    );
}

#[test]
fn merge_refuses_a_record_flown_under_another_config() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, s1) = shards(dir.path());
    // The same episode flown with a 30 % reserve, dropped into the genuine shard.
    let other = suite(dir.path(), "other", &reserve_30(dir.path()));
    let flown = dir.path().join("other-s1");
    run_suite(&other, &flown, &["--shard", "1/2"]);
    let name = &record_names(&s1)[0];
    let foreign = read(&flown.join("records").join(name));
    assert!(foreign.contains("\"reserve_battery_pct\":30.0"));
    let file = s1.join("records").join(name);
    std::fs::write(&file, foreign).unwrap();
    assert_refused(
        dir.path(),
        &s0,
        &s1,
        &file,
        "flown under another configuration",
    );
}

#[test]
fn merge_refuses_a_shard_whose_inputs_json_was_copied_in() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, s1) = shards(dir.path());
    // A shard flown from other inputs, made to look like the genuine one.
    let other = suite(dir.path(), "other", &reserve_30(dir.path()));
    let flown = dir.path().join("other-s1");
    run_suite(&other, &flown, &["--shard", "1/2"]);
    std::fs::copy(s1.join("inputs.json"), flown.join("inputs.json")).unwrap();
    let file = flown.join("records").join(&record_names(&flown)[0]);
    assert_refused(
        dir.path(),
        &s0,
        &flown,
        &file,
        "flown under another configuration",
    );
}

#[test]
fn merge_refuses_a_record_renamed_to_another_episode() {
    let dir = tempfile::tempdir().unwrap();
    let (s0, s1) = shards(dir.path());
    // Shard 0's seed-1 record replaced by shard 1's seed-2 record under the seed-1 name.
    let renamed = dir.path().join("s0-renamed");
    copy_dir(&s0, &renamed);
    let seed1 = record_names(&s0)[0].clone();
    let seed2 = record_names(&s1)[0].clone();
    assert!(seed1.ends_with("__s1.jsonl") && seed2.ends_with("__s2.jsonl"));
    let file = renamed.join("records").join(&seed1);
    std::fs::copy(s1.join("records").join(&seed2), &file).unwrap();
    assert_refused(dir.path(), &renamed, &s1, &file, "its file name is");
}
