//! An episode the runtime fails on is a failed episode, never a silent success (issue 15,
//! item 3): it is recorded with its reason, counted in N (so in reliability) and in the report,
//! the bench goes on with the others and exits non-zero; a rerun flies it again. Once, a worker
//! panic made the run print "1 planned, 0 flown", exit 0 and report "valid 2/2".

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;
use serde_json::Value;
use std::path::Path;

/// (requested, n) of the leaderboard row of `policy`.
fn counts(out: &Path, policy: &str) -> (u64, u64) {
    let board: Value = serde_json::from_str(&read(&out.join("leaderboard.json"))).unwrap();
    let run = board["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["model"] == policy)
        .unwrap_or_else(|| panic!("no row for {policy}: {board}"));
    (
        run["requested"].as_u64().unwrap(),
        run["n"].as_u64().unwrap(),
    )
}

fn termination_reason(record: &Path) -> String {
    read(record)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["event"] == "termination")
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_default()
}

#[test]
fn a_panicking_episode_is_counted_failed_and_the_run_goes_on_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 3, &[1], 2);
    let out = dir.path().join("out");
    let o = alpha3()
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .env("ALPHA3_TEST_PANIC_EPISODE", "sc-0001")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{log}");
    assert!(
        log.contains("episode scripted__sc-0001__s1 failed: worker panicked: injected"),
        "{log}"
    );
    assert!(log.contains("3 flown"), "{log}");
    assert_eq!(record_names(&out).len(), 3, "every episode has a record");
    let failed = out.join("records/scripted__sc-0001__s1.jsonl");
    assert!(
        termination_reason(&failed).starts_with("episode_failed: worker panicked"),
        "{}",
        read(&failed)
    );
    assert_eq!(event_count(&failed, "score"), 1);
    assert_eq!(
        counts(&out, "scripted"),
        (3, 2),
        "in N, not in the valid set"
    );
    let report = read(&out.join("report.html"));
    assert!(report.contains("episode_failed"), "the report shows why");
    // Exported, the failed episode is a failure stub (valid, with its reason).
    let export = out.join("export");
    let o = bench(&[
        "export",
        "--records",
        out.join("records").to_str().unwrap(),
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let stub: Value = serde_json::from_str(&read(
        &export.join("alpha3/scripted/uav/sc-0001-ep-01.json"),
    ))
    .unwrap();
    assert_eq!(stub["_meta"]["generation_failed"], true);
    assert!(
        stub["_meta"]["error"]
            .as_str()
            .unwrap()
            .starts_with("episode_failed")
    );
    let v = alpha3()
        .args(["validate", "--kind", "episode"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));

    // A rerun flies the failed episode again (and only it).
    let o = run_suite(&suite, &out, &[]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(
        log.contains("1 flown, 2 already recorded")
            && log.contains("1 failed episode(s) flown again"),
        "{log}"
    );
    assert_eq!(counts(&out, "scripted"), (3, 3));
    assert!(!termination_reason(&failed).starts_with("episode_failed"));
}

#[test]
fn a_policy_that_will_not_build_fails_its_episodes_not_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 2, &[1], 1);
    let broken = dir.path().join("broken.toml");
    std::fs::write(
        &broken,
        "[policy]\nname = \"broken-replay\"\nbackend = \"replay\"\ndeadline_ms = 1000\n\
         max_attempts = 1\n\n[policy.replay]\nsource = \"does/not/exist\"\n",
    )
    .unwrap();
    let text = read(&suite).replace(
        "policies = [",
        &format!("policies = [\"{}\", ", broken.display()),
    );
    std::fs::write(&suite, text).unwrap();
    let out = dir.path().join("out");
    let o = bench(&[
        "--quiet",
        "--suite",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "the input was at fault: {log}");
    assert!(log.contains("2 episode(s) failed"), "{log}");
    assert_eq!(counts(&out, "broken-replay"), (2, 0));
    assert_eq!(counts(&out, "scripted"), (2, 2), "the other policy flew");
}
