//! `alpha3 mcp`: an MCP server through which any MCP client flies one mission, every call
//! through the gate and every session written as a flight record (see [`crate::mcp`]).
//!
//! With `--scenario` alone the vehicle is the built-in world; with `--connect` it is a flight
//! controller over MAVLink (`sim-vehicle`, PX4 or ArduPilot SITL, or, with
//! `--allow-real-vehicle`, a real autopilot), connected, checked, parameterised and anchored
//! as `fly` does (`agent/onboard/connect.rs`), the scenario giving the airspace and the
//! mission. The record is `OUT/records/<episode-id>.jsonl`, the link's telemetry log
//! `OUT/tlogs/<episode-id>.tlog`; `alpha3 score` scores the record.

use crate::agent::onboard::{
    BatterySource, LeftInAir, OnboardEnd, OnboardKit, Refusal, VehicleRequest, check_address,
    connect_vehicle_for, free_tlog_path, run_onboard,
};
use crate::agent::{OperatorSource, Sources};
use crate::episode_setup::{EpisodeSettings, profile_for_scenario};
use crate::exit::{self, Halt, Stop};
use crate::mcp::listen;
use crate::mcp::session::{Episode, Transport, run as run_session};
use crate::mcp::view::{SessionView, Status};
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::Recorder;
use alpha3_core::config::Config;
use alpha3_core::frames::Geo;
use alpha3_core::gate::GateContext;
use alpha3_core::record::Event;
use alpha3_core::scenario::Scenario;
use alpha3_core::vehicle::VehicleLink;
use alpha3_sim::{World, WorldOptions};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How MCP clients reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportKind {
    Stdio,
    Http,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Runtime config (vehicle, limits, watchdog, record; link for --connect).
    #[arg(long)]
    pub config: PathBuf,
    #[command(flatten)]
    pub mission: super::mission_file::MissionArgs,
    /// Fly a flight controller at this address instead of the built-in world
    /// (`udpin:127.0.0.1:14540`, `serial:/dev/ttyAMA0:921600`).
    #[arg(long)]
    pub connect: Option<String>,
    /// Allow a flight controller that is not provably simulated (with --connect).
    #[arg(long)]
    pub allow_real_vehicle: bool,
    /// Allow an unsigned link that other machines can reach (with --connect).
    #[arg(long)]
    pub allow_unsigned: bool,
    /// stdio (one client, the process that started this one) or streamable HTTP.
    #[arg(long, value_enum, default_value_t = TransportKind::Stdio)]
    pub transport: TransportKind,
    /// Where streamable HTTP listens (`/mcp`); port 0 picks a free one (printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8765")]
    pub listen: SocketAddr,
    /// Allow listening on an address that is not loopback (needs --token-env).
    #[arg(long)]
    pub allow_remote: bool,
    /// The environment variable holding the bearer token HTTP clients must send.
    #[arg(long)]
    pub token_env: Option<String>,
    /// Seed of the world (peers, sensors, network model, operator).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The metric the record names for its scoring (`alpha3 score` reads it back).
    #[arg(long, default_value = alpha3_core::METRIC_VERSION)]
    pub metric: alpha3_core::score::MetricVersion,
    /// Where records go (default: the config's `record.dir`, else out/mcp).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The record's name (default `mcp__<scenario>__s<seed>`); an existing record is refused.
    #[arg(long)]
    pub episode_id: Option<super::record_place::EpisodeId>,
    /// How long the loop waits for the client's next call before the watchdog acts, ms
    /// (default: the config's `policy.deadline_ms`, else 20000).
    #[arg(long)]
    pub deadline_ms: Option<u64>,
    /// Dialogue turns (agent and operator) the episode may take.
    #[arg(long, default_value_t = 400)]
    pub max_turns: u32,
    /// Tool calls the episode may run.
    #[arg(long, default_value_t = 200)]
    pub max_tool_actions: u32,
    /// How long to wait for the autopilot to be ready to fly (with --connect), seconds.
    #[arg(long, default_value_t = 120)]
    pub ready_timeout_s: u64,
}

pub fn run(args: &McpArgs) -> anyhow::Result<ExitCode> {
    Halt::end("alpha3 mcp", super::on_current_thread(run_checked(args)))
}

/// What both vehicles share: config, mission, settings, the record's place.
struct Prepared {
    config: Config,
    mission: super::mission_file::MissionFile,
    settings: EpisodeSettings,
    episode_id: String,
    seed: u64,
    metric: alpha3_core::score::MetricVersion,
    record: PathBuf,
    transport: Transport,
}

async fn run_checked(args: &McpArgs) -> Result<ExitCode, Halt> {
    let p = prepare(args).map_err(Stop::invalid)?;
    match &args.connect {
        None => builtin(args, p).await,
        Some(connect) => linked(args, p, connect).await,
    }
}

fn prepare(args: &McpArgs) -> Result<Prepared, String> {
    let text = std::fs::read_to_string(&args.config)
        .map_err(|e| format!("{}: {e}", args.config.display()))?;
    let config = Config::from_toml(&text).map_err(|e| format!("{}: {e}", args.config.display()))?;
    let mission =
        super::mission_file::MissionFile::read(&args.mission).map_err(|e| e.lines.join("; "))?;
    let mut settings = EpisodeSettings::from_config(&config, None);
    settings.max_turns = args.max_turns;
    settings.max_tool_actions = args.max_tool_actions;
    // A client's calls carry no tokens; the budget that bounds them is the action budget.
    settings.max_tokens = u64::MAX;
    if let Some(d) = args.deadline_ms {
        settings.deadline_ms = d;
    }
    let transport = match args.transport {
        TransportKind::Stdio => Transport::Stdio,
        TransportKind::Http => Transport::Http(
            listen::check(
                args.listen,
                args.allow_remote,
                args.token_env.as_deref(),
                |v| std::env::var(v).ok(),
            )
            .map_err(|e| format!("--listen {e}"))?,
        ),
    };
    let super::record_place::RecordPlace {
        episode_id, record, ..
    } = super::record_place::RecordPlace::new(
        "mcp",
        &config,
        args.out.as_deref(),
        mission.path(),
        args.seed,
        args.episode_id.as_ref(),
    );
    if record.exists() {
        return Err(format!(
            "{} exists; choose another --episode-id",
            record.display()
        ));
    }
    Ok(Prepared {
        config,
        mission,
        settings,
        episode_id,
        seed: args.seed,
        metric: args.metric,
        record,
        transport,
    })
}

fn gate_for(p: &Prepared, scenario: &Scenario) -> Result<GateContext, String> {
    let vehicle = p
        .config
        .vehicle
        .as_ref()
        .ok_or_else(|| "the config has no [vehicle] section".to_string())?;
    let profile = profile_for_scenario(scenario, vehicle);
    GateContext::from_scenario(scenario, &p.settings.limits, &profile, 0)
        .map_err(|e| format!("gate context: {e}"))
}

fn view_for(p: &Prepared, world: &World) -> SessionView {
    let mission = json!({
        "briefing": crate::agent::Surroundings::briefing(world),
        "limits": p.settings.limits,
        "decision_deadline_ms": p.settings.deadline_ms,
        "scenario": world.scenario(),
    });
    SessionView::new(
        mission,
        Status {
            episode_id: p.episode_id.clone(),
            record: p.record.display().to_string(),
            ..Status::default()
        },
    )
}

/// The record's first line for the mission `scenario` as flown from `snap`.
fn header_for(
    p: &Prepared,
    gate: &GateContext,
    snap: &alpha3_core::snapshot::VehicleSnapshot,
    scenario: &Scenario,
) -> Event {
    let band = [gate.limits().min_altitude_m, gate.limits().max_altitude_m];
    header_event(
        &EpisodeIdentity {
            episode_id: &p.episode_id,
            scenario: &scenario.name,
            seed: p.seed,
            metric: p.metric,
        },
        &p.config,
        &initial_state(scenario, snap, band),
    )
}

fn with_mcp_note(mut header: Event, args: &McpArgs, extra: Option<serde_json::Value>) -> Event {
    if let Event::Header { config, .. } = &mut header
        && let Some(map) = config.as_object_mut()
    {
        let transport = match args.transport {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
        };
        map.insert(
            "mcp".into(),
            json!({
                "transport": transport,
                "deadline_ms": args.deadline_ms,
                "max_turns": args.max_turns,
                "max_tool_actions": args.max_tool_actions,
            }),
        );
        if let Some(v) = extra {
            map.insert("vehicle_link".into(), v);
        }
    }
    header
}

async fn builtin(args: &McpArgs, p: Prepared) -> Result<ExitCode, Halt> {
    let scenario = p.mission.offline_scenario(&p.config)?;
    let mut gate = gate_for(&p, &scenario).map_err(Stop::invalid)?;
    let mut world = World::new(scenario.clone(), WorldOptions::seeded(args.seed));
    let header = with_mcp_note(
        header_for(&p, &gate, &world.snapshot(), &scenario),
        args,
        None,
    );
    let view = view_for(&p, &world);
    let mut recorder = Recorder::create(&p.record)?;
    let outcome = run_session(
        p.transport.clone(),
        Episode {
            side: &mut world,
            gate: &mut gate,
            settings: &p.settings,
            recorder: &mut recorder,
            header,
        },
        view,
    )
    .await?;
    Ok(finish(outcome, &p))
}

fn finish(outcome: Option<crate::agent::EpisodeOutcome>, p: &Prepared) -> ExitCode {
    match outcome {
        Some(_) => {
            eprintln!("alpha3 mcp: record: {}", p.record.display());
            exit::code(exit::OK)
        }
        None => {
            eprintln!("alpha3 mcp: no client initialised a session; nothing was flown");
            // The record was never written to: remove the empty file.
            let _ = std::fs::remove_file(&p.record);
            exit::code(exit::OK)
        }
    }
}

async fn linked(args: &McpArgs, p: Prepared, connect: &str) -> Result<ExitCode, Halt> {
    let request = VehicleRequest {
        config: &p.config,
        connect,
        allow_real_vehicle: args.allow_real_vehicle,
        allow_unsigned: args.allow_unsigned,
        ready_timeout_s: args.ready_timeout_s,
        start_timeout_s: args.ready_timeout_s,
        tlog: p
            .record
            .parent()
            .and_then(Path::parent)
            .map(|out| free_tlog_path(&out.join("tlogs"), &p.episode_id)),
        left_in_air: LeftInAir::Keep,
        battery: BatterySource::Autopilot,
    };
    let address = check_address(&request).map_err(Stop::from)?;
    let connected = connect_vehicle_for(&request, address, p.mission.source(), "alpha3 mcp")
        .await
        .map_err(Stop::from)?;
    let gate = match gate_for(&p, &connected.flown) {
        Ok(g) => g,
        Err(e) => {
            connected.link.close().await;
            return Err(Stop::invalid(e).into());
        }
    };
    let world = twin(&connected.flown, args.seed, connected.anchor.origin);
    let header = with_mcp_note(
        header_for(&p, &gate, &connected.link.snapshot(), &connected.flown),
        args,
        Some(connected.note.to_value()),
    );
    let view = view_for(&p, &world);
    let mut recorder = Recorder::create(&p.record)?;
    let kit = OnboardKit {
        vehicle: connected,
        world,
        gate,
        settings: p.settings.clone(),
        recorder: &mut recorder,
        operator: OperatorSource::World,
        sources: Sources::Onboard,
        swarm: None,
    };
    let transport = p.transport.clone();
    let OnboardEnd {
        driven: outcome,
        refused,
        ..
    } = run_onboard(kit, async |side, gate, settings, recorder| {
        let episode = Episode {
            side,
            gate,
            settings,
            recorder,
            header,
        };
        anyhow::Ok(run_session(transport, episode, view).await?)
    })
    .await?;
    if let Some(why) = refused {
        let refusal = Refusal::NotSimulated {
            reason: format!("after the autopilot came back: {why}"),
        };
        return Err(Stop::from(refusal).into());
    }
    Ok(finish(outcome, &p))
}

/// The world around a linked vehicle, placed at the mission's anchor.
fn twin(scenario: &Scenario, seed: u64, origin: Geo) -> World {
    World::new(
        scenario.clone(),
        WorldOptions {
            origin,
            ..WorldOptions::seeded(seed)
        },
    )
}
