//! `alpha3 fly`: onboard, attached to a flight controller through `alpha3-hil`, with a person
//! on the operator channel (stdin and, optionally, a local socket for a ground-station bridge).
//!
//! Before anything is opened, and again once the autopilot is heard and on every reconnect,
//! the real-vehicle gate ([`crate::real_vehicle`]) refuses a flight controller that is not
//! provably a simulator on this machine, unless `--allow-real-vehicle` is given. A link that
//! other machines can reach must be signed, unless `--allow-unsigned` is given
//! ([`crate::unsigned_link`]). Parameters named in `[link]
//! param_writes` are written after connecting (and nothing else: fence, failsafe, arming and
//! system-id parameters are refused by `alpha3-hil` unless named), each one logged and noted
//! in the record's header.
//!
//! The record is `OUT/records/<episode-id>.jsonl`, flushed every turn. Started again after a
//! crash with the same episode id, `fly` keeps every whole line of the earlier run (a torn last
//! line is cut), notes the restart, holds the vehicle and flies on in the same record; a record
//! that already ended is never appended to. Each run writes its own `.tlog` next to it.

use crate::agent::onboard::{
    BatterySource, EpisodeKit, LeftInAir, OnboardEnd, OnboardKit, Refusal, VehicleRequest,
    check_address, connect_vehicle_for, episode_kit, free_tlog_path, run_onboard,
};
use crate::agent::{LinkedVehicle, OperatorSource, Sources, run_episode_on};
use crate::episode_setup::AfterSuccess;
use crate::exit::{self, Halt, Stop};
use crate::operator_channel::{OperatorChannel, OperatorSocket};
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::{Recorder, is_complete};
use alpha3_core::command::Command;
use alpha3_core::config::Config;
use alpha3_core::gate::evaluate_failsafe;
use alpha3_core::record::Event;
use alpha3_core::vehicle::VehicleLink;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct FlyArgs {
    /// Runtime config (vehicle, limits, policy, link, watchdog, record).
    #[arg(long)]
    pub config: PathBuf,
    #[command(flatten)]
    pub mission: super::mission_file::MissionArgs,
    /// Override the config's flight-controller address (`serial:/dev/ttyAMA0:921600`, `udpin:0.0.0.0:14540`).
    #[arg(long)]
    pub connect: Option<String>,
    /// Allow a flight controller that is not provably simulated.
    #[arg(long)]
    pub allow_real_vehicle: bool,
    /// Allow an unsigned link that other machines can reach (a serial radio, a socket not
    /// bound to loopback).
    #[arg(long)]
    pub allow_unsigned: bool,
    /// Seed of the world around the vehicle (peers, sensors, network model).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The metric the record names for its scoring (`alpha3 score` reads it back).
    #[arg(long, default_value = alpha3_core::METRIC_VERSION)]
    pub metric: alpha3_core::score::MetricVersion,
    /// Where records and telemetry logs go (default: the config's `record.dir`, else out/fly).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The record's name; a restart with the same id continues its record.
    #[arg(long)]
    pub episode_id: Option<super::record_place::EpisodeId>,
    /// Also take operator messages on a local socket: `unix:PATH` or `tcp:127.0.0.1:PORT`.
    #[arg(long)]
    pub operator_socket: Option<String>,
    /// Do not read operator messages from stdin.
    #[arg(long)]
    pub no_stdin: bool,
    /// How long each operator turn waits for a message before the agent carries on, ms.
    #[arg(long, default_value_t = 30_000)]
    pub operator_wait_ms: u64,
    /// The episode's turn budget (agent and operator turns; default: the benchmark's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub max_turns: Option<u32>,
    /// The episode's tool-action budget (default: the benchmark's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_tool_actions: Option<u32>,
    /// How long to wait for the autopilot's heartbeat, home and position, and then for it to
    /// be ready to fly (ArduPilot SITL takes ~40 s after boot), seconds.
    #[arg(long, default_value_t = 120)]
    pub ready_timeout_s: u64,
    /// Fly as a member of a swarm: the swarm network's router (`alpha3 swarm` starts one, or
    /// any MAVLink router), as `HOST:PORT`. Mates' positions and signed A2A intents come from
    /// it; ours go to it.
    #[arg(long, requires_all = ["swarm_system", "swarm_roster", "swarm_name"])]
    pub swarm_hub: Option<std::net::SocketAddr>,
    /// Our MAVLink system id in the swarm: our autopilot's.
    #[arg(long)]
    pub swarm_system: Option<u8>,
    /// Every member's system id, comma separated (A2A from anyone else is dropped).
    #[arg(long, value_delimiter = ',')]
    pub swarm_roster: Vec<u8>,
    /// Our name in the swarm.
    #[arg(long)]
    pub swarm_name: Option<String>,
    /// The environment variable holding the swarm's signing key (64 hex digits).
    #[arg(long, default_value = "ALPHA3_SWARM_KEY")]
    pub swarm_key_env: String,
}

pub fn run(args: &FlyArgs) -> anyhow::Result<ExitCode> {
    Halt::end("alpha3 fly", super::on_current_thread(run_checked(args)))
}

async fn run_checked(args: &FlyArgs) -> Result<ExitCode, Halt> {
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("reading {}", args.config.display()))?;
    let config = Config::from_toml(&text)
        .map_err(|e| Stop::invalid(format!("{}: {e}", args.config.display())))?;
    let link_cfg = config.link.as_ref().map(|l| l.connect.clone());
    let connect =
        args.connect.clone().or(link_cfg).ok_or_else(|| {
            Stop::invalid(format!("{}: no [link] section", args.config.display()))
        })?;
    let mut request = VehicleRequest {
        config: &config,
        connect: &connect,
        allow_real_vehicle: args.allow_real_vehicle,
        allow_unsigned: args.allow_unsigned,
        ready_timeout_s: args.ready_timeout_s,
        start_timeout_s: args.ready_timeout_s,
        tlog: None,
        left_in_air: LeftInAir::Keep,
        battery: BatterySource::Autopilot,
    };
    // The real-vehicle gate and the unsigned-link check, on the address alone: nothing is
    // opened if they fail.
    let address = check_address(&request).map_err(Stop::from)?;
    let mission = super::mission_file::MissionFile::read(&args.mission)?;
    let socket = args
        .operator_socket
        .as_deref()
        .map(OperatorSocket::parse)
        .transpose()
        .map_err(|e| Stop::usage(format!("--operator-socket {e}")))?;
    // Nothing at the socket's path but a stale socket is ours to replace: refuse before
    // anything is opened.
    if let Some(socket) = &socket {
        socket
            .preflight()
            .map_err(|e| Stop::invalid(format!("--operator-socket {e}")))?;
    }
    let base_dir = args.config.parent().unwrap_or(Path::new("."));
    let super::record_place::RecordPlace {
        out,
        episode_id,
        record,
    } = super::record_place::RecordPlace::new(
        "fly",
        &config,
        args.out.as_deref(),
        mission.path(),
        args.seed,
        args.episode_id.as_ref(),
    );
    if record.exists() && is_complete(&record) {
        return Err(Stop::invalid(format!(
            "{} already ended; choose another --episode-id",
            record.display()
        ))
        .into());
    }
    request.tlog = Some(free_tlog_path(&out.join("tlogs"), &episode_id));
    // The swarm's key is read before anything is opened: a missing key is the user's to fix.
    let swarm_key = match args.swarm_hub {
        Some(_) => Some(
            alpha3_hil::wire::SigningKey::from_env(&args.swarm_key_env)
                .map_err(|e| Stop::invalid(format!("--swarm-key-env: {e}")))?,
        ),
        None => None,
    };
    let connected = connect_vehicle_for(&request, address, mission.source(), "alpha3 fly")
        .await
        .map_err(Stop::from)?;

    let EpisodeKit {
        world,
        gate,
        mut settings,
        mut policy,
    } = match episode_kit(
        &config,
        &connected.flown,
        args.seed,
        base_dir,
        None,
        connected.anchor.origin,
        |settings| {
            // The swarm file's budgets (`--max-turns`, `--max-tool-actions`).
            if let Some(turns) = args.max_turns {
                settings.max_turns = turns;
            }
            if let Some(actions) = args.max_tool_actions {
                settings.max_tool_actions = actions;
            }
        },
    ) {
        Ok(kit) => kit,
        Err(e) => {
            connected.link.close().await;
            return Err(e.into());
        }
    };
    let swarm = match (args.swarm_hub, swarm_key) {
        (Some(hub), Some(key)) => {
            let options = crate::swarm::SwarmOptions {
                hub,
                system_id: args.swarm_system.unwrap_or(1),
                roster: args.swarm_roster.clone(),
                key,
                name: args.swarm_name.clone().unwrap_or_default(),
                pace: alpha3_core::swarm::Pace {
                    cruise_mps: gate.vehicle().cruise_speed_mps,
                    climb_mps: gate.vehicle().max_climb_mps,
                    descent_mps: gate.vehicle().max_descent_mps,
                },
                max_speed_mps: gate.vehicle().max_speed_mps,
                min_separation_m: gate.limits().min_separation_m,
            };
            let frame = alpha3_core::frames::LocalFrame::new(connected.anchor.origin);
            match crate::swarm::SwarmMember::open(options, frame) {
                Ok(member) => Some(member),
                Err(e) => {
                    connected.link.close().await;
                    return Err(anyhow::anyhow!("joining the swarm at {hub}: {e}").into());
                }
            }
        }
        _ => None,
    };
    // A plan that ends with a return to launch ends with the vehicle landed at home; one that
    // ends with a landing, landed at its last waypoint.
    settings.after_success = match connected.note.plan.as_ref() {
        Some(p) if p.ends_with_return => AfterSuccess::ReturnAndLand,
        Some(p) if p.ends_with_landing => AfterSuccess::Land,
        _ => AfterSuccess::Stay,
    };
    let resumed = record.exists();
    let mut recorder = if resumed {
        let (r, parsed) = Recorder::resume(&record)?;
        eprintln!(
            "alpha3 fly: continuing {} after an unclean stop: {} lines kept{}",
            record.display(),
            parsed.lines.len(),
            if parsed.torn_tail {
                ", a torn last line cut"
            } else {
                ""
            }
        );
        r
    } else {
        Recorder::create(&record)?
    };
    let band = [gate.limits().min_altitude_m, gate.limits().max_altitude_m];
    let mut header = header_event(
        &EpisodeIdentity {
            episode_id: &episode_id,
            scenario: &connected.flown.name,
            seed: args.seed,
            metric: args.metric,
        },
        &config,
        &initial_state(&connected.flown, &connected.link.snapshot(), band),
    );
    connected.note.note_in(&mut header);
    let channel = OperatorChannel::open(!args.no_stdin, socket.as_ref())
        .await
        .context("opening the operator channel")?;
    if !resumed {
        recorder.append(0, header)?;
        recorder.flush()?;
    }
    let kit = OnboardKit {
        vehicle: connected,
        world,
        gate,
        settings,
        recorder: &mut recorder,
        operator: OperatorSource::Channel {
            channel,
            wait: Duration::from_millis(args.operator_wait_ms),
        },
        sources: Sources::Onboard,
        swarm,
    };
    let OnboardEnd {
        driven: outcome,
        foreign,
        refused,
        swarm,
        ..
    } = run_onboard(kit, async |side, gate, settings, recorder| {
        if resumed {
            restart_hold(side, recorder).await?;
        }
        policy.warm_up().await;
        anyhow::Ok(run_episode_on(side, policy.as_mut(), gate, settings, recorder).await?)
    })
    .await?;
    eprintln!(
        "alpha3 fly: {} after {} turns ({} tool actions, {} tokens); record: {}",
        outcome.reason,
        outcome.turns,
        outcome.tool_actions,
        outcome.tokens,
        record.display()
    );
    report_safety(&out, &episode_id, &outcome.safety);
    if let Some(report) = swarm {
        let path = record.with_extension("swarm.json");
        match serde_json::to_vec_pretty(&report) {
            Ok(bytes) => {
                if let Err(e) = std::fs::write(&path, bytes) {
                    eprintln!("alpha3 fly: writing {}: {e}", path.display());
                }
            }
            Err(e) => eprintln!("alpha3 fly: swarm report: {e}"),
        }
        eprintln!(
            "alpha3 fly: swarm: {} intents sent, {} taken from {} mates; {}",
            report.intents_sent,
            report.intents_taken,
            report.peers.len(),
            path.display()
        );
    }
    if let Some(note) = foreign {
        eprintln!("alpha3 fly: {note}");
    }
    if let Some(why) = refused {
        let refusal = Refusal::NotSimulated {
            reason: format!("after the autopilot came back: {why}"),
        };
        return Err(Stop::from(refusal).into());
    }
    // A model that never answered: the record says the episode failed, and so does the exit
    // code (1 for a refused key, as for a missing one; 3 otherwise).
    if let Some(why) = policy.no_answer() {
        let code = if why.is_invalid_input() {
            exit::INVALID
        } else {
            exit::FAILURE
        };
        return Err(Stop {
            code,
            lines: vec![format!("the episode failed: {why}")],
        }
        .into());
    }
    Ok(exit::code(exit::OK))
}

/// A restart after a crash: the vehicle was left to its autopilot; hold it before anything
/// else, and say so in the record.
async fn restart_hold<L>(side: &mut LinkedVehicle<L>, recorder: &mut Recorder) -> anyhow::Result<()>
where
    L: VehicleLink + crate::agent::LinkHealth,
{
    let now = side.now_ms();
    let snap = side.snapshot();
    if snap.is_airborne()
        && let Some(approved) = evaluate_failsafe(&snap, &Command::Hold, now).approved()
    {
        let receipt = side.execute(approved).await;
        tracing::info!(accepted = receipt.accepted, "hold after the restart");
    }
    recorder.append(
        now,
        Event::Watchdog {
            action: "hold".into(),
            reason: "restart: alpha3 fly started again after an unclean stop".into(),
        },
    )?;
    recorder.flush()?;
    Ok(())
}

/// How the safety path kept up (issue 31), on stderr and as `OUT/safety/<episode-id>.json`.
fn report_safety(out: &Path, episode_id: &str, timing: &crate::agent::SafetyTiming) {
    let s = timing.summary();
    for (phase, p) in [("deciding", &s.deciding), ("otherwise", &s.calm)] {
        eprintln!(
            "alpha3 fly: safety path, {phase}: telemetry age {} ms, gate {} µs, ticks late {} ms \
             (p50/p99/max of {} judgements, {} ticks)",
            p.telemetry_age_ms.short(0),
            p.gate_us.short(0),
            p.tick_late_ms.short(0),
            p.telemetry_age_ms.n,
            p.tick_late_ms.n,
        );
    }
    timing.write(&out.join("safety"), episode_id);
}
