//! The `alpha3 validate` pipeline: any file name and text, through kind detection and the
//! checks of every kind (schema, typed parse, structure).
//!
//! Input: a first byte choosing the file name's extension, then the text. Invariant: no panic,
//! and every problem names a rule.

use crate::bytes::text;
use alpha3_core::document::{DocumentKind, check_text, detect_kind};

const NAMES: [&str; 6] = [
    "x.json",
    "x.toml",
    "x.jsonl",
    "x.schema.json",
    "tools-list.json",
    "episode.json",
];

const KINDS: [DocumentKind; 7] = [
    DocumentKind::Config,
    DocumentKind::Scenario,
    DocumentKind::Episode,
    DocumentKind::AgentTurn,
    DocumentKind::FlightRecord,
    DocumentKind::JsonSchema,
    DocumentKind::ToolsList,
];

pub fn run(data: &[u8]) {
    let Some((choice, rest)) = data.split_first() else {
        return;
    };
    let Some(text) = text(rest) else { return };
    let name = NAMES[usize::from(*choice) % NAMES.len()];
    // Detected as `alpha3 validate` does; otherwise read as the kind the byte picks.
    let kind = detect_kind(name, text).unwrap_or(KINDS[usize::from(*choice) % KINDS.len()]);
    for p in check_text(kind, text) {
        assert!(!p.rule.is_empty(), "a problem without a rule: {p:?}");
    }
}
