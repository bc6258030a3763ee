//! What the episode and record targets share: one scorer, and the check that every pillar of
//! what it scored is a number in [0, 1].

use alpha3_core::score::{EpisodeEval, ScoreOptions, Scorer};
use std::sync::OnceLock;

pub(crate) fn scorer() -> &'static Scorer {
    static SCORER: OnceLock<Scorer> = OnceLock::new();
    SCORER.get_or_init(|| match Scorer::new(ScoreOptions::default()) {
        Ok(s) => s,
        Err(e) => panic!("the scorer does not build: {e}"),
    })
}

/// Every pillar of a valid episode is a number in [0, 1] (ALPHA3.md); an invalid one is not
/// averaged, but must still not be NaN.
pub(crate) fn check_pillars(eval: &EpisodeEval) {
    let p = eval.pillars(1.0);
    for (name, x) in [
        ("TO", p.to),
        ("SP", p.sp),
        ("TC", p.tc),
        ("IQ", p.iq),
        ("NR", p.nr),
        ("CC", p.cc),
    ] {
        assert!(
            (0.0..=1.0).contains(&x),
            "pillar {name} is {x} ({:?})",
            eval.validity
        );
    }
}
