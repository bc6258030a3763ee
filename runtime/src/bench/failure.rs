//! An episode the runtime could not fly to its end — its worker panicked, or the runtime failed
//! on it (a policy that would not build, an I/O error) — still counts. It is recorded as a
//! failed episode (ALPHA3.md §3: a failure is kept as a stub, never dropped), so it stays in N,
//! lowers its policy's reliability and shows its reason in the report, and the bench goes on
//! with the other episodes. The record keeps every line the episode wrote before it failed,
//! then a termination `episode_failed: <why>` and the score. A rerun flies it again.

use super::plan::PlannedEpisode;
use super::results::EpisodeResult;
use super::resume::{partial_path, record_path};
use super::suite::Suite;
use crate::record_header::{EpisodeIdentity, header_event};
use crate::recorder::{Recorder, RecorderError, read_record};
use alpha3_core::episode::WorldState;
use alpha3_core::record::{Event, ParsedRecord, RECORD_VERSION, RecordLine, failure_reason};
use alpha3_core::score::MetricVersion;
use alpha3_core::score::{EpisodeEval, Scorer, Source};
use std::path::Path;

/// Debug builds only, for the tests that drive the binary: an episode whose id contains the
/// value of `ALPHA3_TEST_PANIC_EPISODE` panics as it starts, as a bug in its flight would.
pub fn injected_panic(id: &str) {
    #[cfg(debug_assertions)]
    if let Ok(v) = std::env::var("ALPHA3_TEST_PANIC_EPISODE")
        && !v.is_empty()
        && id.contains(&v)
    {
        panic!("injected by ALPHA3_TEST_PANIC_EPISODE");
    }
    #[cfg(not(debug_assertions))]
    let _ = id;
}

/// What a panic carried, as text.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Records `ep` as failed because of `why` and returns its result. The record is written to
/// `records/<id>.jsonl` when the disk allows; the result stands either way.
pub fn record_failure(
    suite: &Suite,
    ep: &PlannedEpisode,
    records: &Path,
    scorer: &Scorer,
    why: &str,
) -> EpisodeResult {
    let reason = failure_reason(why);
    write(suite, ep, records, scorer, &reason).unwrap_or_else(|e| {
        tracing::warn!("episode {}: the failure could not be recorded: {e}", ep.id);
        let lines = vec![
            header(suite, ep, scorer.options().metric),
            termination(&reason, 0),
        ];
        EpisodeResult::from_record(scorer, &parsed(lines)).unwrap_or_else(|| EpisodeResult {
            id: ep.id.clone(),
            policy: suite.policies[ep.policy].name.clone(),
            scenario: suite.scenarios[ep.scenario].key.clone(),
            seed: ep.seed,
            reason: Some(reason.clone()),
            eval: EpisodeEval::unreadable(ep.id.clone(), Source::ClosedLoop, reason.clone()),
        })
    })
}

/// Appends the failure to what the episode recorded (or starts a record with just its header),
/// scores it and moves it into place.
fn write(
    suite: &Suite,
    ep: &PlannedEpisode,
    records: &Path,
    scorer: &Scorer,
    reason: &str,
) -> Result<EpisodeResult, RecorderError> {
    let part = partial_path(records, &ep.id);
    let started = part.exists() && read_record(&part).is_ok_and(|r| !r.lines.is_empty());
    let (mut recorder, turns, t_ms) = if started {
        let (rec, parsed) = Recorder::resume(&part)?;
        let turns = parsed
            .lines
            .iter()
            .filter(|l| matches!(l.event, Event::AgentTurn { .. }))
            .count();
        let t_ms = parsed.lines.last().map_or(0, |l| l.t_ms);
        (rec, turns, t_ms)
    } else {
        if part.exists() {
            std::fs::remove_file(&part).map_err(|source| RecorderError::Io {
                path: part.clone(),
                source,
            })?;
        }
        let mut rec = Recorder::create(&part)?;
        rec.append(0, header(suite, ep, scorer.options().metric))?;
        (rec, 0, 0)
    };
    let turns = u32::try_from(turns).unwrap_or(u32::MAX);
    recorder.append(t_ms, termination(reason, turns))?;
    recorder.flush()?;
    let record = read_record(&part)?;
    let Some(result) = EpisodeResult::from_record(scorer, &record) else {
        return Err(RecorderError::Io {
            path: part,
            source: std::io::Error::other("the record has no header"),
        });
    };
    recorder.append(t_ms, result.score_event())?;
    recorder.flush()?;
    drop(recorder);
    let done = record_path(records, &ep.id);
    std::fs::rename(&part, &done).map_err(|source| RecorderError::Io { path: done, source })?;
    Ok(result)
}

/// The header of an episode that failed before it wrote one: what ran, without the initial
/// state (the world may be what failed).
fn header(suite: &Suite, ep: &PlannedEpisode, metric: MetricVersion) -> Event {
    let identity = EpisodeIdentity {
        episode_id: &ep.id,
        scenario: &suite.scenarios[ep.scenario].key,
        seed: ep.seed,
        metric,
    };
    header_event(
        &identity,
        &suite.policies[ep.policy].config,
        &WorldState::default(),
    )
}

fn termination(reason: &str, turns: u32) -> Event {
    Event::Termination {
        reason: reason.to_string(),
        success: false,
        turns,
    }
}

fn parsed(events: Vec<Event>) -> ParsedRecord {
    let lines = events
        .into_iter()
        .enumerate()
        .map(|(i, event)| RecordLine {
            v: RECORD_VERSION,
            seq: i as u64,
            t_ms: 0,
            event,
        })
        .collect();
    ParsedRecord {
        lines,
        torn_tail: false,
    }
}
