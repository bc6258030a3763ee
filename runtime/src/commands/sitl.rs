//! `alpha3 sitl`: scenarios against a SITL autopilot (real PX4, or `alpha3 sim-vehicle`) over
//! MAVLink, with network, traffic, peers, sensors and the operator from the built-in world,
//! results under `--out` as for `bench`: `records/<id>.jsonl` (written as `.part` until
//! complete), one `tlogs/<id>.tlog` per episode, the leaderboard and report, and — unless
//! `--no-builtin` — the same episodes flown in the built-in world (`builtin/records/`) with
//! the twin-vs-real gap (`twin_gap.md`, `twin_gap.json`). A rerun skips episodes already
//! recorded.
//!
//! Each mission is anchored at the autopilot's real home ([`crate::agent::anchor`]). With
//! `--px4 DIR` the command starts a fresh PX4 SITL for every episode (instance `k` of
//! `--instances N`, sped up by `--speed-factor`) and stops it afterwards; without it, it
//! attaches to autopilots already running on `--connect`'s port + k. Episodes are spread over
//! the instances; the episode clock is each autopilot's own.
//!
//! This file is the command line: the run is `bench`'s ([`crate::bench::run`]) with the
//! autopilots as its [`Target`], so resume, shards, the report and review pages are the same;
//! each episode is flown by [`crate::bench::autopilot`].

use crate::bench::resume::record_path;
use crate::bench::{
    self, Autopilot, Autopilots, EpisodeResult, RunOptions, Shard, Suite, SuiteSource, Target,
};
use crate::exit::{self, Stop};
use crate::recorder::read_record;
use crate::sitl::gap::{self, Gap, Side};
use crate::sitl::px4::{self, Px4Install, Px4Options};
use alpha3_core::config::Address;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SitlArgs {
    /// Suite file (as for `bench`): scenarios × seeds × policies.
    #[arg(
        long,
        required_unless_present = "scenario",
        conflicts_with = "scenario"
    )]
    pub suite: Option<PathBuf>,
    /// Instead of a suite: scenario files, flown with `--config`'s policy.
    #[arg(long, requires = "config")]
    pub scenario: Vec<PathBuf>,
    /// The runtime config for `--scenario` (vehicle, limits, policy, link, watchdog).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The world's seed for `--scenario`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the SITL talks MAVLink (our side of the link); instance k is on this port + k.
    #[arg(long, default_value = "udpin:127.0.0.1:14540")]
    pub connect: String,
    /// Start a fresh PX4 SITL for every episode from this build (`scripts/px4-sitl.sh`'s
    /// directory), listening on 127.0.0.1.
    #[arg(long)]
    pub px4: Option<PathBuf>,
    /// Autopilots side by side (PX4 instances `--first-instance`..+N); episodes are spread
    /// over them.
    #[arg(long, default_value_t = 1)]
    pub instances: u8,
    /// The first PX4 instance number with `--px4` (its ports are 14540 + instance).
    #[arg(long, default_value_t = 0)]
    pub first_instance: u8,
    /// With `--px4`: simulated seconds per real second (lockstep, `PX4_SIM_SPEED_FACTOR`).
    #[arg(long, default_value_t = 1.0)]
    pub speed_factor: f64,
    /// Do not fly the same episodes in the built-in world for the twin-vs-real gap.
    #[arg(long)]
    pub no_builtin: bool,
    /// The metric the episodes are scored under (as for `bench`).
    #[arg(long, default_value = alpha3_core::METRIC_VERSION)]
    pub metric: alpha3_core::score::MetricVersion,
    /// Results directory; a rerun resumes into it only from the same inputs (as for `bench`).
    #[arg(long, default_value = "out/sitl")]
    pub out: PathBuf,
    /// Delete the records and tlogs of an earlier run in --out and start afresh.
    #[arg(long)]
    pub fresh: bool,
    /// Run only shard i of n (`0/4`).
    #[arg(long)]
    pub shard: Option<String>,
    /// How long to wait for the autopilot's heartbeat, home and position, and then for it to
    /// be ready to fly (ArduPilot SITL takes ~40 s after boot), seconds.
    #[arg(long, default_value_t = 120)]
    pub ready_timeout_s: u64,
    /// How long bringing the vehicle to a scenario's start may take, seconds.
    #[arg(long, default_value_t = 180)]
    pub start_timeout_s: u64,
}

pub fn run(args: &SitlArgs) -> anyhow::Result<ExitCode> {
    match run_checked(args) {
        Ok(code) => Ok(code),
        Err(stop) => Ok(stop.report("alpha3 sitl")),
    }
}

fn run_checked(args: &SitlArgs) -> Result<ExitCode, Stop> {
    let suite = match &args.suite {
        Some(path) => SuiteSource::File(path.clone()),
        None => SuiteSource::Made(Box::new(single_suite(args).map_err(Stop::invalid)?)),
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s.unwrap_or(Shard::WHOLE),
        Err(e) => return Err(Stop::usage(e.to_string())),
    };
    let vehicles = instances(args).map_err(Stop::usage)?;
    eprintln!(
        "alpha3 sitl: {} vehicle(s): {}{}",
        vehicles.len(),
        vehicles
            .iter()
            .map(|v| v.connect.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if args.px4.is_some() {
            format!(
                " (PX4 SITL started per episode, speed ×{})",
                args.speed_factor
            )
        } else {
            String::new()
        }
    );
    if args.fresh {
        // The built-in twins of the old episodes go with them.
        let _ = std::fs::remove_dir_all(args.out.join("builtin"));
    }
    let options = RunOptions {
        suite,
        target: Target::Autopilots(Autopilots {
            vehicles,
            ready_timeout_s: args.ready_timeout_s,
            start_timeout_s: args.start_timeout_s,
            builtin_twins: !args.no_builtin,
            out: args.out.clone(),
        }),
        out: args.out.clone(),
        shard,
        concurrency: None,
        progress: false,
        report_each: true,
        stall_limit: None,
        fresh: args.fresh,
        metric: args.metric,
        title: None,
    };
    let summary = match bench::run(&options) {
        Ok(s) => s,
        Err(e) if e.is_invalid_input() => return Err(Stop::invalid(e.to_string())),
        Err(e) => return Err(Stop::failure(e.to_string())),
    };
    if !args.no_builtin {
        let gaps = twin_gaps(&args.out, &summary.results);
        let title = format!(
            "Twin vs real — {} on {} and in the built-in world",
            summary.suite,
            target_name(args)
        );
        gap::write(&args.out, &title, &gaps)
            .with_context(|| format!("writing the twin gap into {}", args.out.display()))
            .map_err(|e| Stop::failure(format!("{e:#}")))?;
        eprint!("{}", gap::markdown(&title, &gaps));
    }
    let flown = summary.flown - summary.failures.len();
    let hours = summary.elapsed_s / 3600.0;
    eprintln!(
        "alpha3 sitl: {} episodes planned, {flown} flown, {} already recorded, {} failed in {:.1} s ({:.1} episodes/hour); report: {}",
        summary.planned,
        summary.skipped,
        summary.failures.len(),
        summary.elapsed_s,
        if hours > 0.0 {
            flown as f64 / hours
        } else {
            0.0
        },
        summary.report.display()
    );
    if summary.failures.is_empty() {
        return Ok(exit::code(exit::OK));
    }
    let mut lines: Vec<String> = summary
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.id, f.why))
        .collect();
    lines.push(format!(
        "episodes that could not be flown: {}",
        summary
            .failures
            .iter()
            .map(|f| f.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Err(Stop {
        code: exit::FAILURE,
        lines,
    })
}

fn target_name(args: &SitlArgs) -> String {
    match &args.px4 {
        Some(_) => format!("PX4 SITL ×{}", args.speed_factor),
        None => args.connect.clone(),
    }
}

/// The autopilots `--instances`, `--connect` and `--px4` name, in worker order.
fn instances(args: &SitlArgs) -> Result<Vec<Autopilot>, String> {
    if args.instances == 0 {
        return Err("--instances must be at least 1".into());
    }
    if !(args.speed_factor.is_finite() && (0.1..=50.0).contains(&args.speed_factor)) {
        return Err(format!(
            "--speed-factor {} is not in [0.1, 50]",
            args.speed_factor
        ));
    }
    let base = Address::parse(&args.connect).map_err(|e| e.to_string())?;
    let install = match &args.px4 {
        Some(dir) => Some(Px4Install::at(dir).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut out = Vec::new();
    for k in 0..args.instances {
        match &install {
            Some(install) => {
                let instance = args
                    .first_instance
                    .checked_add(k)
                    .filter(|i| *i < px4::MAX_INSTANCES)
                    .ok_or_else(|| {
                        format!(
                            "PX4 instances {}..{} do not fit in 0..{}",
                            args.first_instance,
                            u16::from(args.first_instance) + u16::from(args.instances),
                            px4::MAX_INSTANCES
                        )
                    })?;
                out.push(Autopilot {
                    connect: format!("udpin:127.0.0.1:{}", px4::companion_port(instance)),
                    px4: Some((
                        install.clone(),
                        Px4Options {
                            instance,
                            speed_factor: args.speed_factor,
                            run_dir: args.out.join("px4").join(instance.to_string()),
                            params: Vec::new(),
                        },
                    )),
                });
            }
            None => {
                let connect = match &base {
                    Address::UdpIn { host, port } => format!(
                        "udpin:{host}:{}",
                        port.checked_add(u16::from(k))
                            .ok_or("--connect port + instances overflows")?
                    ),
                    other if args.instances == 1 => other.to_string(),
                    other => {
                        return Err(format!(
                            "--instances {} needs a udpin address (port + k for instance k), not {other}",
                            args.instances
                        ));
                    }
                };
                out.push(Autopilot { connect, px4: None });
            }
        }
    }
    Ok(out)
}

/// The gap of every SITL episode whose built-in twin was flown.
fn twin_gaps(out: &Path, results: &[EpisodeResult]) -> Vec<Gap> {
    let builtin = out.join("builtin").join("records");
    let records = out.join("records");
    results
        .iter()
        .filter_map(|r| {
            let sitl = read_record(&record_path(&records, &r.id)).ok()?;
            let twin = read_record(&record_path(&builtin, &r.id)).ok()?;
            Some(Gap::new(
                &r.id,
                &r.scenario,
                r.seed,
                Side::of(&sitl),
                Side::of(&twin),
            ))
        })
        .collect()
}

/// `--scenario FILE… --config FILE`: a suite of those scenarios, one seed, the config's policy.
fn single_suite(args: &SitlArgs) -> Result<Suite, String> {
    let Some(config_path) = &args.config else {
        return Err("--scenario needs --config".into());
    };
    let text = std::fs::read_to_string(config_path)
        .map_err(|e| format!("{}: {e}", config_path.display()))?;
    let config = alpha3_core::config::Config::from_toml(&text)
        .map_err(|e| format!("{}: {e}", config_path.display()))?;
    let name = config
        .policy
        .as_ref()
        .map(|p| p.name.clone())
        .ok_or_else(|| format!("{}: no [policy] section", config_path.display()))?;
    let mut scenarios = Vec::new();
    for path in &args.scenario {
        let scenario = alpha3_sim::scenario::read_scenario(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let key = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("scenario")
            .to_string();
        scenarios.push(crate::bench::suite::SuiteScenario {
            key,
            path: path.clone(),
            scenario,
        });
    }
    let defaults = crate::episode_setup::EpisodeSettings::default();
    Ok(Suite {
        bench: alpha3_core::config::BenchSuite {
            name: "sitl".into(),
            scenarios: Vec::new(),
            max_scenarios: None,
            seeds: vec![args.seed],
            policies: Vec::new(),
            concurrency: 1,
            min_turns: 2,
            max_turns: defaults.max_turns,
            max_tokens: defaults.max_tokens,
            max_tool_actions: defaults.max_tool_actions,
            base_config: None,
            baselines: Some(false),
        },
        scenarios,
        policies: vec![crate::bench::suite::SuitePolicy {
            name,
            config,
            base_dir: config_path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        }],
    })
}
