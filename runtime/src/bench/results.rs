//! One finished episode as the bench reports it, made from its flight record alone — the same
//! way for an episode just flown, one found complete on a rerun and one read from a shard — so a
//! resumed or merged run reports exactly what an uninterrupted one does.

use alpha3_core::record::{Event, ParsedRecord};
use alpha3_core::score::iq::DEFAULT_T_STAR;
use alpha3_core::score::{EpisodeEval, NAMES, Scorer};
use serde_json::{Map, Value};

/// A scored episode with what the report shows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeResult {
    /// The record header's `episode_id`.
    pub id: String,
    /// `Header.policy`: the leaderboard row.
    pub policy: String,
    pub scenario: String,
    pub seed: u64,
    /// `Termination.reason`; `None` for a record that never ended.
    pub reason: Option<String>,
    /// Scored with `id` as its id.
    pub eval: EpisodeEval,
}

/// What the record's header says; `None` when the first line is not a header.
pub fn header_of(record: &ParsedRecord) -> Option<(String, String, String, u64)> {
    match &record.lines.first()?.event {
        Event::Header {
            episode_id,
            scenario,
            seed,
            policy,
            ..
        } => Some((episode_id.clone(), policy.clone(), scenario.clone(), *seed)),
        _ => None,
    }
}

/// Whether a record is complete: it ended (termination) and was scored (score line).
pub fn is_complete(record: &ParsedRecord) -> bool {
    let has = |f: fn(&Event) -> bool| record.lines.iter().any(|l| f(&l.event));
    !record.torn_tail
        && header_of(record).is_some()
        && has(|e| matches!(e, Event::Termination { .. }))
        && has(|e| matches!(e, Event::Score { .. }))
}

impl EpisodeResult {
    /// Scores `record`; `None` when it has no header (not a bench record).
    pub fn from_record(scorer: &Scorer, record: &ParsedRecord) -> Option<Self> {
        let (id, policy, scenario, seed) = header_of(record)?;
        let mut eval = scorer.evaluate_record(record);
        eval.id.clone_from(&id);
        let reason = record.lines.iter().rev().find_map(|l| match &l.event {
            Event::Termination { reason, .. } => Some(reason.clone()),
            _ => None,
        });
        Some(Self {
            id,
            policy,
            scenario,
            seed,
            reason,
            eval,
        })
    }

    /// Whether the runtime failed on this episode ([`alpha3_core::record::EPISODE_FAILED`]).
    pub fn failed(&self) -> bool {
        self.reason
            .as_deref()
            .is_some_and(alpha3_core::record::is_failure_reason)
    }

    /// The record's closing [`Event::Score`]: α3(e) and its pillars with IQ's length term taken
    /// at the default T* (the leaderboard recomputes it with the run's own T*).
    pub fn score_event(&self) -> Event {
        let mut pillars = Map::new();
        let alpha3 = if self.eval.is_valid() {
            let p = self.eval.pillars(DEFAULT_T_STAR);
            for (name, v) in NAMES.iter().zip(p.values()) {
                pillars.insert((*name).to_string(), Value::from(v));
            }
            p.alpha3()
        } else {
            0.0
        };
        pillars.insert("t_star".into(), Value::from(DEFAULT_T_STAR));
        pillars.insert(
            "validity".into(),
            serde_json::to_value(&self.eval.validity).unwrap_or(Value::Null),
        );
        Event::Score {
            metric_version: self.eval.metric.as_str().to_string(),
            alpha3,
            pillars: Value::Object(pillars),
        }
    }
}
