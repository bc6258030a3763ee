//! A MAVLink telemetry log (`.tlog`, as `fly` and `sitl` write) as a review timeline: our own
//! reader and decoder ([`alpha3_hil::tlog`], [`alpha3_hil::wire`]) and the runtime's telemetry
//! cache turn the autopilot's messages into truth samples every [`SAMPLE_MS`] of log time, in
//! the autopilot's home-relative frame; the commands we sent, the autopilot's acknowledgements
//! and its status texts become the dialogue. A log has no gate verdicts and no score.
//!
//! The reader has already skipped damage and frames with out-of-line timestamps; what it skipped
//! is said in the page's note. Log time runs on across a step of the clock it kept (the time
//! before the step, then on from there), so a step neither stalls the samples nor runs them
//! backwards.

use super::timeline::{Entry, Meta, Timeline};
use alpha3_hil::dialect::{COMP_AUTOPILOT, MavMessage};
use alpha3_hil::statustext::StatusTexts;
use alpha3_hil::telemetry::TelemetryCache;
use alpha3_hil::tlog::{TlogRead, TlogSkips, stamps_in_line};
use alpha3_hil::wire::Decoder;

/// Spacing of the truth samples taken from the telemetry, ms (the records' own interval).
pub const SAMPLE_MS: u64 = 500;

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn row(t_s: f64, kind: &'static str, text: String, tag: Option<String>) -> Entry {
    Entry {
        t_s,
        kind,
        turn: None,
        action: None,
        text,
        tag,
        findings: Vec::new(),
        tokens: None,
        latency_ms: None,
    }
}

/// Milliseconds of log time for each stamp: elapsed since the first, carried on across steps
/// of the clock (a stamp out of line with the latest one starts a new stretch from where the
/// last one ended).
fn log_times_ms(stamps: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut out = Vec::new();
    // (stamp where the current stretch started, log time there, latest stamp seen in it)
    let mut stretch: Option<(u64, u64, u64)> = None;
    for s in stamps {
        let (base, at, latest) = match stretch {
            Some((base, at, latest)) if stamps_in_line(latest, s) => (base, at, latest.max(s)),
            Some((base, at, latest)) => (s, at + latest.saturating_sub(base), s),
            None => (s, 0, s),
        };
        stretch = Some((base, at, latest));
        out.push((at + s.saturating_sub(base)) / 1000);
    }
    out
}

/// What the reader skipped, as the note says it (empty when nothing was).
fn skipped_note(s: &TlogSkips) -> String {
    let mut parts = Vec::new();
    if s.bytes > 0 {
        parts.push(format!(
            "resynchronised past {} damaged byte(s) ({} frame(s))",
            s.bytes, s.frames
        ));
    }
    if s.bad_stamps > 0 {
        parts.push(format!(
            "{} frame(s) with an out-of-line timestamp dropped",
            s.bad_stamps
        ));
    }
    if s.clock_steps > 0 {
        parts.push(format!("{} clock step(s) bridged", s.clock_steps));
    }
    if s.torn_tail > 0 {
        parts.push(format!("a torn last frame ({} bytes) cut", s.torn_tail));
    }
    parts.iter().map(|p| format!("; {p}")).collect()
}

/// The timeline of a log named `name`; frames that do not decode, and what the reader skipped,
/// are counted in a note.
pub fn build(log: &TlogRead, name: &str) -> Timeline {
    let entries = &log.entries;
    let mut t = super::timeline::build(
        &alpha3_core::record::ParsedRecord {
            lines: Vec::new(),
            torn_tail: false,
        },
        None,
    );
    t.meta = Meta {
        episode_id: name.to_string(),
        scenario: "telemetry log".into(),
        policy: "tlog".into(),
        frame_source: "tlog (metres from the autopilot's home)".into(),
        ..Meta::default()
    };
    let times = log_times_ms(entries.iter().map(|e| e.unix_us));
    let mut decoder = Decoder::new();
    let mut cache = TelemetryCache::new();
    let mut texts = StatusTexts::default();
    let mut next_sample_ms = 0;
    let mut rejected = 0usize;
    for (e, &now_ms) in entries.iter().zip(&times) {
        let t_s = now_ms as f64 / 1000.0;
        decoder.push(&e.frame);
        while let Some(decoded) = decoder.next(0) {
            let Ok(inbound) = decoded else {
                rejected += 1;
                continue;
            };
            let from_autopilot = inbound.header.component_id == COMP_AUTOPILOT;
            match &inbound.message {
                MavMessage::COMMAND_LONG(c) if !from_autopilot => t.dialogue.push(row(
                    t_s,
                    "command",
                    format!(
                        "{:?} [{}, {}, {}, {}, {}, {}, {}]",
                        c.command,
                        c.param1,
                        c.param2,
                        c.param3,
                        c.param4,
                        c.param5,
                        c.param6,
                        c.param7
                    ),
                    Some("COMMAND_LONG".into()),
                )),
                MavMessage::COMMAND_INT(c) if !from_autopilot => t.dialogue.push(row(
                    t_s,
                    "command",
                    format!(
                        "{:?} [{}, {}, {}, {}, x {}, y {}, z {}]",
                        c.command, c.param1, c.param2, c.param3, c.param4, c.x, c.y, c.z
                    ),
                    Some("COMMAND_INT".into()),
                )),
                MavMessage::COMMAND_ACK(a) if from_autopilot => t.dialogue.push(row(
                    t_s,
                    "ack",
                    format!("{:?}", a.command),
                    Some(format!("{:?}", a.result)),
                )),
                MavMessage::STATUSTEXT(s) if from_autopilot => {
                    if let Some(done) = texts.on_statustext(now_ms, s) {
                        t.dialogue.push(row(
                            t_s,
                            "statustext",
                            done.text,
                            Some(format!("{:?}", done.severity)),
                        ));
                    }
                }
                m if from_autopilot => {
                    cache.fold(now_ms, m, None);
                }
                _ => {}
            }
        }
        let seen = cache.seen();
        if seen.home && seen.position && now_ms >= next_sample_ms {
            next_sample_ms = now_ms + SAMPLE_MS;
            let s = cache.snapshot();
            let tr = &mut t.truth;
            tr.t_s.push(t_s);
            tr.x.push(r2(s.position.x));
            tr.y.push(r2(s.position.y));
            tr.z.push(r2(s.position.z));
            tr.vx.push(r2(s.velocity.x));
            tr.vy.push(r2(s.velocity.y));
            tr.vz.push(r2(s.velocity.z));
            tr.speed_mps.push(r2(s.ground_speed_mps()));
            tr.battery_pct.push(r2(s.battery.remaining_pct));
            tr.armed.push(s.armed);
            tr.airborne.push(s.is_airborne());
            tr.flyer.push(super::timeline::FLYER_AGENT);
        }
        t.meta.end_s = t_s;
    }
    t.frame.home = Some([0.0, 0.0, 0.0]);
    t.breach_note = Some("a telemetry log has no scenario".into());
    t.pillars_note = Some("a telemetry log is not scored; review its flight record".into());
    t.meta.termination = Some(format!(
        "{} frames, {} not decoded, {} truth samples{}",
        entries.len(),
        rejected,
        t.truth.t_s.len(),
        skipped_note(&log.skipped)
    ));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_time_runs_on_across_a_clock_step() {
        let t0 = 1_700_000_000_000_000;
        let back = t0 - 3_600_000_000;
        let stamps = [t0, t0 + 500_000, back, back + 500_000, back + 400_000];
        assert_eq!(log_times_ms(stamps.into_iter()), [0, 500, 500, 1000, 900]);
    }
}
