//! Published-episode parsing: any JSON text as an α3-Bench episode, through the structural
//! checks and the scorer (as `alpha3 score` reads `eval_runs/…/*.json`).
//!
//! Invariants: no panic; a parsed episode survives a write-and-read round trip; its pillars,
//! alone and aggregated, are numbers in [0, 1].

use crate::bytes::text;
use crate::scoring::{check_pillars, scorer};
use alpha3_core::episode::{Episode, structure_problems};
use alpha3_core::score::aggregate;

pub fn run(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(episode) = serde_json::from_str::<Episode>(text) else {
        return;
    };
    let _ = structure_problems(&episode);
    match serde_json::to_string(&episode).map(|s| serde_json::from_str::<Episode>(&s)) {
        Ok(Ok(again)) => assert_eq!(again, episode, "an episode changes in a round trip"),
        Ok(Err(e)) => panic!("a written episode does not read back: {e}"),
        Err(e) => panic!("a parsed episode does not serialise: {e}"),
    }
    let eval = scorer().evaluate(&episode);
    check_pillars(&eval);
    let (_summary, scored) = aggregate(std::slice::from_ref(&eval));
    assert_eq!(scored.len(), 1, "one episode in, one scored episode out");
}
