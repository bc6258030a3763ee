//! A rerun resumes into its `--out` only from the same inputs (issue 15, item 8): once, after
//! the base config's max altitude went from 120 to 60 m, a rerun reported "0 flown, N already
//! recorded" and kept the old results. Now it is refused with what differs, `--fresh` starts
//! over, and the shards of one suite share one inputs hash (which `bench merge` checks).

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;
use std::path::{Path, PathBuf};

/// A scripted suite over 2 scenarios × 1 seed whose base config is a copy in `dir` with
/// `max_altitude_m` set to `max_alt`.
fn suite_with_ceiling(dir: &Path, max_alt: u32) -> PathBuf {
    let suite = write_suite(dir, 2, &[1], 1);
    let base = read(&root().join("configs/alpha3.toml"));
    assert!(base.contains("max_altitude_m = 120.0"));
    let copy = dir.join("base.toml");
    std::fs::write(
        &copy,
        base.replace(
            "max_altitude_m = 120.0",
            &format!("max_altitude_m = {max_alt}.0"),
        ),
    )
    .unwrap();
    let root = root().canonicalize().unwrap();
    let text = read(&suite).replace(
        &format!("{}/configs/alpha3.toml", root.display()),
        &copy.display().to_string(),
    );
    std::fs::write(&suite, text).unwrap();
    suite
}

fn inputs_hash(out: &Path) -> String {
    let v: serde_json::Value = serde_json::from_str(&read(&out.join("inputs.json"))).unwrap();
    v["hash"].as_str().unwrap().to_string()
}

#[test]
fn a_rerun_from_changed_inputs_is_refused_until_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_ceiling(dir.path(), 120);
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);
    let before = inputs_hash(&out);
    let records = record_names(&out);
    assert_eq!(records.len(), 2);

    suite_with_ceiling(dir.path(), 60);
    let o = bench(&[
        "--quiet",
        "--suite",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{log}");
    assert!(
        log.contains("different inputs") && log.contains("policy scripted: its configuration"),
        "names what differs: {log}"
    );
    assert!(log.contains("--fresh"), "{log}");
    assert_eq!(record_names(&out), records, "nothing deleted");
    assert_eq!(inputs_hash(&out), before);

    let o = run_suite(&suite, &out, &["--fresh"]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("2 flown, 0 already recorded"), "{log}");
    assert_ne!(inputs_hash(&out), before);
    let record = read(&out.join("records").join(&records[0]));
    assert!(
        record.contains("\"max_altitude_m\":60.0"),
        "flown with the new config"
    );

    // Unchanged inputs resume as before.
    let o = run_suite(&suite, &out, &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 flown, 2 already recorded"));
}

#[test]
fn shards_share_one_hash_and_merge_refuses_mixed_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_with_ceiling(dir.path(), 120);
    let (s0, s1) = (dir.path().join("s0"), dir.path().join("s1"));
    run_suite(&suite, &s0, &["--shard", "0/2"]);
    run_suite(&suite, &s1, &["--shard", "1/2"]);
    assert_eq!(inputs_hash(&s0), inputs_hash(&s1));
    let merged = dir.path().join("merged");
    let o = bench(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(inputs_hash(&merged), inputs_hash(&s0));
    // The merged folder resumes like an unsharded run of the same inputs.
    let o = run_suite(&suite, &merged, &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 flown, 2 already recorded"));

    suite_with_ceiling(dir.path(), 60);
    let other = dir.path().join("other");
    run_suite(&suite, &other, &["--shard", "1/2"]);
    let o = bench(&[
        "merge",
        "--out",
        dir.path().join("mixed").to_str().unwrap(),
        s0.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{log}");
    assert!(log.contains("different inputs"), "{log}");
}
