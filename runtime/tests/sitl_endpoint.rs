//! `alpha3 sitl` end to end: the scripted agent flies a suite through MAVLink over UDP against
//! the built-in world as a PX4-like vehicle (the sim-bridge endpoint), with network, operator
//! and the mission's truth from the world; results land under `--out` as for `bench`, with a
//! telemetry log per episode; a rerun skips what is recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sitl_support;

use alpha3_core::record::Event;
use sitl_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_agent_flies_a_suite_against_a_px4_like_vehicle_over_udp() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let suite = write_suite(dir.path(), &config);
    let out = dir.path().join("out");
    let vehicle = vehicle(port, 1).await;
    let run = |out: std::path::PathBuf, suite: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || {
            alpha3()
                .args(["sitl", "--suite"])
                .arg(&suite)
                .args(["--connect", &format!("udpin:127.0.0.1:{port}"), "--out"])
                .arg(&out)
                .args(["--ready-timeout-s", "20"])
                .output()
                .unwrap()
        })
    };
    let first = run(out.clone(), suite.clone()).await.unwrap();
    let stderr = String::from_utf8_lossy(&first.stderr);
    eprintln!("{stderr}");
    assert!(first.status.success(), "{stderr}");
    let status = vehicle.status();
    vehicle.shutdown().await.unwrap();

    let id = "scripted__sitl-short__s1";
    let record = out.join("records").join(format!("{id}.jsonl"));
    let events = events(&record);
    assert!(matches!(events.first(), Some(Event::Header { .. })));
    let termination = events
        .iter()
        .find_map(|e| match e {
            Event::Termination {
                reason, success, ..
            } => Some((reason.clone(), *success)),
            _ => None,
        })
        .expect("the record ends");
    assert_eq!(
        termination,
        ("mission_complete".to_string(), true),
        "{stderr}"
    );
    assert!(matches!(events.last(), Some(Event::Score { .. })));
    let verdicts = events
        .iter()
        .filter(|e| matches!(e, Event::Verdict { outcome, .. } if outcome.as_str() != "denied"))
        .count();
    assert!(
        verdicts >= 1,
        "commands went through the gate to the vehicle"
    );
    assert!(
        !events.iter().any(|e| matches!(e, Event::Violation { .. })),
        "no violation in the truth"
    );
    assert!(status.armed, "the vehicle flew: {status:?}");
    for f in [
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.md",
        "report.html",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    // The telemetry log: both readers agree.
    let tlog = out.join("tlogs").join(format!("{id}.tlog"));
    let ours = our_read_tlog(&tlog);
    let py = pymavlink_read_tlog(&tlog);
    assert_eq!(py["bad"], 0, "{py}");
    let theirs: std::collections::BTreeMap<String, u64> =
        serde_json::from_value(py["counts"].clone()).unwrap();
    assert_eq!(theirs, ours);
    assert!(
        ours.get("COMMAND_INT").copied().unwrap_or(0)
            + ours.get("COMMAND_LONG").copied().unwrap_or(0)
            > 0,
        "{ours:?}"
    );
    assert!(ours["GLOBAL_POSITION_INT"] > 100, "{ours:?}");

    // A rerun finds the episode recorded and flies nothing (no vehicle is even there).
    let before = std::fs::read_to_string(&record).unwrap();
    let again = run(out.clone(), suite).await.unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(stderr.contains("1 already recorded"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), before);
}

/// An episode that cannot be flown (no autopilot answers) is still an episode of the run:
/// recorded as failed with its reason, counted in the report, and the exit is non-zero.
#[test]
fn an_episode_without_an_autopilot_is_recorded_as_failed() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_udp_port();
    let config = write_config(dir.path(), port, "");
    let suite = write_suite(dir.path(), &config);
    let out = dir.path().join("out");
    let run = alpha3()
        .args(["sitl", "--suite"])
        .arg(&suite)
        .args(["--connect", &format!("udpin:127.0.0.1:{port}"), "--out"])
        .arg(&out)
        .args(["--ready-timeout-s", "2", "--no-builtin"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{stderr}");
    let record = out.join("records").join("scripted__sitl-short__s1.jsonl");
    let events = events(&record);
    let reason = events
        .iter()
        .find_map(|e| match e {
            Event::Termination { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .expect("a failed episode still ends its record");
    assert!(reason.starts_with("episode_failed"), "{reason}");
    let board = std::fs::read_to_string(out.join("leaderboard.json")).unwrap();
    assert!(
        board.contains("scripted"),
        "the failure is in the leaderboard: {board}"
    );
}
