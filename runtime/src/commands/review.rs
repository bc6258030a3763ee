//! `alpha3 review RECORD.jsonl… [--out DIR]`: one self-contained HTML page per flight record
//! (map, timelines, dialogue, pillars on one time axis), written as `DIR/<record stem>.html`;
//! with `--compare`, one page with two records side by side under one slider. A `.tlog` gets a
//! page of the autopilot's telemetry. Beside each record's page goes its flight as a
//! QGroundControl `.plan` (`DIR/<record stem>.plan`: the flown path and the airspace).
//! With `--swarm`, each argument is an `alpha3 swarm` output folder: one page with every
//! vehicle on one map under one slider, `DIR/swarm__<folder>.html`.
//! The work is in [`crate::review`]; this file is the command line and what it prints.

use crate::exit::{self, Stop};
use crate::review::{self, ReviewError};
use alpha3_core::scenario::Scenario;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Flight records (`.jsonl`) from bench, sitl, fly or mcp, or MAVLink telemetry logs
    /// (`.tlog`, from fly and sitl).
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// Where the pages go.
    #[arg(long, default_value = "out/review")]
    pub out: PathBuf,
    /// Folder of scenario files (`<scenario>.json`): when the record's scenario is there, the
    /// map adds its waypoints and other aircraft and the timelines the time to breach.
    #[arg(long, default_value = "configs/scenarios")]
    pub scenarios: PathBuf,
    /// Compare two records (two policies on one scenario and seed, say) on one page,
    /// `DIR/compare__<first>__<second>.html`.
    #[arg(long, conflicts_with = "swarm")]
    pub compare: bool,
    /// Each argument is an `alpha3 swarm --out` folder (its `swarm-summary.json` and
    /// `swarm-track.json`): one page per swarm flight, every vehicle on one map.
    #[arg(long)]
    pub swarm: bool,
}

pub fn run(args: &ReviewArgs) -> anyhow::Result<ExitCode> {
    let body = if args.swarm {
        swarms(args)
    } else if args.compare {
        compare(args)
    } else {
        pages(args)
    };
    Ok(Stop::end("alpha3 review", body))
}

/// One page per record; the records that gave none stop it (exit 1), each named with why.
fn pages(args: &ReviewArgs) -> Result<ExitCode, Stop> {
    let mut failed = Vec::new();
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
            Err(e) => failed.push(e.to_string()),
        }
    }
    ended(failed)
}

/// One page per `alpha3 swarm` output folder, `swarm__<folder>.html`.
fn swarms(args: &ReviewArgs) -> Result<ExitCode, Stop> {
    let mut failed = Vec::new();
    for dir in &args.records {
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "swarm".into());
        let out = args.out.join(format!("swarm__{name}.html"));
        match review::swarm::write_swarm_page(dir, &out) {
            Ok(bytes) => println!("{} ({:.1} kB)", out.display(), bytes as f64 / 1000.0),
            Err(e) => failed.push(e.to_string()),
        }
    }
    ended(failed)
}

/// Exit 0 when every input gave its page; else each failure named, exit 1.
fn ended(failed: Vec<String>) -> Result<ExitCode, Stop> {
    if failed.is_empty() {
        return Ok(exit::code(exit::OK));
    }
    Err(Stop {
        code: exit::INVALID,
        lines: failed,
    })
}

fn compare(args: &ReviewArgs) -> Result<ExitCode, Stop> {
    let [a, b] = args.records.as_slice() else {
        return Err(Stop::usage("--compare takes exactly two records"));
    };
    let out = args
        .out
        .join(format!("compare__{}__{}.html", stem(a), stem(b)));
    let (sa, sb) = (scenario_of(a, args), scenario_of(b, args));
    let bytes = review::write_comparison((a, sa.as_ref()), (b, sb.as_ref()), &out)
        .map_err(|e| Stop::invalid(e.to_string()))?;
    println!("{} ({:.1} kB)", out.display(), bytes as f64 / 1000.0);
    Ok(exit::code(exit::OK))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "record".into(), |s| s.to_string_lossy().into_owned())
}

fn scenario_of(path: &Path, args: &ReviewArgs) -> Option<Scenario> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| review::scenario_key(&text))
        .and_then(|key| find_scenario(&args.scenarios, &key))
}

fn one(path: &Path, args: &ReviewArgs) -> Result<(PathBuf, usize, bool), ReviewError> {
    let out = args.out.join(format!("{}.html", stem(path)));
    if path.extension().is_some_and(|e| e == "tlog") {
        let bytes = review::write_tlog_page(path, &out)?;
        return Ok((out, bytes, true));
    }
    let scenario = scenario_of(path, args);
    let bytes = review::write_page(path, scenario.as_ref(), &out)?;
    // The flight as a QGroundControl plan beside its page; a record it cannot be made from
    // still has its page.
    let plan = args.out.join(format!("{}.plan", stem(path)));
    match review::write_plan_of(path, &plan) {
        Ok(()) => println!("{}", plan.display()),
        Err(e) => eprintln!("alpha3 review: no .plan for {}: {e}", path.display()),
    }
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
