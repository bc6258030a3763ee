//! A MAVLink telemetry log (`.tlog`, as `fly` and `sitl` write) as a review timeline: our own
//! reader and decoder ([`alpha3_hil::tlog`], [`alpha3_hil::wire`]) and the runtime's telemetry
//! cache turn the autopilot's messages into truth samples every [`SAMPLE_MS`] of log time, in
//! the autopilot's home-relative frame; the commands we sent, the autopilot's acknowledgements
//! and its status texts become the dialogue. A log has no gate verdicts and no score.

use super::timeline::{Entry, Meta, Timeline};
use alpha3_hil::dialect::{COMP_AUTOPILOT, MavMessage};
use alpha3_hil::statustext::StatusTexts;
use alpha3_hil::telemetry::TelemetryCache;
use alpha3_hil::tlog::TlogEntry;
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

/// The timeline of a log named `name`; frames that do not decode are counted in a note.
pub fn build(entries: &[TlogEntry], name: &str) -> Timeline {
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
    let t0 = entries.first().map_or(0, |e| e.unix_us);
    let mut decoder = Decoder::new();
    let mut cache = TelemetryCache::new();
    let mut texts = StatusTexts::default();
    let mut next_sample_ms = 0;
    let mut rejected = 0usize;
    for e in entries {
        let now_ms = e.unix_us.saturating_sub(t0) / 1000;
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
        "{} frames, {} not decoded",
        entries.len(),
        rejected
    ));
    t
}
