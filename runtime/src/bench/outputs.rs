//! Everything a bench run leaves under `--out`, besides `records/`: the leaderboard in three
//! forms, the HTML report with its plots, a review page per episode (`episodes/`), and
//! `manifest.json` (suite, shard, counts), which
//! `bench merge` uses to check that the shards it combines belong together.

use super::BenchError;
use super::results::EpisodeResult;
use super::suite::SuiteScenario;
use super::{episode_pages, leaderboard, report};
use crate::score::Leaderboard;
use alpha3_core::score::MetricVersion;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What ran into an output directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub suite: String,
    /// `i/n`.
    pub shard: String,
    /// Episodes in this shard's plan.
    pub planned: usize,
    /// Episodes with a complete record.
    pub completed: usize,
    pub metric_version: String,
    pub alpha3_version: String,
}

impl Manifest {
    pub fn read(dir: &Path) -> Result<Self, BenchError> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| BenchError::io(&path, e))?;
        serde_json::from_str(&text).map_err(|e| BenchError::Suite {
            path,
            message: e.to_string(),
        })
    }
}

/// Writes the leaderboard files, the episodes' review pages, the report linking them and (when
/// given) the manifest; returns the board. `scenarios` are the suite's, where known.
pub fn write(
    out: &Path,
    title: &str,
    results: &[EpisodeResult],
    scenarios: &[SuiteScenario],
    manifest: Option<&Manifest>,
    metric: MetricVersion,
) -> Result<Leaderboard, BenchError> {
    let board = leaderboard::build(results, metric);
    board
        .write(out)
        .map_err(|e| BenchError::Output(format!("{e:#}")))?;
    let pages = episode_pages::write(out, results, scenarios);
    report::write(out, title, &board, results, &pages).map_err(|e| BenchError::io(out, e))?;
    if let Some(m) = manifest {
        let path = out.join("manifest.json");
        let text =
            serde_json::to_string_pretty(m).map_err(|e| BenchError::Output(e.to_string()))?;
        std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))?;
    }
    Ok(board)
}
