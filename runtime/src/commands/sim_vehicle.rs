//! `alpha3 sim-vehicle`: the built-in world as a PX4 SITL-like vehicle on MAVLink, on PX4's
//! SITL ports, until SIGINT or SIGTERM — so QGroundControl, MAVSDK, pymavlink or `alpha3 fly`
//! can connect to it as they would to PX4 SITL (see `alpha3_sim::endpoint`). With
//! `--autopilot ardupilot` it is ArduCopter 4.7 SITL instead, on ArduPilot's companion port.

use crate::exit;
use alpha3_sim::endpoint::{
    ARDUPILOT_REMOTE_BASE, Autopilot, Endpoint, EndpointOptions, GCS_LOCAL_BASE, GCS_REMOTE_PORT,
    Impairment, ONBOARD_LOCAL_BASE, ONBOARD_REMOTE_BASE,
};
use alpha3_sim::{World, WorldOptions};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// How often a world-driven impairment takes a new network sample, ms.
const WORLD_REFRESH_MS: u64 = 100;

#[derive(Debug, Args)]
pub struct SimVehicleArgs {
    /// Scenario file (UAVBench JSON).
    #[arg(long)]
    pub scenario: PathBuf,
    /// SITL instance: ports 14540+N, system id N+1.
    #[arg(long, default_value_t = 0)]
    pub instance: u16,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// What happens to frames on the links: nothing, or the scenario's 6G network model
    /// (latency, jitter, loss, throughput, loss windows).
    #[arg(long, value_enum, default_value_t = LinkImpairment::None)]
    pub impairment: LinkImpairment,
    /// Which SITL to imitate: PX4 (ports 14540+N, system N+1), or ArduCopter 4.7 (sends to
    /// 127.0.0.1:14660+N, system 1, nothing streamed until asked, ~40 s to get ready).
    #[arg(long, value_enum, default_value_t = SimAutopilot::Px4)]
    pub autopilot: SimAutopilot,
    /// Seconds after start before the autopilot may arm, instead of its own (PX4 ~4 s,
    /// ArduCopter ~38 s); home comes at half of it at the latest. For short tests.
    #[arg(long)]
    pub ready_s: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimAutopilot {
    Px4,
    Ardupilot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LinkImpairment {
    None,
    World,
}

pub fn run(args: &SimVehicleArgs) -> anyhow::Result<ExitCode> {
    // Instance 254 is the last with a system id (255) and ports that fit.
    let Some(instance) = u8::try_from(args.instance).ok().filter(|n| *n < u8::MAX) else {
        eprintln!(
            "alpha3 sim-vehicle: --instance {} is out of range (0..=254)",
            args.instance
        );
        return Ok(exit::code(exit::USAGE));
    };
    let text = match std::fs::read_to_string(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "alpha3 sim-vehicle: cannot read {}: {e}",
                args.scenario.display()
            );
            return Ok(exit::code(exit::INVALID));
        }
    };
    let world = match World::from_json(&text, WorldOptions::seeded(args.seed)) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("alpha3 sim-vehicle: {}: {e}", args.scenario.display());
            return Ok(exit::code(exit::INVALID));
        }
    };
    let mut options = match args.autopilot {
        SimAutopilot::Px4 => EndpointOptions::px4_sitl(instance),
        SimAutopilot::Ardupilot => EndpointOptions::ardupilot_sitl(instance),
    };
    if let Some(s) = args.ready_s {
        if !(0.0..=3600.0).contains(&s) {
            eprintln!("alpha3 sim-vehicle: --ready-s {s} is not in [0, 3600]");
            return Ok(exit::code(exit::USAGE));
        }
        let ms = (s * 1000.0) as u64;
        options.boot.arm_ready_ms = ms.max(options.boot.heartbeat_ms);
        options.boot.home_ms = options
            .boot
            .home_ms
            .min(ms / 2)
            .max(options.boot.heartbeat_ms);
    }
    if args.impairment == LinkImpairment::World {
        for link in &mut options.links {
            link.impairment = Impairment::World {
                refresh_ms: WORLD_REFRESH_MS,
            };
        }
    }
    super::on_current_thread(serve(world, options, instance))
}

async fn serve(world: World, options: EndpointOptions, instance: u8) -> anyhow::Result<ExitCode> {
    let n = u16::from(instance);
    let autopilot = options.autopilot;
    let endpoint = match Endpoint::spawn(world, options).await {
        Ok(e) => e,
        Err(e) => {
            eprintln!("alpha3 sim-vehicle: {e}");
            return Ok(exit::code(exit::FAILURE));
        }
    };
    if autopilot == Autopilot::ArduCopter {
        let port = ARDUPILOT_REMOTE_BASE + n;
        eprintln!(
            "alpha3 sim-vehicle: ArduCopter SITL instance {instance}, system {}: companion link \
             udp →127.0.0.1:{port} (connect udpin:127.0.0.1:{port}). Ctrl-C stops.",
            endpoint.system_id(),
        );
    } else {
        eprintln!(
            "alpha3 sim-vehicle: PX4 SITL instance {instance}, system {}: companion link \
             udp {}→127.0.0.1:{} (connect udpin:0.0.0.0:{}), ground-station link udp {}→{}. \
             Ctrl-C stops.",
            endpoint.system_id(),
            ONBOARD_LOCAL_BASE + n,
            ONBOARD_REMOTE_BASE + n,
            ONBOARD_REMOTE_BASE + n,
            GCS_LOCAL_BASE + n,
            GCS_REMOTE_PORT,
        );
    }
    let stopped = wait_for_stop(&endpoint).await;
    let status = endpoint.status();
    let result = endpoint.shutdown().await;
    for (i, link) in status.links.iter().enumerate() {
        eprintln!(
            "alpha3 sim-vehicle: link {i}: {} frames in, {} frames out ({} bytes)",
            link.rx_frames, link.tx_frames, link.tx_bytes
        );
    }
    match (stopped, result) {
        (Ok(()), Ok(())) => Ok(exit::code(exit::OK)),
        (Err(e), _) => Err(e),
        (_, Err(e)) => {
            eprintln!("alpha3 sim-vehicle: {e}");
            Ok(exit::code(exit::FAILURE))
        }
    }
}

/// SIGINT or SIGTERM, or the endpoint dying on its own.
async fn wait_for_stop(endpoint: &Endpoint) -> anyhow::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let dead = async {
        while endpoint.is_running() {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    };
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
        () = dead => {}
    }
    Ok(())
}
