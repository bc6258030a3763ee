//! A review page per episode (`episodes/<id>.html`, [`crate::review`]) next to the report,
//! made from the complete record in `records/`. A page that cannot be made is skipped with a
//! warning: the run's results never depend on it.

use super::results::EpisodeResult;
use super::resume::record_path;
use super::suite::SuiteScenario;
use crate::review;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folder of the pages, relative to the report.
pub const DIR: &str = "episodes";

/// The page of episode `id`, relative to the report.
pub fn href(id: &str) -> String {
    format!("{DIR}/{id}.html")
}

/// Writes the page of every result whose record is in `out/records/`; returns the ids that
/// have a page. `scenarios` adds waypoints, other aircraft and time to breach where known.
pub fn write(
    out: &Path,
    results: &[EpisodeResult],
    scenarios: &[SuiteScenario],
) -> BTreeSet<String> {
    let records = out.join("records");
    let mut written = BTreeSet::new();
    for r in results {
        let source = record_path(&records, &r.id);
        if !source.is_file() {
            continue;
        }
        let scenario = scenarios
            .iter()
            .find(|s| s.key == r.scenario)
            .map(|s| &s.scenario);
        let page: PathBuf = out.join(href(&r.id));
        match review::write_page(&source, scenario, &page) {
            Ok(_) => {
                written.insert(r.id.clone());
            }
            Err(e) => tracing::warn!("no review page for {}: {e}", r.id),
        }
    }
    written
}
