//! `plan.json`: the episode ids one run (or shard) set out to fly, written before the first
//! episode, so `bench merge` can name every missing episode, even of a shard that died before
//! it wrote its leaderboard.

use super::BenchError;
use super::plan::PlannedEpisode;
use serde::{Deserialize, Serialize};
use std::path::Path;

const FILE: &str = "plan.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    pub suite: String,
    /// `i/n`.
    pub shard: String,
    /// Episode ids, in plan order.
    pub episodes: Vec<String>,
}

impl PlanFile {
    pub fn new(suite: &str, shard: &str, plan: &[PlannedEpisode]) -> Self {
        Self {
            suite: suite.into(),
            shard: shard.into(),
            episodes: plan.iter().map(|p| p.id.clone()).collect(),
        }
    }
}

pub fn write(out: &Path, plan: &PlanFile) -> Result<(), BenchError> {
    std::fs::create_dir_all(out).map_err(|e| BenchError::io(out, e))?;
    let path = out.join(FILE);
    let text = serde_json::to_string_pretty(plan).map_err(|e| BenchError::Output(e.to_string()))?;
    std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))
}

/// The plan in `dir`: `None` when there is none (a folder from before plans were written).
pub fn read(dir: &Path) -> Result<Option<PlanFile>, BenchError> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(BenchError::io(&path, e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| BenchError::Merge(format!("{}: {e}", path.display())))
}
