//! A bench run killed with SIGKILL part-way and run again into the same directory gives the
//! same leaderboard as an uninterrupted run: complete records are kept, the one in flight (and
//! a record torn by hand, as after a crash mid-write) is flown again from scratch, and no
//! episode is recorded twice.

#![allow(clippy::unwrap_used)]

mod bench_support;

use bench_support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn a_killed_run_resumes_to_the_same_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    // Enough episodes that the kill lands mid-run: 10 scenarios × 2 seeds, one worker.
    let suite = write_suite(dir.path(), 10, &[1, 2], 1);
    let planned = 20;

    let whole = dir.path().join("whole");
    run_suite(&suite, &whole, &[]);
    assert_eq!(record_names(&whole).len(), planned);

    let resumed = dir.path().join("resumed");
    let mut child = alpha3()
        .args(["bench", "--quiet", "--suite"])
        .arg(&suite)
        .arg("--out")
        .arg(&resumed)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let n = std::fs::read_dir(resumed.join("records"))
            .map(|d| d.flatten().count())
            .unwrap_or(0);
        if n >= 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no records appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let survived = record_names(&resumed);
    assert!(
        !survived.is_empty() && survived.len() < planned,
        "killed mid-run: {} of {planned} records",
        survived.len()
    );
    // Tear the last complete record as a crash mid-write would: it must be flown again.
    let torn = resumed.join("records").join(&survived[0]);
    let text = read(&torn);
    std::fs::write(&torn, &text[..text.len() * 2 / 3]).unwrap();

    let o = run_suite(&suite, &resumed, &[]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("already recorded"), "{log}");
    let names = record_names(&resumed);
    assert_eq!(names, record_names(&whole), "the same episodes, each once");
    let leftovers: Vec<_> = std::fs::read_dir(resumed.join("records"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".jsonl"))
        .collect();
    assert!(leftovers.is_empty(), "partial files left: {leftovers:?}");
    for n in &names {
        let p = resumed.join("records").join(n);
        assert_eq!(event_count(&p, "header"), 1, "{n}");
        assert_eq!(event_count(&p, "termination"), 1, "{n}");
        assert_eq!(event_count(&p, "score"), 1, "{n}");
    }
    // The re-flown torn episode is identical to its uninterrupted twin (the world is seeded).
    assert_eq!(read(&torn), read(&whole.join("records").join(&survived[0])));
    for f in ["leaderboard.csv", "leaderboard.json", "leaderboard.md"] {
        assert_eq!(read(&resumed.join(f)), read(&whole.join(f)), "{f}");
    }

    // A third run has nothing left to fly.
    let o = run_suite(&suite, &resumed, &[]);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(
        log.contains(&format!("0 flown, {planned} already recorded")),
        "{log}"
    );
    assert_eq!(
        read(&resumed.join("leaderboard.csv")),
        read(&whole.join("leaderboard.csv"))
    );
}
