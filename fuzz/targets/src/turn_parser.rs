//! The LLM response parser: any text a model may answer with.
//!
//! Invariants: the parser never panics; a turn it accepts names only catalogue tools, and
//! renders (as the flight record stores it) to text that parses back to the same turn.

use crate::bytes::text;
use alpha3_core::protocol::{TurnParser, catalogue, extract_json_object, find, render_turn};
use std::sync::OnceLock;

fn parser() -> Option<&'static TurnParser> {
    static PARSER: OnceLock<Option<TurnParser>> = OnceLock::new();
    PARSER
        .get_or_init(|| TurnParser::new(&catalogue()).ok())
        .as_ref()
}

pub fn run(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Some(parser) = parser() else {
        panic!("the turn schema does not compile");
    };
    let _ = extract_json_object(text);
    let Ok(turn) = parser.parse(text) else { return };
    let tools = catalogue();
    for action in &turn.actions {
        assert!(
            find(&tools, action.name()).is_some(),
            "accepted an unknown tool {:?}",
            action.name()
        );
    }
    let rendered = render_turn(&turn);
    match parser.parse(&rendered) {
        Ok(again) => assert_eq!(again, turn, "the rendered turn reads back differently"),
        Err(e) => panic!("the rendered turn {rendered} does not parse: {e}"),
    }
}
