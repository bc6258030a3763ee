//! `--shard 0/2` and `--shard 1/2` split a suite into disjoint halves that together are the
//! whole suite, and `alpha3 bench merge` of the two gives the unsharded leaderboard.

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;
use std::collections::BTreeSet;

#[test]
fn two_shards_merged_equal_the_whole_suite() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 3, &[1, 2, 3], 2);
    let whole = dir.path().join("whole");
    run_suite(&suite, &whole, &[]);
    let (s0, s1) = (dir.path().join("s0"), dir.path().join("s1"));
    run_suite(&suite, &s0, &["--shard", "0/2"]);
    run_suite(&suite, &s1, &["--shard", "1/2"]);

    let a: BTreeSet<String> = record_names(&s0).into_iter().collect();
    let b: BTreeSet<String> = record_names(&s1).into_iter().collect();
    assert!(!a.is_empty() && !b.is_empty(), "both shards have work");
    assert!(a.is_disjoint(&b), "{a:?} ∩ {b:?}");
    assert!(
        a.len().abs_diff(b.len()) <= 1,
        "balanced: {} vs {}",
        a.len(),
        b.len()
    );
    let union: Vec<String> = a.union(&b).cloned().collect();
    assert_eq!(union, record_names(&whole));

    let merged = dir.path().join("merged");
    let o = bench(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(record_names(&merged), record_names(&whole));
    for f in ["leaderboard.csv", "leaderboard.json", "leaderboard.md"] {
        assert_eq!(read(&merged.join(f)), read(&whole.join(f)), "{f}");
    }
    assert!(merged.join("report.html").is_file());
    assert!(merged.join("plots/scenarios.svg").is_file());

    // Merging a shard twice does not count its episodes twice.
    let again = dir.path().join("again");
    let o = bench(&[
        "merge",
        "--out",
        again.to_str().unwrap(),
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
        s0.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("more than one shard"));
    assert_eq!(
        read(&again.join("leaderboard.csv")),
        read(&whole.join("leaderboard.csv"))
    );
}

/// Runs `alpha3 bench` with extra environment variables (a scheduler's), and no inherited
/// scheduler variables.
fn bench_with_env(args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = alpha3();
    cmd.arg("bench").args(args);
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_STEP",
        "SLURM_CPUS_PER_TASK",
        "JOB_COMPLETION_INDEX",
    ] {
        cmd.env_remove(v);
    }
    cmd.envs(vars.iter().copied());
    let o = cmd.output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn scheduler_shards_share_one_out_and_merge_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), 3, &[1, 2], 1);
    let whole = dir.path().join("whole");
    run_suite(&suite, &whole, &[]);
    let shared = dir.path().join("shared");
    let (s, o) = (suite.to_str().unwrap(), shared.to_str().unwrap());
    // A Slurm array `--array=1-5:2` (tasks 1, 3, 5) and an Indexed Job pod: each its own shard.
    for id in ["1", "3"] {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ];
        let r = bench_with_env(&["--suite", s, "--out", o, "-q"], &vars);
        assert_eq!(r.status.code(), Some(0));
    }
    let r = bench_with_env(
        &["--suite", s, "--out", o, "-q", "--shard-count", "3"],
        &[("JOB_COMPLETION_INDEX", "2")],
    );
    assert_eq!(r.status.code(), Some(0));
    for i in 0..3 {
        let d = shared.join(format!("shards/{i}-of-3"));
        assert!(d.join("plan.json").is_file(), "{}", d.display());
        assert!(!record_names(&d).is_empty());
    }
    // An index without its count is refused before anything runs.
    let r = bench_with_env(
        &["--suite", s, "--out", o, "-q"],
        &[("JOB_COMPLETION_INDEX", "0")],
    );
    assert_eq!(r.status.code(), Some(1));

    // The merge finds the shards under --out and equals the single-process run.
    let r = bench(&["merge", "--out", o, "--suite", s]);
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(record_names(&shared), record_names(&whole));
    for f in ["leaderboard.csv", "leaderboard.json", "leaderboard.md"] {
        assert_eq!(read(&shared.join(f)), read(&whole.join(f)), "{f}");
    }

    // A lost record is named, by the shard's plan alone or by the suite, and fails the merge.
    let gone = record_names(&shared.join("shards/1-of-3"))[0].clone();
    std::fs::remove_file(shared.join("shards/1-of-3/records").join(&gone)).unwrap();
    let id = gone.trim_end_matches(".jsonl");
    for with_suite in [false, true] {
        let again = dir.path().join(format!("again-{with_suite}"));
        let shards: Vec<String> = (0..3)
            .map(|i| {
                shared
                    .join(format!("shards/{i}-of-3"))
                    .display()
                    .to_string()
            })
            .collect();
        let mut args = vec!["merge", "--out", again.to_str().unwrap()];
        if with_suite {
            args.extend(["--suite", s]);
        }
        args.extend(shards.iter().map(String::as_str));
        let r = bench(&args);
        assert_eq!(r.status.code(), Some(3), "with suite: {with_suite}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(&format!("missing episode {id}")), "{err}");
    }
    // A whole shard lost is named by the suite.
    std::fs::remove_dir_all(shared.join("shards/2-of-3")).unwrap();
    let lost = dir.path().join("lost");
    let (s0, s1) = (shared.join("shards/0-of-3"), shared.join("shards/1-of-3"));
    let r = bench(&[
        "merge",
        "--out",
        lost.to_str().unwrap(),
        "--suite",
        s,
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(3));
    let planned = record_names(&whole).len();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("planned episode(s) missing"), "{err}");
    assert!(record_names(&lost).len() < planned);
}
