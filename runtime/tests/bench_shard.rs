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
