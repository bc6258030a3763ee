//! `alpha3 swarm`: one swarm flight on real PX4 SITL — a fresh PX4 per vehicle (its home
//! where the swarm file stands it), the swarm network's hub, and one `alpha3 fly` per vehicle
//! with its own gate, policy, watchdog, record and system id, as N companion computers would
//! be. A process supervisor: it owns no gate. At the end, `OUT/swarm-summary.json`: every
//! vehicle's outcome and A2A counts, and the separation in truth from the autopilots' own
//! positions.

use crate::exit::{self, Halt, Stop};
use crate::recorder::read_record;
use crate::sitl::px4::{self, Px4Install, Px4Options, Px4Process};
use crate::swarm::{HubAutopilot, HubOptions, HubReport, SwarmFile, run_hub};
use alpha3_core::config::Config;
use alpha3_core::record::Event;
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

/// The environment variable the runtimes read the swarm's key from.
const KEY_ENV: &str = "ALPHA3_SWARM_KEY";
/// PX4's ground-station port for instance `k` (its `mavlink start -u 18570+k`).
const PX4_GCS_BASE: u16 = 18570;

#[derive(Debug, Args)]
pub struct SwarmArgs {
    /// The swarm file (vehicles, their scenarios, the common origin).
    #[arg(long)]
    pub swarm: PathBuf,
    /// Runtime config every vehicle flies with (vehicle, limits, policy, watchdog).
    #[arg(long)]
    pub config: PathBuf,
    /// PX4 SITL install (`scripts/px4-sitl.sh` builds it).
    #[arg(long)]
    pub px4: PathBuf,
    /// The first PX4 instance; vehicle k is instance first + k (ports 14540 + instance).
    #[arg(long, default_value_t = 0)]
    pub first_instance: u8,
    /// PX4's lockstep speed factor for every instance.
    #[arg(long, default_value_t = 1.0)]
    pub speed_factor: f64,
    /// Where records, logs and the summary go.
    #[arg(long, default_value = "out/swarm")]
    pub out: PathBuf,
    /// Silence one vehicle from a time on, as `NAME@SECONDS` of swarm time: its radio dies
    /// (nothing from or to its runtime, its autopilot's positions no longer heard).
    #[arg(long)]
    pub silence: Option<String>,
    /// How long the whole flight may take, in seconds of wall time.
    #[arg(long, default_value_t = 900)]
    pub timeout_s: u64,
    /// Where the swarm network's hub listens (a port of 0: any free one). Ground stations and
    /// listeners join by sending it a datagram.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub hub: std::net::SocketAddr,
    /// Take the swarm's signing key (64 hex digits) from this environment variable instead of
    /// drawing a fresh one for the flight.
    #[arg(long)]
    pub key_env: Option<String>,
}

/// One vehicle's line of the summary.
#[derive(Debug, Serialize)]
struct VehicleSummary {
    name: String,
    system_id: u8,
    instance: u8,
    record: PathBuf,
    /// Its scenario (waypoints, in the common frame).
    scenario: PathBuf,
    exit_code: Option<i32>,
    termination: Option<String>,
    success: bool,
    /// Truth violations its own record holds (its twin's judgement).
    record_violations: usize,
    /// The runtime's own swarm report (`<record>.swarm.json`), as it wrote it.
    swarm: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
struct SwarmSummary {
    swarm: String,
    speed_factor: f64,
    vehicles: Vec<VehicleSummary>,
    missions_completed: usize,
    hub: HubReport,
    wall_s: f64,
}

pub fn run(args: &SwarmArgs) -> anyhow::Result<ExitCode> {
    Halt::end("alpha3 swarm", super::on_current_thread(run_checked(args)))
}

async fn run_checked(args: &SwarmArgs) -> Result<ExitCode, Halt> {
    let started = std::time::Instant::now();
    if !(args.speed_factor.is_finite() && (0.1..=20.0).contains(&args.speed_factor)) {
        return Err(Stop::usage(format!(
            "--speed-factor {} is not in [0.1, 20]",
            args.speed_factor
        ))
        .into());
    }
    let swarm = SwarmFile::read(&args.swarm).map_err(|e| Stop::invalid(e.to_string()))?;
    let n = swarm.vehicles.len();
    if usize::from(args.first_instance) + n > usize::from(px4::MAX_INSTANCES) {
        return Err(Stop::usage(format!(
            "{n} vehicles from instance {} do not fit in PX4's instances 0..{}",
            args.first_instance,
            px4::MAX_INSTANCES
        ))
        .into());
    }
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("reading {}", args.config.display()))?;
    let config = Config::from_toml(&text)
        .map_err(|e| Stop::invalid(format!("{}: {e}", args.config.display())))?;
    let silence = match &args.silence {
        Some(spec) => Some(parse_silence(spec, &swarm)?),
        None => None,
    }
    .map(|(k, at)| (args.first_instance + k + 1, at));
    let install = Px4Install::at(&args.px4).map_err(|e| Stop::invalid(e.to_string()))?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let key = match &args.key_env {
        Some(name) => alpha3_hil::wire::SigningKey::from_env(name)
            .map_err(|e| Stop::invalid(format!("--key-env: {e}")))?,
        None => fresh_key().context("drawing the swarm's signing key")?,
    }
    .to_hex();
    let hub_socket = tokio::net::UdpSocket::bind(args.hub)
        .await
        .with_context(|| format!("binding the swarm hub on {}", args.hub))?;
    let hub_addr = hub_socket.local_addr().context("the hub's address")?;

    let mut autopilots = Vec::new();
    let mut processes = Vec::new();
    // The separation the gates keep (the config's limits, as each vehicle's gate has them).
    let mut min_separation_m = f64::INFINITY;
    for (k, v) in swarm.vehicles.iter().enumerate() {
        let instance = args.first_instance + k as u8;
        let (_, gate, _) =
            crate::agent::onboard::episode_parts(&config, &v.scenario, 0, None, v.home)
                .map_err(|e| Stop::invalid(format!("{}: {e}", v.name)))?;
        min_separation_m = min_separation_m.min(gate.limits().min_separation_m);
        let mut params = px4::airframe_params(gate.vehicle(), gate.limits());
        params.push(("SIH_LOC_LAT0".into(), format!("{:.7}", v.home.lat_deg)));
        params.push(("SIH_LOC_LON0".into(), format!("{:.7}", v.home.lon_deg)));
        params.push(("SIH_LOC_H0".into(), format!("{:.2}", v.home.alt_amsl_m)));
        let process = Px4Process::start(
            &install,
            &Px4Options {
                instance,
                speed_factor: args.speed_factor,
                run_dir: args.out.join("px4").join(&v.name),
                params,
            },
        )
        .map_err(|e| Stop::failure(e.to_string()))?;
        processes.push(process);
        autopilots.push(HubAutopilot {
            name: v.name.clone(),
            system_id: instance + 1,
            gcs: std::net::SocketAddr::from(([127, 0, 0, 1], PX4_GCS_BASE + u16::from(instance))),
        });
    }
    let roster: Vec<String> = autopilots.iter().map(|a| a.system_id.to_string()).collect();
    let (stop_hub, stop_rx) = tokio::sync::watch::channel(false);
    let hub = tokio::spawn(run_hub(
        hub_socket,
        HubOptions {
            autopilots: autopilots.clone(),
            origin: swarm.origin,
            speed_factor: args.speed_factor,
            min_separation_m,
            silence,
        },
        stop_rx,
    ));
    eprintln!(
        "alpha3 swarm: {} — {n} PX4 instances from {} at ×{}, hub {hub_addr}",
        swarm.name, args.first_instance, args.speed_factor
    );

    // The swarm file's budgets, the same for every vehicle's `fly`.
    let budgets: Vec<String> = [
        ("--max-turns", swarm.max_turns),
        ("--max-tool-actions", swarm.max_tool_actions),
    ]
    .into_iter()
    .filter_map(|(flag, n)| n.map(|n| [flag.to_string(), n.to_string()]))
    .flatten()
    .collect();
    let exe = std::env::current_exe().context("finding the alpha3 binary")?;
    let clock = std::time::Instant::now();
    let mut children = Vec::new();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| {
        swarm.vehicles[*a]
            .start_delay_s
            .total_cmp(&swarm.vehicles[*b].start_delay_s)
    });
    for k in order {
        let v = &swarm.vehicles[k];
        let due = Duration::from_secs_f64(v.start_delay_s / args.speed_factor);
        if let Some(wait) = due.checked_sub(clock.elapsed()) {
            tokio::time::sleep(wait).await;
        }
        let instance = args.first_instance + k as u8;
        let dir = args.out.join(&v.name);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let log = std::fs::File::create(dir.join("fly.log")).context("creating fly.log")?;
        let log_err = log.try_clone().context("opening fly.log")?;
        let child = tokio::process::Command::new(&exe)
            .arg("fly")
            .arg("--config")
            .arg(&args.config)
            .arg("--scenario")
            .arg(&v.scenario_path)
            .args([
                "--connect",
                &format!("udpin:127.0.0.1:{}", px4::companion_port(instance)),
            ])
            .arg("--out")
            .arg(&dir)
            .args([
                "--episode-id",
                &v.name,
                "--no-stdin",
                "--operator-wait-ms",
                "0",
            ])
            .args(&budgets)
            .args(["--swarm-hub", &hub_addr.to_string()])
            .args(["--swarm-system", &autopilots[k].system_id.to_string()])
            .args(["--swarm-roster", &roster.join(",")])
            .args(["--swarm-name", &v.name, "--swarm-key-env", KEY_ENV])
            .env(KEY_ENV, &key)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .kill_on_drop(true)
            .spawn()
            .context("starting alpha3 fly")?;
        children.push((k, child));
    }
    let deadline = Duration::from_secs(args.timeout_s);
    let mut exits: Vec<Option<i32>> = vec![None; n];
    for (k, child) in &mut children {
        let left = deadline.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, child.wait()).await {
            Ok(Ok(status)) => exits[*k] = status.code(),
            Ok(Err(e)) => eprintln!("alpha3 swarm: {}: {e}", swarm.vehicles[*k].name),
            Err(_) => {
                eprintln!(
                    "alpha3 swarm: {} ran past --timeout-s; stopped",
                    swarm.vehicles[*k].name
                );
                let _ = child.kill().await;
            }
        }
    }
    let _ = stop_hub.send(true);
    let hub = hub
        .await
        .map_err(|e| Stop::failure(format!("the hub stopped: {e}")))?;
    for p in processes {
        p.stop().await;
    }

    let vehicles: Vec<VehicleSummary> = swarm
        .vehicles
        .iter()
        .enumerate()
        .map(|(k, v)| {
            vehicle_summary(
                &args.out,
                v,
                &autopilots[k],
                args.first_instance + k as u8,
                exits[k],
            )
        })
        .collect();
    let summary = SwarmSummary {
        swarm: swarm.name.clone(),
        speed_factor: args.speed_factor,
        missions_completed: vehicles.iter().filter(|v| v.success).count(),
        vehicles,
        hub,
        wall_s: started.elapsed().as_secs_f64(),
    };
    let path = args.out.join("swarm-summary.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&summary).context("the summary")?,
    )
    .with_context(|| format!("writing {}", path.display()))?;
    let track = args.out.join("swarm-track.json");
    std::fs::write(
        &track,
        serde_json::to_vec(&summary.hub.track).context("the track")?,
    )
    .with_context(|| format!("writing {}", track.display()))?;
    print_table(&summary);
    eprintln!("alpha3 swarm: summary {}", path.display());
    // The review page: every vehicle on one map. A page that cannot be made is said, not fatal:
    // the summary and the records are the flight's truth.
    let page = args.out.join("swarm.html");
    match crate::review::swarm::write_swarm_page(&args.out, &page) {
        Ok(bytes) => eprintln!(
            "alpha3 swarm: review {} ({:.1} kB)",
            page.display(),
            bytes as f64 / 1000.0
        ),
        Err(e) => eprintln!("alpha3 swarm: no review page: {e}"),
    }
    let clean = summary.missions_completed == n && summary.hub.separation_violations == 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILURE)
    })
}

fn vehicle_summary(
    out: &Path,
    v: &crate::swarm::SwarmVehicle,
    a: &HubAutopilot,
    instance: u8,
    exit_code: Option<i32>,
) -> VehicleSummary {
    let name = v.name.clone();
    let record = out
        .join(&name)
        .join("records")
        .join(format!("{name}.jsonl"));
    let lines = read_record(&record).map(|r| r.lines).unwrap_or_default();
    let termination = lines.iter().rev().find_map(|l| match &l.event {
        Event::Termination {
            reason, success, ..
        } => Some((reason.clone(), *success)),
        _ => None,
    });
    let record_violations = lines
        .iter()
        .filter(|l| matches!(l.event, Event::Violation { .. }))
        .count();
    let swarm = std::fs::read(record.with_extension("swarm.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    VehicleSummary {
        name,
        system_id: a.system_id,
        instance,
        record,
        scenario: v.scenario_path.clone(),
        exit_code,
        success: termination.as_ref().is_some_and(|t| t.1),
        termination: termination.map(|t| t.0),
        record_violations,
        swarm,
    }
}

fn print_table(s: &SwarmSummary) {
    println!(
        "swarm {} at ×{}: {} of {} missions complete; closest pair {}; {} separation violation(s) in truth (limit {} m)",
        s.swarm,
        s.speed_factor,
        s.missions_completed,
        s.vehicles.len(),
        s.hub
            .min_separation_m
            .map_or("never compared".to_string(), |m| format!("{m:.1} m")),
        s.hub.separation_violations,
        s.hub.min_separation_limit_m
    );
    println!(
        "{:<10} {:>4} {:<18} {:>6} {:>8} {:>8} {:>9}",
        "vehicle", "sys", "end", "viol.", "A2A out", "A2A in", "positions"
    );
    for v in &s.vehicles {
        let count = |path: &str| {
            v.swarm
                .as_ref()
                .and_then(|r| r.pointer(path))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        let (out, inn, pos) = (
            count("/intents_sent"),
            count("/intents_taken"),
            count("/counts/positions"),
        );
        println!(
            "{:<10} {:>4} {:<18} {:>6} {:>8} {:>8} {:>9}",
            v.name,
            v.system_id,
            v.termination.as_deref().unwrap_or("-"),
            v.record_violations,
            out,
            inn,
            pos
        );
    }
}

fn parse_silence(spec: &str, swarm: &SwarmFile) -> Result<(u8, f64), Stop> {
    let bad = || {
        Stop::usage(format!(
            "--silence {spec:?}: give NAME@SECONDS with a vehicle of the swarm"
        ))
    };
    let (name, at) = spec.split_once('@').ok_or_else(bad)?;
    let at: f64 = at.parse().map_err(|_| bad())?;
    if !(at.is_finite() && at >= 0.0) {
        return Err(bad());
    }
    // The vehicle's place in the file; its system id is its instance + 1.
    let k = swarm
        .vehicles
        .iter()
        .position(|v| v.name == name)
        .ok_or_else(bad)?;
    Ok((k as u8, at))
}

/// A key of 32 bytes from the operating system.
fn fresh_key() -> std::io::Result<alpha3_hil::wire::SigningKey> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(alpha3_hil::wire::SigningKey::new(bytes))
}
