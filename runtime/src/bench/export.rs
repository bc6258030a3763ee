//! `alpha3 bench export --records DIR --out DIR`: flight records as α3-Bench episode files, in
//! the published tree layout `<out>/alpha3/<policy>/uav/<scenario>-ep-<seed>.json`, so
//! `alpha3 score` and `alpha3 validate` read them like published runs. The conversion is core's
//! (`episode_from_record`): the dialogue with executed observations and the measured link, the
//! initial state from the header, token counts and generation time in `_meta`.

use super::BenchError;
use super::plan::file_safe;
use super::results::{header_of, is_complete};
use alpha3_core::record::parse_record;
use alpha3_core::score::episode_from_record;
use std::path::{Path, PathBuf};

/// What an export wrote and skipped.
#[derive(Debug, Default)]
pub struct ExportSummary {
    pub written: Vec<PathBuf>,
    /// Records left out (unreadable, no header, not ended), with why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Exports the complete records under `records` (at most `max`, in file-name order).
pub fn export(records: &Path, out: &Path, max: Option<usize>) -> Result<ExportSummary, BenchError> {
    let entries = std::fs::read_dir(records).map_err(|e| BenchError::io(records, e))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut summary = ExportSummary::default();
    for f in files {
        if max.is_some_and(|m| summary.written.len() >= m) {
            break;
        }
        let record = match std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_record(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                summary.skipped.push((f, e));
                continue;
            }
        };
        let Some((_, policy, scenario, seed)) = header_of(&record) else {
            summary.skipped.push((f, "no header line".into()));
            continue;
        };
        if !is_complete(&record) {
            summary
                .skipped
                .push((f, "incomplete (no termination or score)".into()));
            continue;
        }
        let episode = episode_from_record(&record).episode;
        let dir = out.join("alpha3").join(file_safe(&policy)).join("uav");
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::io(&dir, e))?;
        let path = dir.join(format!("{}-ep-{seed:02}.json", file_safe(&scenario)));
        let text = serde_json::to_string_pretty(&episode)
            .map_err(|e| BenchError::Output(e.to_string()))?;
        std::fs::write(&path, text + "\n").map_err(|e| BenchError::io(&path, e))?;
        summary.written.push(path);
    }
    Ok(summary)
}
