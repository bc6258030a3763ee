//! The repair loop on canned completions: garbage, empty and unknown-tool answers are quoted
//! back to the model, at most three attempts are made, every one is counted, and a decision
//! that never gets a valid turn falls back to holding.
#![allow(clippy::unwrap_used)]

use alpha3::policy::canned::CannedGenerator;
use alpha3::policy::synthetic::first_context;
use alpha3::policy::{
    Decision, GenerateError, GenerationFailure, LlmPolicy, Policy, safe_fallback,
};
use alpha3_core::protocol::{Role, catalogue};
use std::time::Duration;
use tokio::time::Instant;

const GOOD: &str =
    r#"{"intent":"read_state","actions":[{"type":"mcp","name":"read_telemetry","args":{}}]}"#;
const UNKNOWN: &str =
    r#"{"intent":"x","actions":[{"type":"mcp","name":"disable_geofence","args":{}}]}"#;

fn policy(g: CannedGenerator) -> LlmPolicy<CannedGenerator> {
    LlmPolicy::with_attempts("canned", 3, g, catalogue()).unwrap()
}

async fn decide(p: &mut LlmPolicy<CannedGenerator>) -> Decision {
    let ctx = first_context();
    p.decide(&ctx, Instant::now() + Duration::from_secs(30))
        .await
}

#[tokio::test]
async fn a_valid_first_answer_takes_one_attempt() {
    let mut p = policy(CannedGenerator::new([format!("```json\n{GOOD}\n```")]));
    let d = decide(&mut p).await;
    assert_eq!(d.outcome.as_ref().unwrap().intent, "read_state");
    assert_eq!(d.calls(), 1);
    assert_eq!(d.attempts[0].error, None);
    assert!(d.attempts[0].prompt_tokens > 0 && d.attempts[0].completion_tokens > 0);
}

#[tokio::test]
async fn garbage_then_unknown_tool_then_valid_is_repaired_on_the_third_attempt() {
    let mut p = policy(CannedGenerator::new([
        "I think we should fly north.",
        UNKNOWN,
        GOOD,
    ]));
    let d = decide(&mut p).await;
    assert!(d.outcome.is_ok(), "{:?}", d.outcome);
    assert_eq!(d.calls(), 3);
    let errors: Vec<_> = d.attempts.iter().map(|a| a.error.clone()).collect();
    assert!(errors[0].as_deref().unwrap().contains("no JSON object"));
    assert!(errors[1].as_deref().unwrap().contains("disable_geofence"));
    assert_eq!(errors[2], None);
    // Each repair prompt carries the bad answer and quotes the error.
    let calls = &p.generator().calls;
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[1].len(), calls[0].len() + 2);
    assert_eq!(calls[1][calls[1].len() - 2].role, Role::Assistant);
    assert_eq!(
        calls[1][calls[1].len() - 2].content,
        "I think we should fly north."
    );
    let repair = &calls[2].last().unwrap().content;
    assert!(
        repair.starts_with("error: ") && repair.contains("disable_geofence"),
        "{repair}"
    );
    // The events of the flight record count every attempt.
    let events = d.events(1);
    assert_eq!(events.len(), 3);
}

#[tokio::test]
async fn three_invalid_answers_are_a_generation_failure_with_the_safe_fallback() {
    let mut p = policy(CannedGenerator::new([
        "",
        "{\"intent\": \"x\"",
        UNKNOWN,
        GOOD,
    ]));
    let d = decide(&mut p).await;
    assert_eq!(d.calls(), 3, "never more than three attempts");
    let Err(GenerationFailure::Invalid {
        attempts,
        last_error,
    }) = &d.outcome
    else {
        panic!("{:?}", d.outcome)
    };
    assert_eq!(*attempts, 3);
    assert!(last_error.contains("disable_geofence"));
    assert!(d.attempts[0].error.as_deref().unwrap().contains("empty"));
    assert!(
        d.attempts[1]
            .error
            .as_deref()
            .unwrap()
            .contains("malformed")
    );
    assert_eq!(d.turn_or_fallback(), safe_fallback());
    assert_eq!(safe_fallback().actions[0].name(), "hold");
}

#[tokio::test]
async fn a_transient_backend_error_is_retried_as_an_attempt() {
    let g = CannedGenerator::from_replies([
        Err(GenerateError::Transient("HTTP 503".into())),
        Ok(GOOD.to_owned()),
    ]);
    let mut p = policy(g);
    let d = decide(&mut p).await;
    assert!(d.outcome.is_ok(), "{:?}", d.outcome);
    assert_eq!(d.calls(), 2);
    assert_eq!(d.attempts[0].error.as_deref(), Some("HTTP 503"));
}

#[tokio::test]
async fn a_fatal_backend_error_stops_at_once() {
    let g = CannedGenerator::default().then_error(GenerateError::Fatal("HTTP 401".into()));
    let mut p = policy(g);
    let d = decide(&mut p).await;
    assert_eq!(d.calls(), 1);
    assert_eq!(
        d.outcome,
        Err(GenerationFailure::Backend("HTTP 401".into()))
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_backend_misses_the_deadline_and_the_attempt_is_counted() {
    let g = CannedGenerator::new([GOOD]).with_delay(Duration::from_secs(5));
    let mut p = policy(g);
    let ctx = first_context();
    let started = Instant::now();
    let d = p.decide(&ctx, started + Duration::from_secs(2)).await;
    assert_eq!(d.outcome, Err(GenerationFailure::Deadline));
    assert_eq!(d.calls(), 1);
    assert_eq!(started.elapsed(), Duration::from_secs(2));
    assert_eq!(d.turn_or_fallback(), safe_fallback());
}
