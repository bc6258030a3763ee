//! The flight record: one JSON object per line, append-only, the truth for scoring and replay.
//!
//! Every line is a [`RecordLine`]: the format version, a sequence number, the time on the
//! runtime's clock and one [`Event`]. A reader skips a torn last line (a crash mid-write) and
//! keeps every earlier line.

use crate::frames::Enu;
use crate::gate::{Severity, VerdictOutcome};
use crate::link::{LinkSample, SliceDecision};
use crate::protocol::{Action, AgentTurn};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of the record format; bump when an event changes shape.
pub const RECORD_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordLine {
    /// Record format version ([`RECORD_VERSION`]).
    pub v: u32,
    /// 0-based, consecutive within one record.
    pub seq: u64,
    /// Milliseconds since the episode started, on the runtime's clock.
    pub t_ms: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// First line: what ran, with which seeds and settings.
    Header {
        episode_id: String,
        scenario: String,
        seed: u64,
        policy: String,
        model: Option<String>,
        operator_version: String,
        metric_version: String,
        alpha3_version: String,
        /// The effective configuration, as JSON.
        config: Value,
    },
    /// One call of the policy: prompt and completion with exact token counts.
    Generation {
        turn: u32,
        attempt: u32,
        prompt: String,
        completion: String,
        prompt_tokens: u64,
        /// Prompt tokens served from the KV cache (not evaluated again).
        cached_tokens: u64,
        completion_tokens: u64,
        latency_ms: f64,
        ttft_ms: Option<f64>,
        /// The parse/validation error that led to a repair, if any.
        error: Option<String>,
        /// How many actions the gate-aware grammar admitted for this call (absent: the
        /// full turn schema).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        admissible: Option<u32>,
    },
    /// An agent turn as parsed and accepted.
    AgentTurn { turn: u32, agent_turn: AgentTurn },
    /// An operator turn.
    OperatorTurn {
        turn: u32,
        intent: String,
        text: String,
        #[serde(default)]
        actions: Vec<Action>,
    },
    /// Operator lines that arrived after the last operator turn (or were held back when the
    /// episode ended): the agent never heard them, the record keeps them all the same.
    OperatorUnheard {
        lines: Vec<String>,
        /// Lines past the record's bound for them, counted but not kept.
        #[serde(default)]
        dropped: u64,
    },
    /// The gate's decision on one action.
    Verdict {
        turn: u32,
        action: u32,
        outcome: VerdictOutcome,
        findings: Vec<FindingRecord>,
    },
    /// The slice policy's decision on one action.
    SliceDecision {
        turn: u32,
        action: u32,
        /// `send_now`, `switch_first:<slice>`, `buffer` or `defer`.
        #[schemars(with = "String")]
        decision: SliceDecision,
    },
    /// What the agent got back for one action.
    Observation {
        turn: u32,
        action: u32,
        tool: String,
        result: Value,
        executed: bool,
    },
    /// A link measurement.
    Link { sample: LinkSample },
    /// A downsampled truth sample from the world (closed loop) or telemetry (onboard).
    Truth {
        position: Enu,
        velocity: Enu,
        battery_pct: f64,
        armed: bool,
        airborne: bool,
    },
    /// A violation observed in the truth (not claimed by the agent).
    Violation { kind: String, detail: String },
    /// The watchdog acted (hold, return, land).
    Watchdog { action: String, reason: String },
    /// The gate paused the handed-over mission: what is left of its route would no longer
    /// pass (`findings`, from the point `next_point` on, plan item `item`), or the autopilot's
    /// mission is no longer the one uploaded. The vehicle was told to hold; the agent decides.
    MissionPaused {
        next_point: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<u16>,
        findings: Vec<FindingRecord>,
        detail: String,
    },
    /// The autopilot said its own plans changed during the episode (a ground station uploaded
    /// another fence or rally points): `changed` names the kinds; `adopted` whether the gate
    /// now decides on the airspace downloaded again (`sources`: where each limit came from),
    /// else `detail` says why not (the gate keeps the airspace it had, and it is asked again).
    Airspace {
        changed: Vec<String>,
        adopted: bool,
        detail: String,
        sources: Value,
    },
    /// The episode ended.
    Termination {
        reason: String,
        success: bool,
        turns: u32,
    },
    /// The episode's α3 score, as computed at the end.
    Score {
        metric_version: String,
        alpha3: f64,
        pillars: Value,
    },
}

/// The termination reason of an episode the runtime could not fly to its end (its worker
/// panicked, or the runtime failed on it): `episode_failed: <why>`. It scores as a generation
/// failure (ALPHA3.md §3): counted in N, never in the valid set.
pub const EPISODE_FAILED: &str = "episode_failed";

/// Longest `why` kept in a failure reason, characters.
const MAX_FAILURE_DETAIL: usize = 300;

/// The termination reason for an episode that failed because of `why` (one line, shortened).
pub fn failure_reason(why: &str) -> String {
    let line: String = why
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_FAILURE_DETAIL)
        .collect();
    format!("{EPISODE_FAILED}: {line}")
}

/// Whether a termination reason says the episode failed (see [`EPISODE_FAILED`]).
pub fn is_failure_reason(reason: &str) -> bool {
    reason
        .strip_prefix(EPISODE_FAILED)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

/// A gate finding as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FindingRecord {
    pub id: String,
    pub severity: Severity,
    pub reason: String,
    pub limit: f64,
    pub measured: f64,
}

impl From<&crate::gate::Finding> for FindingRecord {
    fn from(f: &crate::gate::Finding) -> Self {
        Self {
            id: f.id.to_string(),
            severity: f.severity,
            reason: f.reason.to_string(),
            limit: recordable(f.limit),
            measured: recordable(f.measured),
        }
    }
}

/// JSON has no NaN or infinity: serde_json writes them as `null`, and the line then no longer
/// reads back, losing the whole record. A gate measure over absurd coordinates can be infinite,
/// so it is recorded as the largest finite number of its
/// sign; NaN, a measure past any limit, as the largest.
fn recordable(x: f64) -> f64 {
    if x.is_nan() {
        f64::MAX
    } else {
        x.clamp(f64::MIN, f64::MAX)
    }
}

/// Errors reading a record.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RecordError {
    #[error("line {line}: {message}")]
    Malformed { line: usize, message: String },
    #[error(
        "line {line}: record version {found} is newer than this build reads ({RECORD_VERSION})"
    )]
    Version { line: usize, found: u32 },
    #[error("line {line}: sequence number {found}, expected {expected}")]
    Sequence {
        line: usize,
        found: u64,
        expected: u64,
    },
}

/// The lines of a record, and whether a torn last line was dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRecord {
    pub lines: Vec<RecordLine>,
    pub torn_tail: bool,
}

/// Parses a whole record. A last line without its newline that does not parse is a torn write
/// and is dropped (reported in `torn_tail`); any other bad line is an error.
pub fn parse_record(text: &str) -> Result<ParsedRecord, RecordError> {
    let mut lines = Vec::new();
    let mut torn_tail = false;
    let ends_with_newline = text.ends_with('\n');
    let raw: Vec<&str> = text.split_terminator('\n').collect();
    for (i, line) in raw.iter().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Result<RecordLine, _> = serde_json::from_str(line);
        match parsed {
            Ok(l) => {
                if l.v > RECORD_VERSION {
                    return Err(RecordError::Version {
                        line: number,
                        found: l.v,
                    });
                }
                let expected = lines.len() as u64;
                if l.seq != expected {
                    return Err(RecordError::Sequence {
                        line: number,
                        found: l.seq,
                        expected,
                    });
                }
                lines.push(l);
            }
            Err(_) if i + 1 == raw.len() && !ends_with_newline => torn_tail = true,
            Err(e) => {
                return Err(RecordError::Malformed {
                    line: number,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok(ParsedRecord { lines, torn_tail })
}

/// One line of JSON Lines output for `line`, newline included.
pub fn to_json_line(line: &RecordLine) -> String {
    let mut s = serde_json::to_string(line).unwrap_or_else(|e| {
        // Serialising our own types cannot fail (no maps with non-string keys); keep the
        // record parseable if it ever does.
        format!(r#"{{"v":{RECORD_VERSION},"seq":{},"t_ms":{},"event":"violation","kind":"record","detail":{:?}}}"#, line.seq, line.t_ms, e.to_string())
    });
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seq: u64, event: Event) -> RecordLine {
        RecordLine {
            v: RECORD_VERSION,
            seq,
            t_ms: seq * 100,
            event,
        }
    }

    fn sample() -> Vec<RecordLine> {
        vec![
            line(
                0,
                Event::Watchdog {
                    action: "hold".into(),
                    reason: "deadline".into(),
                },
            ),
            line(
                1,
                Event::Violation {
                    kind: "altitude".into(),
                    detail: "z 151 > 150 m".into(),
                },
            ),
            line(
                2,
                Event::Termination {
                    reason: "mission_complete".into(),
                    success: true,
                    turns: 10,
                },
            ),
        ]
    }

    #[test]
    fn a_failure_reason_is_one_short_line_and_is_recognised() {
        let r = failure_reason("worker panicked:\n  capacity overflow");
        assert_eq!(r, "episode_failed: worker panicked: capacity overflow");
        assert!(is_failure_reason(&r) && is_failure_reason(EPISODE_FAILED));
        assert!(!is_failure_reason("episode_failedness") && !is_failure_reason("mission_complete"));
        assert!(failure_reason(&"x".repeat(10_000)).len() < 400);
    }

    #[test]
    fn lines_round_trip() {
        let text: String = sample().iter().map(to_json_line).collect();
        let parsed = parse_record(&text).unwrap();
        assert_eq!(parsed.lines, sample());
        assert!(!parsed.torn_tail);
        assert!(
            text.lines()
                .next()
                .unwrap()
                .starts_with(r#"{"v":1,"seq":0,"t_ms":0,"event":"watchdog""#)
        );
    }

    #[test]
    fn typed_vocabularies_write_the_strings_records_always_had() {
        let lines = [
            line(
                0,
                Event::Verdict {
                    turn: 1,
                    action: 0,
                    outcome: VerdictOutcome::Denied,
                    findings: vec![FindingRecord {
                        id: "gate.no_fly.inside".into(),
                        severity: Severity::Deny,
                        reason: "r".into(),
                        limit: 0.0,
                        measured: 1.5,
                    }],
                },
            ),
            line(
                1,
                Event::SliceDecision {
                    turn: 1,
                    action: 0,
                    decision: SliceDecision::SwitchFirst(crate::link::Slice::Embb),
                },
            ),
        ];
        let text: String = lines.iter().map(to_json_line).collect();
        assert_eq!(
            text,
            concat!(
                r#"{"v":1,"seq":0,"t_ms":0,"event":"verdict","turn":1,"action":0,"outcome":"denied","findings":[{"id":"gate.no_fly.inside","severity":"deny","reason":"r","limit":0.0,"measured":1.5}]}"#,
                "\n",
                r#"{"v":1,"seq":1,"t_ms":100,"event":"slice_decision","turn":1,"action":0,"decision":"switch_first:eMBB"}"#,
                "\n",
            )
        );
        assert_eq!(parse_record(&text).unwrap().lines, lines.to_vec());
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_earlier_lines_kept() {
        let mut text: String = sample().iter().map(to_json_line).collect();
        let cut = text.len() - 20;
        text.truncate(cut);
        let parsed = parse_record(&text).unwrap();
        assert_eq!(parsed.lines, sample()[..2].to_vec());
        assert!(parsed.torn_tail);
    }

    #[test]
    fn a_bad_middle_line_is_an_error_with_its_number() {
        let mut lines: Vec<String> = sample().iter().map(to_json_line).collect();
        lines[1] = "{not json\n".into();
        let err = parse_record(&lines.concat()).unwrap_err();
        assert!(
            matches!(err, RecordError::Malformed { line: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn gaps_and_future_versions_are_refused() {
        let mut s = sample();
        s.remove(1);
        let text: String = s.iter().map(to_json_line).collect();
        assert!(matches!(
            parse_record(&text),
            Err(RecordError::Sequence { line: 2, .. })
        ));
        let mut l = sample()[0].clone();
        l.v = RECORD_VERSION + 1;
        assert!(matches!(
            parse_record(&to_json_line(&l)),
            Err(RecordError::Version { .. })
        ));
    }
}
