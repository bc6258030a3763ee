//! `alpha3 review` on a `.tlog`: past a damaged frame or stray bytes it reads on (exit 0) and the
//! page says what was skipped; a frame whose timestamp jumps costs no truth samples; an empty
//! log is refused (exit 1) with a message that says so.

#![allow(clippy::unwrap_used)]

use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::tlog::TlogWriter;
use alpha3_hil::wire::Encoder;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const T0: u64 = 1_700_000_000_000_000;
/// Position reports, 100 ms apart (20 s of flight).
const POSITIONS: u32 = 200;

/// A log from the autopilot: its home, then a position every 100 ms. Returns the bytes and
/// each entry's offset.
fn telemetry() -> (Vec<u8>, Vec<usize>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tlog");
    let mut w = TlogWriter::create(&path).unwrap();
    let mut enc = Encoder::new(1, None);
    let mut offsets = Vec::new();
    let mut at = 0;
    let mut put = |w: &mut TlogWriter, t: u64, msg: &MavMessage| {
        let mut frame = Vec::new();
        enc.encode(1, msg, 0, &mut frame);
        w.write_frame(t, &frame).unwrap();
        offsets.push(at);
        at += 8 + frame.len();
    };
    let home = MavMessage::HOME_POSITION(mav::HOME_POSITION_DATA {
        latitude: 473_977_000,
        longitude: 85_456_000,
        altitude: 500_000,
        ..mav::HOME_POSITION_DATA::default()
    });
    put(&mut w, T0, &home);
    for i in 1..=POSITIONS {
        let msg = MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
            time_boot_ms: i * 100,
            lat: 473_977_000 + i as i32 * 10,
            lon: 85_456_000,
            alt: 530_000,
            relative_alt: 30_000,
            ..mav::GLOBAL_POSITION_INT_DATA::default()
        });
        put(&mut w, T0 + u64::from(i) * 100_000, &msg);
    }
    drop(w);
    (std::fs::read(&path).unwrap(), offsets)
}

/// `alpha3 review LOG` on `bytes`: exit code, stderr, and the page's data when it wrote one.
fn review(bytes: &[u8]) -> (Option<i32>, String, Option<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flight.tlog");
    std::fs::write(&log, bytes).unwrap();
    let out = dir.path().join("pages");
    let o = Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .arg("review")
        .arg(&log)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code(), err, page_data(&out.join("flight.html")))
}

/// The JSON the page draws from.
fn page_data(page: &Path) -> Option<Value> {
    let html = std::fs::read_to_string(page).ok()?;
    let start = html.find(r#"id="a3-data">"#)? + r#"id="a3-data">"#.len();
    let end = start + html[start..].find("</script>")?;
    serde_json::from_str(&html[start..end]).ok()
}

fn samples(data: &Value) -> usize {
    data["truth"]["t_s"].as_array().unwrap().len()
}

fn note(data: &Value) -> &str {
    data["meta"]["termination"].as_str().unwrap()
}

#[test]
fn review_refuses_an_empty_tlog() {
    let (code, err, data) = review(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("flight.tlog") && err.contains("empty"),
        "{err}"
    );
    assert!(data.is_none(), "no page for an empty log");
}

#[test]
fn review_keeps_every_truth_sample_past_a_bad_timestamp() {
    let (clean, offsets) = telemetry();
    let (code, err, data) = review(&clean);
    assert_eq!(code, Some(0), "{err}");
    let expected = samples(&data.unwrap());
    assert!(
        expected >= 35,
        "{expected} samples from 20 s at one per 0.5 s"
    );
    // One stamp halfway with a flipped high byte: years ahead.
    let mut bytes = clean.clone();
    let k = offsets.len() / 2;
    bytes[offsets[k]] ^= 0x7F;
    let (code, err, data) = review(&bytes);
    assert_eq!(code, Some(0), "{err}");
    let data = data.unwrap();
    assert_eq!(samples(&data), expected, "{}", note(&data));
    assert!(
        note(&data).contains("1 frame(s) with an out-of-line timestamp dropped"),
        "{}",
        note(&data)
    );
}

#[test]
fn review_reads_past_a_damaged_tlog_and_says_what_it_skipped() {
    let (clean, offsets) = telemetry();
    let mut bytes = clean.clone();
    // Three stray bytes before entry 150, and entry 50's start byte damaged (in that order, so
    // the offsets before the insertion still hold).
    bytes.splice(offsets[150]..offsets[150], [0x00, 0xFE, 0x13]);
    bytes[offsets[50] + 8] = 0x00;
    let entry = offsets[51] - offsets[50];
    let (code, err, data) = review(&bytes);
    assert_eq!(code, Some(0), "{err}");
    let data = data.unwrap();
    assert!(
        note(&data).contains(&format!("{} frames, 0 not decoded", offsets.len() - 1)),
        "{}",
        note(&data)
    );
    assert!(
        note(&data).contains(&format!(
            "resynchronised past {} damaged byte(s) (1 frame(s))",
            entry + 3
        )),
        "{}",
        note(&data)
    );
}
