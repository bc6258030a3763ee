//! `alpha3 review RECORD.jsonl… [--out DIR]`: one self-contained HTML page per flight record
//! (map, timelines, dialogue, pillars on one time axis), written as `DIR/<record stem>.html`.
//! The work is in [`crate::review`]; this file is the command line and what it prints.

use crate::exit;
use crate::review::{self, ReviewError};
use alpha3_core::scenario::Scenario;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Flight records (`.jsonl`) from bench, sitl, fly or mcp.
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// Where the pages go.
    #[arg(long, default_value = "out/review")]
    pub out: PathBuf,
    /// Folder of scenario files (`<scenario>.json`): when the record's scenario is there, the
    /// map adds its waypoints and other aircraft and the timelines the time to breach.
    #[arg(long, default_value = "configs/scenarios")]
    pub scenarios: PathBuf,
}

pub fn run(args: &ReviewArgs) -> anyhow::Result<ExitCode> {
    let mut failed = 0;
    for path in &args.records {
        match one(path, args) {
            Ok((out, bytes, with_scenario)) => println!(
                "{} ({:.1} kB{})",
                out.display(),
                bytes as f64 / 1000.0,
                if with_scenario {
                    ""
                } else {
                    ", scenario not found"
                }
            ),
            Err(e) => {
                eprintln!("alpha3 review: {e}");
                failed += 1;
            }
        }
    }
    Ok(exit::code(if failed == 0 {
        exit::OK
    } else {
        exit::INVALID
    }))
}

fn one(path: &Path, args: &ReviewArgs) -> Result<(PathBuf, usize, bool), ReviewError> {
    let stem = path
        .file_stem()
        .map_or_else(|| "record".into(), |s| s.to_string_lossy().into_owned());
    let out = args.out.join(format!("{stem}.html"));
    let scenario = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| review::scenario_key(&text))
        .and_then(|key| find_scenario(&args.scenarios, &key));
    let bytes = review::write_page(path, scenario.as_ref(), &out)?;
    Ok((out, bytes, scenario.is_some()))
}

/// `<dir>/<key>.json` when it exists and reads as a scenario.
fn find_scenario(dir: &Path, key: &str) -> Option<Scenario> {
    if key.is_empty() || key.contains(['/', '\\']) || key.starts_with('.') {
        return None;
    }
    let text = std::fs::read_to_string(dir.join(format!("{key}.json"))).ok()?;
    alpha3_sim::scenario::parse_scenario(&text).ok()
}
