//! A review page per episode (`episodes/<id>.html`, [`crate::review`]) next to the report,
//! made from the complete record in `records/`, and a comparison page per scenario × seed flown
//! by two or more policies (`episodes/compare/<scenario>__s<seed>.html`: the first two policies
//! by name). A page that cannot be made is skipped with a warning: the run's results never
//! depend on it.

use super::results::EpisodeResult;
use super::resume::record_path;
use super::suite::SuiteScenario;
use crate::review;
use alpha3_core::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folder of the pages, relative to the report.
pub const DIR: &str = "episodes";

/// Runs with more episodes than this get no pages (about 130 kB each: a 10,000-episode corpus
/// would add 1.3 GB); `alpha3 review RECORD…` makes the ones wanted.
pub const MAX_PAGES: usize = 1_000;

/// The pages written, for the report's links.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pages {
    /// Episode ids with a page.
    pub episodes: BTreeSet<String>,
    /// (scenario, seed) with a comparison page.
    pub comparisons: BTreeSet<(String, u64)>,
}

/// The page of episode `id`, relative to the report.
pub fn href(id: &str) -> String {
    format!("{DIR}/{id}.html")
}

/// The comparison page of `scenario` × `seed`, relative to the report.
pub fn compare_href(scenario: &str, seed: u64) -> String {
    format!("{DIR}/compare/{scenario}__s{seed}.html")
}

/// Writes the page of every result whose record is in `out/records/`, and the comparisons
/// (none for runs over [`MAX_PAGES`]).
/// `scenarios` adds waypoints, other aircraft and time to breach where known.
pub fn write(out: &Path, results: &[EpisodeResult], scenarios: &[SuiteScenario]) -> Pages {
    if results.len() > MAX_PAGES {
        eprintln!(
            "alpha3 bench: {} episodes: no review pages (more than {MAX_PAGES}); `alpha3 review \
             {}/records/ID.jsonl` makes one",
            results.len(),
            out.display()
        );
        return Pages::default();
    }
    let records = out.join("records");
    let scenario_of = |key: &str| -> Option<&Scenario> {
        scenarios.iter().find(|s| s.key == key).map(|s| &s.scenario)
    };
    let mut pages = Pages::default();
    let mut groups: BTreeMap<(String, u64), BTreeMap<String, String>> = BTreeMap::new();
    for r in results {
        let source = record_path(&records, &r.id);
        if !source.is_file() {
            continue;
        }
        match review::write_page(&source, scenario_of(&r.scenario), &out.join(href(&r.id))) {
            Ok(_) => {
                pages.episodes.insert(r.id.clone());
                groups
                    .entry((r.scenario.clone(), r.seed))
                    .or_default()
                    .insert(r.policy.clone(), r.id.clone());
            }
            Err(e) => tracing::warn!("no review page for {}: {e}", r.id),
        }
    }
    for ((scenario, seed), by_policy) in groups {
        let mut ids = by_policy.values();
        let (Some(a), Some(b)) = (ids.next(), ids.next()) else {
            continue;
        };
        let s = scenario_of(&scenario);
        let target = out.join(compare_href(&scenario, seed));
        match review::write_comparison(
            (&record_path(&records, a), s),
            (&record_path(&records, b), s),
            &target,
        ) {
            Ok(_) => {
                pages.comparisons.insert((scenario, seed));
            }
            Err(e) => tracing::warn!("no comparison page for {scenario} seed {seed}: {e}"),
        }
    }
    pages
}
