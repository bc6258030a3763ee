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

use crate::agent::anchor::Anchor;
use crate::agent::onboard::{
    Connection, anchor_mission, bring_to_start, foreign_note, mission, settle_on_ground,
    wait_ready_to_fly,
};
use crate::agent::{LinkedVehicle, OperatorSource, Sources, run_episode_on};
use crate::bench::resume::{partial_path, record_path};
use crate::bench::{EpisodeResult, PlannedEpisode, Shard, Suite, outputs, plan, resume};
use crate::exit;
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::{Recorder, read_record};
use crate::sitl::gap::{self, Gap, Side};
use crate::sitl::px4::{self, Px4Install, Px4Options, Px4Process};
use alpha3_core::config::Address;
use alpha3_core::record::Event;
use alpha3_core::score::Scorer;
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
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
    super::on_current_thread(run_async(args))
}

/// Where each instance is: its address, and how to start it when we do.
#[derive(Debug, Clone)]
struct Instance {
    connect: String,
    px4: Option<(Px4Install, Px4Options)>,
}

fn instances(args: &SitlArgs) -> Result<Vec<Instance>, String> {
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
                out.push(Instance {
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
                out.push(Instance { connect, px4: None });
            }
        }
    }
    Ok(out)
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
    let vehicles = match instances(args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("alpha3 sitl: {e}");
            return Ok(exit::code(exit::USAGE));
        }
    };
    let episodes = plan(&suite, shard);
    let inputs = crate::bench::inputs::Inputs::of("sitl", &suite, args.metric);
    if args.fresh {
        // The built-in twins of the old episodes go with them.
        let _ = std::fs::remove_dir_all(args.out.join("builtin"));
    }
    if let Err(e) = crate::bench::inputs::claim(&args.out, &inputs, args.fresh) {
        eprintln!("alpha3 sitl: {e}");
        return Ok(exit::code(exit::INVALID));
    }
    let records = args.out.join("records");
    let scorer =
        crate::bench::worker::scorer_for(args.metric).map_err(|e| anyhow::anyhow!("{e}"))?;
    let state = resume::prepare(&records, &episodes, &scorer)?;
    let skipped = state.done.len();
    eprintln!(
        "alpha3 sitl: {} episodes planned, {skipped} already recorded, {} vehicle(s): {}{}",
        episodes.len(),
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
    let started = std::time::Instant::now();
    let queue = Rc::new(RefCell::new(
        state.pending.iter().copied().collect::<VecDeque<_>>(),
    ));
    let results = Rc::new(RefCell::new(state.done));
    let failed = Rc::new(RefCell::new(Vec::<String>::new()));
    let ctx = Rc::new(Shared {
        args,
        suite: &suite,
        episodes: &episodes,
        records: &records,
        scorer: &scorer,
    });
    let workers = vehicles.into_iter().map(|vehicle| {
        let (queue, results, failed, ctx) =
            (queue.clone(), results.clone(), failed.clone(), ctx.clone());
        async move {
            loop {
                let next = queue.borrow_mut().pop_front();
                let Some(i) = next else { break };
                let ep = &ctx.episodes[i];
                match fly_on(&ctx, &vehicle, ep).await {
                    Ok(r) => {
                        report_one(&r);
                        results.borrow_mut().push(r);
                    }
                    Err(e) => {
                        eprintln!("  {}: FAILED on {}: {e:#}", ep.id, vehicle.connect);
                        // Still an episode of the run: recorded as failed, in N and the report.
                        let why = format!("{e:#}");
                        let r = crate::bench::failure::record_failure(
                            ctx.suite,
                            ep,
                            ctx.records,
                            ctx.scorer,
                            &why,
                        );
                        results.borrow_mut().push(r);
                        failed.borrow_mut().push(ep.id.clone());
                    }
                }
            }
        }
    });
    join_all(workers.collect()).await;
    let mut results = results.take();
    results.sort_by(|a, b| a.id.cmp(&b.id));
    let manifest = outputs::Manifest {
        suite: suite.bench.name.clone(),
        shard: shard.to_string(),
        planned: episodes.len(),
        completed: results.len(),
        metric_version: args.metric.as_str().into(),
        alpha3_version: env!("CARGO_PKG_VERSION").into(),
    };
    let title = format!(
        "α3 sitl — {} against {}",
        suite.bench.name,
        target_name(args)
    );
    outputs::write(
        &args.out,
        &title,
        &results,
        &suite.scenarios,
        Some(&manifest),
        args.metric,
    )?;
    if !args.no_builtin {
        let gaps = twin_gaps(&args.out, &results);
        let title = format!(
            "Twin vs real — {} on {} and in the built-in world",
            suite.bench.name,
            target_name(args)
        );
        gap::write(&args.out, &title, &gaps)
            .with_context(|| format!("writing the twin gap into {}", args.out.display()))?;
        eprint!("{}", gap::markdown(&title, &gaps));
    }
    let failed = failed.take();
    let flown = state.pending.len() - failed.len();
    let hours = started.elapsed().as_secs_f64() / 3600.0;
    eprintln!(
        "alpha3 sitl: {flown} flown, {skipped} skipped, {} failed in {:.1} s ({:.1} episodes/hour); report: {}",
        failed.len(),
        started.elapsed().as_secs_f64(),
        if hours > 0.0 {
            flown as f64 / hours
        } else {
            0.0
        },
        args.out.join("report.html").display()
    );
    if failed.is_empty() {
        Ok(exit::code(exit::OK))
    } else {
        eprintln!(
            "alpha3 sitl: episodes that could not be flown: {}",
            failed.join(", ")
        );
        Ok(exit::code(exit::FAILURE))
    }
}

/// What every worker reads.
struct Shared<'a> {
    args: &'a SitlArgs,
    suite: &'a Suite,
    episodes: &'a [PlannedEpisode],
    records: &'a Path,
    scorer: &'a Scorer,
}

fn target_name(args: &SitlArgs) -> String {
    match &args.px4 {
        Some(_) => format!("PX4 SITL ×{}", args.speed_factor),
        None => args.connect.clone(),
    }
}

fn report_one(r: &EpisodeResult) {
    eprintln!(
        "  {}: {} ({}, task outcome {:.2}, safety {:.2})",
        r.id,
        if r.eval.success {
            "mission complete"
        } else {
            "not complete"
        },
        r.reason.as_deref().unwrap_or("?"),
        r.eval.to,
        r.eval.sp
    );
}

/// Runs futures side by side on this thread (the policies need not be `Send`), polling each
/// pending one whenever any is woken: a handful of workers, so the rescan costs nothing.
async fn join_all<F: std::future::Future<Output = ()>>(futures: Vec<F>) {
    let mut pending: Vec<_> = futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    std::future::poll_fn(|cx| {
        for slot in &mut pending {
            if let Some(f) = slot
                && f.as_mut().poll(cx).is_ready()
            {
                *slot = None;
            }
        }
        if pending.iter().all(Option::is_none) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

/// One episode on one instance: a fresh PX4 first when we start them.
async fn fly_on(
    ctx: &Shared<'_>,
    vehicle: &Instance,
    ep: &PlannedEpisode,
) -> anyhow::Result<EpisodeResult> {
    let process = match &vehicle.px4 {
        Some((install, options)) => {
            let options = Px4Options {
                params: airframe_of(ctx.suite, ep)?,
                ..options.clone()
            };
            Some(Px4Process::start(install, &options)?)
        }
        None => None,
    };
    let flown = fly_one(ctx, &vehicle.connect, ep).await;
    if let Some(p) = process {
        if flown.is_err() {
            eprintln!("  {}: the PX4 log is {}", ep.id, p.log().display());
        }
        p.stop().await;
    }
    let result = flown?;
    if !ctx.args.no_builtin {
        fly_builtin(ctx, ep)
            .await
            .with_context(|| format!("{} in the built-in world", ep.id))?;
    }
    Ok(result)
}

/// PX4's airframe parameters for `ep`: the vehicle the gate and the world assume.
fn airframe_of(suite: &Suite, ep: &PlannedEpisode) -> anyhow::Result<Vec<(String, String)>> {
    let s = &suite.scenarios[ep.scenario].scenario;
    let p = &suite.policies[ep.policy];
    let settings =
        crate::episode_setup::EpisodeSettings::from_config(&p.config, Some(&suite.bench));
    let vehicle = p
        .config
        .vehicle
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("policy {}: no [vehicle] section", p.name))?;
    let profile = crate::episode_setup::profile_for_scenario(s, vehicle);
    let gate = alpha3_core::gate::GateContext::from_scenario(s, &settings.limits, &profile, 0)
        .map_err(|e| anyhow::anyhow!("gate context: {e}"))?;
    Ok(px4::airframe_params(gate.vehicle(), gate.limits()))
}

/// The same episode in the built-in world, for the gap (kept if already there).
async fn fly_builtin(ctx: &Shared<'_>, ep: &PlannedEpisode) -> anyhow::Result<()> {
    let dir = ctx.args.out.join("builtin").join("records");
    if record_path(&dir, &ep.id).exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut policy = crate::bench::worker::per_episode(ctx.suite, ep)?;
    crate::bench::episode::fly(ctx.suite, ep, policy.as_mut(), &dir, ctx.scorer).await?;
    Ok(())
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

/// One episode: connect (with its telemetry log), bring the vehicle to the start, fly, score.
async fn fly_one(
    ctx: &Shared<'_>,
    connect: &str,
    ep: &PlannedEpisode,
) -> anyhow::Result<EpisodeResult> {
    let (args, suite, records, scorer) = (ctx.args, ctx.suite, ctx.records, ctx.scorer);
    let s = &suite.scenarios[ep.scenario];
    let p = &suite.policies[ep.policy];
    let mut conn = Connection::from_config(&p.config, Some(connect))
        .or_else(|_| Connection::from_config(&sitl_link_config(&p.config), Some(connect)))?;
    conn.ready_timeout_ms = args.ready_timeout_s * 1000;
    conn.tlog = Some(args.out.join("tlogs").join(format!("{}.tlog", ep.id)));
    let mut link = conn.connect().await?;
    wait_ready_to_fly(&link, Duration::from_secs(args.ready_timeout_s)).await?;
    let start_timeout = Duration::from_secs(args.start_timeout_s);
    if settle_on_ground(&mut link, start_timeout).await? {
        eprintln!(
            "  {}: landed the vehicle an earlier run left in the air",
            ep.id
        );
    }
    let anchor = anchor_mission(&link, &s.scenario).await?;
    let m = mission(
        &p.config,
        &s.scenario,
        ep.seed,
        &p.base_dir,
        Some(&suite.bench),
        anchor.origin,
    )?;
    let steps = bring_to_start(&mut link, &m.world, &m.gate, start_timeout).await?;
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
        metric: scorer.options().metric,
    };
    let part = partial_path(records, &ep.id);
    let mut recorder = Recorder::create(&part)?;
    let mut header = header_event(
        &identity,
        &p.config,
        &initial_state(&s.scenario, &world.snapshot(), band),
    );
    note_vehicle(&mut header, &conn, &link, &anchor);
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
    let end_ms = alpha3_core::vehicle::VehicleLink::now_ms(&side);
    let (link, _) = side.into_parts();
    if let Some(note) = foreign_note(&link.status()) {
        eprintln!("  {}: {note}", ep.id);
    }
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
fn note_vehicle(
    header: &mut Event,
    conn: &Connection,
    link: &alpha3_hil::HilLink,
    anchor: &Anchor,
) {
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
                "anchor": anchor,
                "clock_rate": link.vehicle_clock().map(|c| c.rate),
                "battery": "twin",
            }),
        );
    }
}
