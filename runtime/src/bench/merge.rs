//! `alpha3 bench merge --out DIR [SHARD_DIR…]`: one leaderboard and report from the records of
//! several shards (by default the folders under `DIR/shards/`, where scheduler-run shards
//! write). Records are copied into `DIR/records/`; an episode id found in two shards is taken
//! once (the first shard named wins; the duplicate is reported, and is a conflict when the two
//! records differ); incomplete records are left out and reported. Every episode the shards'
//! plans (`plan.json`), or the whole suite when given, list must be present: the missing ones
//! are named. Shards of different suites, or made from different inputs ([`super::inputs`]),
//! are refused; the merged folder gets their common `inputs.json`. Every record must be what it
//! claims to be under those inputs ([`super::verify`]): one that is not refuses the merge, named
//! with what differs, before anything is written.

use super::BenchError;
use super::inputs::{self, Inputs};
use super::outputs::{self, Manifest};
use super::plan_file;
use super::results::{EpisodeResult, is_complete};
use super::verify::verify_record;
use alpha3_core::record::{ParsedRecord, parse_record};
use alpha3_core::score::MetricVersion;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a merge found.
#[derive(Debug, Default)]
pub struct MergeSummary {
    pub episodes: usize,
    pub duplicates: Vec<String>,
    pub incomplete: Vec<PathBuf>,
    /// Shard indices missing from a complete `0..n` set, when the manifests or plans say.
    pub missing_shards: Vec<u32>,
    /// Planned episodes without a complete record, in id order.
    pub missing: Vec<String>,
    /// Episodes recorded by two shards with different contents.
    pub conflicting: Vec<String>,
}

impl MergeSummary {
    /// Whether every planned episode is present exactly once.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.missing_shards.is_empty() && self.conflicting.is_empty()
    }
}

/// The shard folders under `out/shards/`, in name order.
pub fn shards_under(out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let dir = out.join(SHARDS_DIR);
    let entries = std::fs::read_dir(&dir).map_err(|e| BenchError::io(&dir, e))?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(BenchError::Merge(format!(
            "no shard folders in {}",
            dir.display()
        )));
    }
    Ok(found)
}

/// Where a scheduler-run shard writes inside the shared `--out`.
pub const SHARDS_DIR: &str = "shards";

/// The folder of shard `index` of `count` inside the shared `out`.
pub fn shard_dir(out: &Path, shard: super::Shard) -> PathBuf {
    out.join(SHARDS_DIR)
        .join(format!("{}-of-{}", shard.index, shard.count))
}

/// Merges `shards` into `out`; `whole_plan`, the ids of the whole suite when known, adds to
/// the episodes that must be present.
pub fn merge(
    out: &Path,
    shards: &[PathBuf],
    whole_plan: Option<&[String]>,
) -> Result<MergeSummary, BenchError> {
    let mut summary = MergeSummary::default();
    let mut suite: Option<String> = None;
    let mut count: Option<u32> = None;
    let mut seen_shards = BTreeSet::new();
    let mut expected: BTreeSet<String> = whole_plan.into_iter().flatten().cloned().collect();
    for dir in shards {
        if let Some(p) = plan_file::read(dir)? {
            if let Some((i, n)) = shard_of(&p.shard) {
                count = Some(count.map_or(n, |c| c.max(n)));
                seen_shards.insert(i);
            }
            expected.extend(p.episodes);
        }
        if let Ok(m) = Manifest::read(dir) {
            if let Some(s) = &suite
                && *s != m.suite
            {
                return Err(BenchError::Merge(format!(
                    "{} is from suite {:?}, the others from {s:?}",
                    dir.display(),
                    m.suite
                )));
            }
            suite = Some(m.suite.clone());
            if let Some((i, n)) = shard_of(&m.shard) {
                count = Some(count.map_or(n, |c| c.max(n)));
                seen_shards.insert(i);
            }
        }
    }
    if let Some(n) = count {
        summary.missing_shards = (0..n).filter(|i| !seen_shards.contains(i)).collect();
    }
    let Some(inputs) = common_inputs(out, shards)? else {
        return Err(BenchError::Merge(format!(
            "no shard has an {}: what made the records is unknown, so they cannot be checked \
             (an older alpha3 wrote them; fly them again)",
            inputs::INPUTS_FILE
        )));
    };
    // The shards' metric (their inputs agree on it), else the default.
    let metric: MetricVersion = inputs.metric_version.parse().unwrap_or_default();
    let scorer =
        super::worker::scorer_for(metric).map_err(|e| BenchError::Worker(e.to_string()))?;
    let records_out = out.join("records");
    // Every record is read and verified before anything is written: one that is not what it
    // claims refuses the whole merge, and nothing is left half-written.
    let mut first_of: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut taken: Vec<(PathBuf, EpisodeResult)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for dir in shards {
        for f in record_files(dir)? {
            let Some(record) = complete_record(&f) else {
                summary.incomplete.push(f);
                continue;
            };
            let r = match verify_record(&f, &record, &inputs, &scorer) {
                Ok(r) => r,
                Err(why) => {
                    refused.push(format!("{}: {}", f.display(), why.join("; ")));
                    continue;
                }
            };
            if let Some(first) = first_of.get(&r.id) {
                if !same_file(&f, first) && !same_contents(&f, first) {
                    summary.conflicting.push(r.id.clone());
                }
                summary.duplicates.push(r.id.clone());
                continue;
            }
            first_of.insert(r.id.clone(), f.clone());
            taken.push((f, r));
        }
    }
    if !refused.is_empty() {
        return Err(BenchError::Merge(format!(
            "{} record(s) are not what they claim to be; nothing was merged:\n  {}",
            refused.len(),
            refused.join("\n  ")
        )));
    }
    std::fs::create_dir_all(&records_out).map_err(|e| BenchError::io(&records_out, e))?;
    let mut ids = BTreeSet::new();
    let mut results: Vec<EpisodeResult> = Vec::new();
    for (f, r) in taken {
        let dest = records_out.join(format!("{}.jsonl", r.id));
        if !same_file(&f, &dest) {
            std::fs::copy(&f, &dest).map_err(|e| BenchError::io(&dest, e))?;
        }
        ids.insert(r.id.clone());
        results.push(r);
    }
    summary.episodes = results.len();
    summary.missing = expected.difference(&ids).cloned().collect();
    let name = suite.clone().unwrap_or_else(|| "merged".into());
    let title = format!("α3 bench — {name} (merged from {} shard(s))", shards.len());
    let manifest = Manifest {
        suite: name,
        shard: "0/1".into(),
        planned: if expected.is_empty() {
            results.len() + summary.incomplete.len()
        } else {
            expected.len()
        },
        completed: results.len(),
        metric_version: metric.as_str().into(),
        alpha3_version: env!("CARGO_PKG_VERSION").into(),
    };
    outputs::write(out, &title, &results, &[], Some(&manifest), metric)?;
    inputs::write(out, &inputs)?;
    Ok(summary)
}

/// The inputs the shards share (those that recorded them), also with what `out` already holds.
fn common_inputs(out: &Path, shards: &[PathBuf]) -> Result<Option<Inputs>, BenchError> {
    let mut common: Option<(PathBuf, Inputs)> = None;
    let found = shards
        .iter()
        .map(|d| (d.clone(), inputs::read(d)))
        .chain(std::iter::once((out.to_path_buf(), inputs::read(out))));
    for (dir, i) in found {
        let Some(i) = i else { continue };
        match &common {
            Some((first, c)) if c.hash != i.hash => {
                return Err(BenchError::Merge(format!(
                    "{} and {} were made from different inputs: {}",
                    first.display(),
                    dir.display(),
                    c.differences(&i).join(", ")
                )));
            }
            Some(_) => {}
            None => common = Some((dir, i)),
        }
    }
    Ok(common.map(|(_, i)| i))
}

/// The `.jsonl` files in `dir/records`, in name order.
fn record_files(dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let records = dir.join("records");
    let entries = std::fs::read_dir(&records).map_err(|e| BenchError::io(&records, e))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// The record at `path` when it reads and is complete (ended and scored).
fn complete_record(path: &Path) -> Option<ParsedRecord> {
    let text = std::fs::read_to_string(path).ok()?;
    parse_record(&text).ok().filter(is_complete)
}

/// `(i, n)` from `i/n`.
fn shard_of(text: &str) -> Option<(u32, u32)> {
    let (i, n) = text.split_once('/')?;
    Some((i.parse().ok()?, n.parse().ok()?))
}

fn same_contents(a: &Path, b: &Path) -> bool {
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}
