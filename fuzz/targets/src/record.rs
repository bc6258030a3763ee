//! Flight-record parsing: any JSON Lines text, through [`parse_record`], the record→episode
//! conversion and the scorer (as `alpha3 score` reads a record), and `alpha3 validate`.
//!
//! Invariants: no panic; every parsed line writes back ([`to_json_line`]) to a line that reads
//! back equal; the scorer's pillars of a readable record are numbers in [0, 1].

use crate::bytes::text;
use crate::scoring::{check_pillars, scorer};
use alpha3_core::document::{DocumentKind, check_text};
use alpha3_core::record::{RecordLine, parse_record, to_json_line};
use alpha3_core::score::episode_from_record;

pub fn run(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let _ = check_text(DocumentKind::FlightRecord, text);
    let Ok(record) = parse_record(text) else {
        return;
    };
    for line in &record.lines {
        let written = to_json_line(line);
        match serde_json::from_str::<RecordLine>(&written) {
            Ok(again) => assert_eq!(&again, line, "a record line changes in a round trip"),
            Err(e) => panic!("a written record line does not read back: {e}: {written}"),
        }
    }
    let _ = episode_from_record(&record);
    let eval = scorer().evaluate_record(&record);
    check_pillars(&eval);
}
