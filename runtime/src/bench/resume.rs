//! Resuming a bench run: which planned episodes already have a complete record in `records/`
//! (skipped, their results read back) and which must run. A record is written as
//! `<id>.jsonl.part` and renamed to `<id>.jsonl` only once complete, so a crash leaves at most
//! a `.part` file; it, and any `.jsonl` that is torn or lacks its termination or score (copied
//! in, or written by an older build), is deleted and the episode flown again from scratch. So
//! is the record of an episode the runtime failed on ([`super::failure`]): the failure may have
//! been passing. One file per episode id: nothing is ever recorded twice.

use super::BenchError;
use super::plan::PlannedEpisode;
use super::results::{EpisodeResult, is_complete};
use alpha3_core::record::parse_record;
use alpha3_core::score::Scorer;
use std::path::{Path, PathBuf};

/// The final record path of an episode.
pub fn record_path(records: &Path, id: &str) -> PathBuf {
    records.join(format!("{id}.jsonl"))
}

/// The path an episode's record is written to until it is complete.
pub fn partial_path(records: &Path, id: &str) -> PathBuf {
    records.join(format!("{id}.jsonl.part"))
}

/// The state of a records directory against a plan.
#[derive(Debug, Default)]
pub struct ResumeState {
    /// Results of episodes already complete, in plan order.
    pub done: Vec<EpisodeResult>,
    /// Indices into the plan of the episodes still to fly.
    pub pending: Vec<usize>,
    /// Records deleted because they were torn or incomplete.
    pub discarded: usize,
    /// Records of failed episodes deleted to fly them again.
    pub retried: usize,
}

/// Sorts the plan into done and pending, deleting partial records.
pub fn prepare(
    records: &Path,
    plan: &[PlannedEpisode],
    scorer: &Scorer,
) -> Result<ResumeState, BenchError> {
    std::fs::create_dir_all(records).map_err(|e| BenchError::io(records, e))?;
    let mut state = ResumeState::default();
    for (i, ep) in plan.iter().enumerate() {
        let part = partial_path(records, &ep.id);
        if part.exists() {
            std::fs::remove_file(&part).map_err(|e| BenchError::io(&part, e))?;
            state.discarded += 1;
        }
        let path = record_path(records, &ep.id);
        match complete_result(&path, scorer) {
            Some(r) if r.id == ep.id && !r.failed() => state.done.push(r),
            found => {
                if path.exists() {
                    std::fs::remove_file(&path).map_err(|e| BenchError::io(&path, e))?;
                    match found {
                        None => state.discarded += 1,
                        Some(r) if r.failed() => state.retried += 1,
                        Some(_) => {}
                    }
                }
                state.pending.push(i);
            }
        }
    }
    Ok(state)
}

/// The result of the complete record at `path`; `None` when missing, unreadable or incomplete.
pub fn complete_result(path: &Path, scorer: &Scorer) -> Option<EpisodeResult> {
    let text = std::fs::read_to_string(path).ok()?;
    let record = parse_record(&text).ok()?;
    if !is_complete(&record) {
        return None;
    }
    EpisodeResult::from_record(scorer, &record)
}
