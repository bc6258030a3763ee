//! `alpha3 sim-vehicle`: the built-in world as a PX4 SITL-like vehicle on MAVLink, on PX4's
//! SITL ports, until SIGINT or SIGTERM — so QGroundControl, MAVSDK, pymavlink or `alpha3 fly`
//! can connect to it as they would to PX4 SITL (see `alpha3_sim::endpoint`). With
//! `--autopilot ardupilot` it is ArduCopter 4.7 SITL instead, on ArduPilot's companion port.

use crate::agent::anchor::{origin_for, scenario_home};
use crate::exit::{self, Halt, Stop};
use alpha3_core::frames::Geo;
use alpha3_sim::endpoint::{
    ARDUPILOT_REMOTE_BASE, Autopilot, Endpoint, EndpointOptions, GCS_LOCAL_BASE, GCS_REMOTE_PORT,
    Impairment, ONBOARD_LOCAL_BASE, ONBOARD_REMOTE_BASE, StartFaults,
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
    /// Where the vehicle boots, on the ground, as `LAT,LON,ALT_AMSL_M` (PX4 SITL's default
    /// home, Zurich, unless given). The scenario is placed so that its home (the spawn point,
    /// on the ground) is here, as `sitl` and `fly` place it at a real autopilot's home.
    #[arg(long, value_parser = parse_home, default_value = "47.397742,8.545594,488")]
    pub home: Geo,
    /// Run the vehicle's clock this many times faster than real time (PX4's
    /// `PX4_SIM_SPEED_FACTOR`); the telemetry's time stamps follow it.
    #[arg(long, default_value_t = 1.0)]
    pub speed_factor: f64,
    /// Boot at the scenario's spawn point (in the air when it is), not on the ground at home:
    /// the old behaviour, for tools that want the mission already flying.
    #[arg(long)]
    pub spawn_airborne: bool,
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
    /// Fault: from the first disarm after an arming (landed between two missions), the GNSS
    /// fix is lost this many seconds of vehicle time while the reported position drifts
    /// `--drift-m` away — what a loaded PX4 SITL did (issue 30 item 12).
    #[arg(long, default_value_t = 0.0)]
    pub fix_lost_after_disarm_s: f64,
    /// How far the position drifts while the fix is lost, m (north-east).
    #[arg(long, default_value_t = 25_000)]
    pub drift_m: u32,
    /// Fault: from the first arming, no data streams for this many seconds of vehicle time,
    /// and no heartbeat for the first half (commands are still acknowledged).
    #[arg(long, default_value_t = 0.0)]
    pub stall_after_arm_s: f64,
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
    Halt::end("alpha3 sim-vehicle", run_checked(args))
}

fn run_checked(args: &SimVehicleArgs) -> Result<ExitCode, Halt> {
    // Instance 254 is the last with a system id (255) and ports that fit.
    let instance = u8::try_from(args.instance)
        .ok()
        .filter(|n| *n < u8::MAX)
        .ok_or_else(|| {
            Stop::usage(format!(
                "--instance {} is out of range (0..=254)",
                args.instance
            ))
        })?;
    // Read through the scenario loader: the file's size is checked before it is parsed.
    let mut scenario = alpha3_sim::scenario::read_scenario(&args.scenario)
        .map_err(|e| Stop::invalid(format!("{}: {e}", args.scenario.display())))?;
    // Like PX4 and ArduPilot SITL: on the ground at home, disarmed; the scenario's home is
    // that spot.
    let origin = origin_for(args.home, scenario_home(&scenario));
    if !args.spawn_airborne {
        scenario.spawn.xyz[2] = 0.0;
    }
    let world = World::new(
        scenario,
        WorldOptions {
            origin,
            ..WorldOptions::seeded(args.seed)
        },
    );
    let mut options = match args.autopilot {
        SimAutopilot::Px4 => EndpointOptions::px4_sitl(instance),
        SimAutopilot::Ardupilot => EndpointOptions::ardupilot_sitl(instance),
    };
    options.speed_factor = args.speed_factor;
    if let Some(s) = args.ready_s {
        if !(0.0..=3600.0).contains(&s) {
            return Err(Stop::usage(format!("--ready-s {s} is not in [0, 3600]")).into());
        }
        let ms = (s * 1000.0) as u64;
        options.boot.arm_ready_ms = ms.max(options.boot.heartbeat_ms);
        options.boot.home_ms = options
            .boot
            .home_ms
            .min(ms / 2)
            .max(options.boot.heartbeat_ms);
    }
    options.faults = StartFaults {
        fix_lost_after_disarm_ms: fault_ms(
            "--fix-lost-after-disarm-s",
            args.fix_lost_after_disarm_s,
        )?,
        drift_m: args.drift_m,
        stall_after_arm_ms: fault_ms("--stall-after-arm-s", args.stall_after_arm_s)?,
    };
    options.check().map_err(|e| Stop::usage(e.to_string()))?;
    if args.impairment == LinkImpairment::World {
        for link in &mut options.links {
            link.impairment = Impairment::World {
                refresh_ms: WORLD_REFRESH_MS,
            };
        }
    }
    super::on_current_thread(serve(world, options, instance))
}

/// A fault's length in seconds as milliseconds, or why it cannot be.
fn fault_ms(flag: &str, s: f64) -> Result<u64, Stop> {
    if !(0.0..=3600.0).contains(&s) {
        return Err(Stop::usage(format!("{flag} {s} is not in [0, 3600]")));
    }
    Ok((s * 1000.0) as u64)
}

async fn serve(world: World, options: EndpointOptions, instance: u8) -> Result<ExitCode, Halt> {
    let n = u16::from(instance);
    let autopilot = options.autopilot;
    let endpoint = Endpoint::spawn(world, options)
        .await
        .map_err(|e| Stop::failure(e.to_string()))?;
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
        (Err(e), _) => Err(e.into()),
        (_, Err(e)) => Err(Stop::failure(e.to_string()).into()),
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

/// `LAT,LON,ALT_AMSL_M`.
fn parse_home(text: &str) -> Result<Geo, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [lat, lon, alt] = parts.as_slice() else {
        return Err(format!("{text:?}: expected LAT,LON,ALT_AMSL_M"));
    };
    let num = |s: &str, what: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{what} {s:?} is not a number"))
    };
    let home = Geo {
        lat_deg: num(lat, "latitude")?,
        lon_deg: num(lon, "longitude")?,
        alt_amsl_m: num(alt, "altitude")?,
    };
    if home.lat_deg.abs() > 89.0 || home.lon_deg.abs() > 180.0 || home.alt_amsl_m.abs() > 9_000.0 {
        return Err(format!(
            "{text:?} is not a place on the earth (|lat| <= 89, |lon| <= 180, |alt| <= 9000 m)"
        ));
    }
    Ok(home)
}
