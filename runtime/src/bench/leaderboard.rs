//! The bench's leaderboard: one run per policy (`Header.policy`), its episodes in id order so
//! the figures do not depend on the order episodes finished in, on resumption or on sharding.
//! The three files are `alpha3 score`'s: `leaderboard.csv` in the published column layout,
//! `leaderboard.json` with everything, `leaderboard.md`.

use super::results::EpisodeResult;
use crate::score::{Leaderboard, RunInput, RunKey};
use alpha3_core::score::MetricVersion;
use std::collections::BTreeMap;

/// The leaderboard of `results` (any order), scored under `metric`.
pub fn build(results: &[EpisodeResult], metric: MetricVersion) -> Leaderboard {
    let mut sorted: Vec<&EpisodeResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut runs: BTreeMap<RunKey, RunInput> = BTreeMap::new();
    for r in sorted {
        runs.entry(RunKey {
            model: r.policy.clone(),
            domain: "uav".into(),
        })
        .or_default()
        .evals
        .push(r.eval.clone());
    }
    Leaderboard::build(runs, metric)
}
