//! `alpha3 sitl`: scenarios against a PX4 SITL (or `alpha3 sim-vehicle`) over MAVLink, with
//! network, traffic, peers, sensors and the operator from the built-in world, results under
//! `--out` as for `bench`: `records/<id>.jsonl` (written as `.part` until complete), one
//! `tlogs/<id>.tlog` per episode, and the leaderboard and report. Episodes run one after the
//! other (there is one vehicle); a rerun skips episodes already recorded.

use crate::agent::onboard::{Connection, bring_to_start, mission, wait_ready_to_fly};
use crate::agent::{LinkedVehicle, OperatorSource, Sources, run_episode_on};
use crate::bench::resume::{partial_path, record_path};
use crate::bench::{EpisodeResult, Shard, Suite, outputs, plan, resume};
use crate::exit;
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::{Recorder, read_record};
use alpha3_core::record::Event;
use alpha3_core::score::Scorer;
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

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
    /// Where PX4 SITL talks MAVLink (our side of the link).
    #[arg(long, default_value = "udpin:0.0.0.0:14540")]
    pub connect: String,
    #[arg(long, default_value = "out/sitl")]
    pub out: PathBuf,
    /// Run only shard i of n (`0/4`).
    #[arg(long)]
    pub shard: Option<String>,
    /// How long to wait for the autopilot's heartbeat, home and position, and then for it to
    /// be ready to fly (ArduPilot SITL takes ~40 s after boot), seconds.
    #[arg(long, default_value_t = 120)]
    pub ready_timeout_s: u64,
    /// How long bringing the vehicle to a scenario's start may take, seconds.
    #[arg(long, default_value_t = 120)]
    pub start_timeout_s: u64,
}

pub fn run(args: &SitlArgs) -> anyhow::Result<ExitCode> {
    super::on_current_thread(run_async(args))
}

async fn run_async(args: &SitlArgs) -> anyhow::Result<ExitCode> {
    let loaded = match &args.suite {
        Some(path) => Suite::load(path).map_err(|e| e.to_string()),
        None => single_suite(args),
    };
    let suite = match loaded {
        Ok(s) => s,
        Err(e) => {
            eprintln!("alpha3 sitl: {e}");
            return Ok(exit::code(exit::INVALID));
        }
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s.unwrap_or(Shard::WHOLE),
        Err(e) => {
            eprintln!("alpha3 sitl: {e}");
            return Ok(exit::code(exit::USAGE));
        }
    };
    let episodes = plan(&suite, shard);
    let records = args.out.join("records");
    let scorer = Scorer::new(Default::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let state = resume::prepare(&records, &episodes, &scorer)?;
    let mut results = state.done;
    let skipped = results.len();
    eprintln!(
        "alpha3 sitl: {} episodes planned, {skipped} already recorded, vehicle at {}",
        episodes.len(),
        args.connect
    );
    let started = std::time::Instant::now();
    for &i in &state.pending {
        let ep = &episodes[i];
        let r = fly_one(args, &suite, ep, &records, &scorer)
            .await
            .with_context(|| format!("episode {}", ep.id))?;
        eprintln!(
            "  {}: {} ({}, task outcome {:.2}, safety {:.2})",
            ep.id,
            if r.eval.success {
                "mission complete"
            } else {
                "not complete"
            },
            r.reason.as_deref().unwrap_or("?"),
            r.eval.to,
            r.eval.sp
        );
        results.push(r);
    }
    results.sort_by(|a, b| a.id.cmp(&b.id));
    let manifest = outputs::Manifest {
        suite: suite.bench.name.clone(),
        shard: shard.to_string(),
        planned: episodes.len(),
        completed: results.len(),
        metric_version: alpha3_core::METRIC_VERSION.into(),
        alpha3_version: env!("CARGO_PKG_VERSION").into(),
    };
    let title = format!("α3 sitl — {} against {}", suite.bench.name, args.connect);
    outputs::write(&args.out, &title, &results, Some(&manifest))?;
    eprintln!(
        "alpha3 sitl: {} flown, {skipped} skipped in {:.1} s; report: {}",
        state.pending.len(),
        started.elapsed().as_secs_f64(),
        args.out.join("report.html").display()
    );
    Ok(exit::code(exit::OK))
}

/// One episode: connect (with its telemetry log), bring the vehicle to the start, fly, score.
async fn fly_one(
    args: &SitlArgs,
    suite: &Suite,
    ep: &crate::bench::PlannedEpisode,
    records: &Path,
    scorer: &Scorer,
) -> anyhow::Result<EpisodeResult> {
    let s = &suite.scenarios[ep.scenario];
    let p = &suite.policies[ep.policy];
    let m = mission(
        &p.config,
        &s.scenario,
        ep.seed,
        &p.base_dir,
        Some(&suite.bench),
    )?;
    let mut conn =
        Connection::from_config(&p.config, Some(&args.connect), &m.world).or_else(|_| {
            Connection::from_config(&sitl_link_config(&p.config), Some(&args.connect), &m.world)
        })?;
    conn.ready_timeout_ms = args.ready_timeout_s * 1000;
    conn.tlog = Some(args.out.join("tlogs").join(format!("{}.tlog", ep.id)));
    let mut link = conn.connect().await?;
    wait_ready_to_fly(&link, Duration::from_secs(args.ready_timeout_s)).await?;
    let steps = bring_to_start(
        &mut link,
        &m.world,
        &m.gate,
        Duration::from_secs(args.start_timeout_s),
    )
    .await?;
    if !steps.is_empty() {
        eprintln!("  {}: brought to the start ({})", ep.id, steps.join(", "));
    }
    let crate::agent::onboard::Mission {
        world,
        mut gate,
        settings,
        mut policy,
    } = m;
    let band = [gate.limits().min_altitude_m, gate.limits().max_altitude_m];
    let identity = EpisodeIdentity {
        episode_id: &ep.id,
        scenario: &s.key,
        seed: ep.seed,
    };
    let part = partial_path(records, &ep.id);
    let mut recorder = Recorder::create(&part)?;
    let mut header = header_event(
        &identity,
        &p.config,
        &initial_state(&s.scenario, &world.snapshot(), band),
    );
    note_vehicle(&mut header, &conn, &link);
    recorder.append(0, header)?;
    let mut side = LinkedVehicle::new(link, world, OperatorSource::World, Sources::Simulated);
    policy.warm_up().await;
    run_episode_on(
        &mut side,
        policy.as_mut(),
        &mut gate,
        &settings,
        &mut recorder,
    )
    .await?;
    let end_ms = crate::agent::VehicleSide::now_ms(&side);
    let (link, _) = side.into_parts();
    link.close().await;
    let record = read_record(&part)?;
    let result = EpisodeResult::from_record(scorer, &record)
        .ok_or_else(|| anyhow::anyhow!("the record has no header"))?;
    recorder.append(end_ms, result.score_event())?;
    recorder.flush()?;
    drop(recorder);
    let done = record_path(records, &ep.id);
    std::fs::rename(&part, &done).with_context(|| format!("renaming {}", part.display()))?;
    Ok(result)
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
    let defaults = crate::agent::EpisodeSettings::default();
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

/// A suite's policies need no `[link]`; sitl talks to PX4 with the defaults.
fn sitl_link_config(config: &alpha3_core::config::Config) -> alpha3_core::config::Config {
    let mut c = config.clone();
    c.link = Some(alpha3_core::config::LinkConfig {
        connect: "udpin:0.0.0.0:14540".into(),
        system_id: 1,
        component_id: 191,
        autopilot: alpha3_core::config::AutopilotKind::Auto,
        heartbeat_interval_ms: 1000,
        gcs_heartbeat: true,
        signing_key_env: None,
        require_signing: false,
        command_timeout_ms: 1500,
        command_retries: 3,
        required_failsafes: Vec::new(),
        param_writes: Default::default(),
    });
    c
}

/// Adds what the vehicle was to the header's config: address, autopilot, telemetry log.
fn note_vehicle(header: &mut Event, conn: &Connection, link: &alpha3_hil::HilLink) {
    if let Event::Header { config, .. } = header
        && let Some(map) = config.as_object_mut()
    {
        let status = link.status();
        map.insert(
            "vehicle_link".into(),
            json!({
                "connect": conn.address.to_string(),
                "peer": status.peer.map(|p| p.to_string()),
                "autopilot": status.autopilot.map(|a| format!("{:?} {:?}", a.autopilot, a.vehicle_type)),
                "tlog": conn.tlog.as_ref().map(|p| p.display().to_string()),
            }),
        );
    }
}
