//! The replay backend plays the agent turns of a published α3-Bench episode, in order, then
//! reports that it has none left.
#![allow(clippy::unwrap_used)]

use alpha3::policy::replay::ReplayPolicy;
use alpha3::policy::synthetic::first_context;
use alpha3::policy::{GenerationFailure, Policy};
use alpha3_core::episode::{Episode, Speaker};
use alpha3_test_support::shared_file;
use std::path::PathBuf;
use std::time::Duration;
use tokio::time::Instant;

fn episode_path() -> Option<PathBuf> {
    shared_file("alphabench/eval_runs/openai/gpt-4.1-mini/uav/sc-0000-ep-00.json")
}

#[tokio::test]
async fn a_published_episode_is_replayed_turn_by_turn() {
    let Some(path) = episode_path() else { return };
    let episode: Episode = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let expected: Vec<_> = episode
        .dialogue
        .iter()
        .filter(|t| t.speaker == Speaker::Agent)
        .collect();
    assert!(!expected.is_empty());
    let mut p = ReplayPolicy::from_file("replay-gpt-4.1-mini", &path).unwrap();
    assert_eq!(p.name(), "replay-gpt-4.1-mini");
    assert_eq!(p.remaining(), expected.len());
    let ctx = first_context();
    let deadline = Instant::now() + Duration::from_secs(1);
    for want in &expected {
        let d = p.decide(&ctx, deadline).await;
        let got = d.outcome.as_ref().unwrap();
        assert_eq!(got.intent, want.intent);
        assert_eq!(got.actions, want.actions);
        assert_eq!(d.calls(), 1);
        assert_eq!(d.total_tokens(), 0);
    }
    let d = p.decide(&ctx, deadline).await;
    assert_eq!(d.outcome, Err(GenerationFailure::Exhausted));
    // The first turn is the published one, as the file has it.
    assert_eq!(expected[0].intent, "start_mission");
}

#[tokio::test]
async fn a_directory_source_plays_its_first_episode_in_name_order() {
    let Some(path) = episode_path() else { return };
    let dir = path.parent().unwrap();
    let mut first = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect::<Vec<_>>();
    first.sort();
    let a = ReplayPolicy::from_source("r", dir, 0).unwrap();
    let b = ReplayPolicy::from_file("r", &first[0]).unwrap();
    assert_eq!(a.remaining(), b.remaining());
    assert!(ReplayPolicy::from_source("r", dir, 100_000).is_err());
}

#[test]
fn a_missing_file_is_a_typed_error() {
    let err =
        ReplayPolicy::from_file("r", std::path::Path::new("/nonexistent/ep.json")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/ep.json"), "{err}");
}
