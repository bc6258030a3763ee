//! `alpha3 check --plan FILE [--connect ADDR]`: the whole mission checked before take-off.
//!
//! Every leg as the agent would ask for it — arming, take-off, each waypoint, the return — goes
//! through the gate from where the gate's own model says the vehicle would be, with its clock
//! and battery there. With `--connect`, the airspace is the plan's intersected with the
//! autopilot's own (its FENCE and RALLY plans downloaded, its fence parameters read), the home
//! is the autopilot's, and the battery is what it reports. Nothing is sent to the autopilot but
//! reads. Exit 1 when a leg is refused, naming its plan item.

use crate::agent::onboard::Connection;
use crate::exit::{self, Halt, Stop};
use crate::mission_plan::{
    CheckedPlan, PlanInput, check_plan, read_autopilot_airspace, read_plan_files,
};
use alpha3_core::config::{Config, Forecast};
use alpha3_core::frames::Enu;
use alpha3_core::plan_mission::{AutopilotAirspace, Placement};
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Runtime config: the vehicle, the limits and, for `--connect`, the link.
    #[arg(long)]
    pub config: PathBuf,
    /// The mission: a QGroundControl `.plan`, or a `QGC WPL 110` mission (`.waypoints`).
    #[arg(long)]
    pub plan: PathBuf,
    /// A WPL fence list beside a `.waypoints` mission.
    #[arg(long)]
    pub fence: Option<PathBuf>,
    /// A WPL rally list beside a `.waypoints` mission.
    #[arg(long)]
    pub rally: Option<PathBuf>,
    /// Read the autopilot's fence, rally points, limits, home and battery over this link
    /// (`udpin:127.0.0.1:14540`; `auto` takes the config's `[link] connect`).
    #[arg(long)]
    pub connect: Option<String>,
    /// Print the answer as one JSON document.
    #[arg(long)]
    pub json: bool,
    /// How long to wait for the autopilot's heartbeat, home and position, seconds.
    #[arg(long, default_value_t = 60)]
    pub ready_timeout_s: u64,
    /// Forecast mean wind, m/s (replaces the config's `[forecast]`; without either, still air).
    #[arg(long)]
    pub wind_mps: Option<f64>,
    /// Where the forecast wind blows from, degrees clockwise from true north.
    #[arg(long, requires = "wind_mps", default_value_t = 0.0)]
    pub wind_from_deg: f64,
    /// Forecast gusts above the mean wind, m/s.
    #[arg(long, requires = "wind_mps", default_value_t = 0.0)]
    pub gust_mps: f64,
}

pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    Halt::end("alpha3 check", super::on_current_thread(run_checked(args)))
}

async fn run_checked(args: &CheckArgs) -> Result<ExitCode, Halt> {
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("reading {}", args.config.display()))?;
    let mut config = Config::from_toml(&text)
        .map_err(|e| Stop::invalid(format!("{}: {e}", args.config.display())))?;
    if let Some(wind_mps) = args.wind_mps {
        config.forecast = Some(Forecast {
            wind_mps,
            wind_from_deg: args.wind_from_deg,
            gust_mps: args.gust_mps,
        });
        let problems = config.validate();
        if !problems.is_empty() {
            let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Err(Stop::usage(format!("the forecast: {}", text.join("; "))).into());
        }
    }
    let input = read_plan_files(&args.plan, args.fence.as_deref(), args.rally.as_deref())
        .map_err(|e| Stop::invalid(e.to_string()))?;
    let (autopilot, at, battery_pct, against) = match &args.connect {
        None => {
            let home = input.planned_home.ok_or_else(|| {
                Stop::invalid(format!(
                    "{}: no planned home in the file; give --connect to check from the autopilot's",
                    args.plan.display()
                ))
            })?;
            let at = Placement {
                home,
                vehicle: Enu::default(),
            };
            (
                AutopilotAirspace::default(),
                at,
                100.0,
                "the plan alone".to_string(),
            )
        }
        Some(connect) => connected(&config, connect, args.ready_timeout_s).await?,
    };
    let checked = check_plan(&input, &autopilot, at, battery_pct, &config)
        .map_err(|e| Stop::invalid(format!("{}: {e}", args.plan.display())))?;
    if args.json {
        println!(
            "{}",
            document(&input, &checked, &against, config.forecast.as_ref())
        );
    } else {
        print_text(&input, &checked, &against, config.forecast.as_ref());
    }
    Ok(exit::code(if checked.check.passed() {
        exit::OK
    } else {
        exit::INVALID
    }))
}

/// The autopilot's airspace, where it stands and its battery, read over `connect`.
async fn connected(
    config: &Config,
    connect: &str,
    ready_timeout_s: u64,
) -> Result<(AutopilotAirspace, Placement, f64, String), Stop> {
    let address = (connect != "auto").then_some(connect);
    let mut conn =
        Connection::from_config(config, address).map_err(|e| Stop::invalid(e.to_string()))?;
    conn.ready_timeout_ms = ready_timeout_s * 1000;
    let link = conn
        .connect()
        .await
        .map_err(|e| Stop::failure(format!("{}: {e}", conn.address)))?;
    let read = read_autopilot_airspace(&link).await;
    let snap = alpha3_core::vehicle::VehicleLink::snapshot(&link);
    let status = link.status();
    link.close().await;
    let autopilot = read.map_err(|e| Stop::failure(e.to_string()))?;
    let at = Placement {
        home: snap.home,
        vehicle: snap.position,
    };
    let who = status
        .autopilot
        .map(|a| format!("{:?}", a.autopilot))
        .unwrap_or_else(|| "the autopilot".into());
    let battery = if snap.unreported.battery {
        100.0
    } else {
        snap.battery.remaining_pct
    };
    Ok((autopilot, at, battery, format!("{who} at {}", conn.address)))
}

/// The wind the plan was judged in, in words.
fn wind_words(forecast: Option<&Forecast>) -> String {
    match forecast {
        Some(f) => format!(
            "{:.1} m/s from {:.0}°, gusts {:.1} m/s above it (forecast)",
            f.wind_mps, f.wind_from_deg, f.gust_mps
        ),
        None => "still air (no [forecast] in the config, no --wind-mps)".into(),
    }
}

fn document(
    input: &PlanInput,
    c: &CheckedPlan,
    against: &str,
    forecast: Option<&Forecast>,
) -> serde_json::Value {
    let band = [
        c.gate.limits().min_altitude_m,
        c.gate.limits().max_altitude_m,
    ];
    json!({
        "plan": input.name,
        "against": against,
        "passed": c.check.passed(),
        "sources": c.planned.sources,
        "band_m": band,
        "forecast": forecast,
        "wind": wind_words(forecast),
        "check": c.check,
    })
}

fn print_text(input: &PlanInput, c: &CheckedPlan, against: &str, forecast: Option<&Forecast>) {
    let s = &c.planned.sources;
    let l = c.gate.limits();
    println!(
        "plan {}: {} items, checked against {against}",
        input.name,
        input.items.len()
    );
    for line in &s.items {
        println!("  {line}");
    }
    println!("fence: {}", s.fence.join(" ∩ "));
    if !s.no_fly.is_empty() {
        println!("no-fly zones: {}", s.no_fly.join("; "));
    }
    if !s.landing_sites.is_empty() {
        println!("landing sites: {}", s.landing_sites.join("; "));
    }
    println!(
        "band: {}–{} m above home (max from {}; min from {})",
        l.min_altitude_m, l.max_altitude_m, s.max_altitude, s.min_altitude
    );
    println!("wind: {}", wind_words(forecast));
    for f in &c.check.findings {
        println!(
            "{}: {} {}: {} (limit {:.1}, measured {:.1})",
            f.leg, f.severity, f.id, f.reason, f.limit, f.measured
        );
    }
    let refused = c
        .check
        .findings
        .iter()
        .filter(|f| f.severity == "deny")
        .count();
    println!(
        "{}: {} legs, {refused} refused; {:.0} s, {:.1} Wh, {:.0} % left at home",
        if c.check.passed() { "PASSED" } else { "FAILED" },
        c.check.legs,
        c.check.duration_s,
        c.check.energy_wh,
        c.check.battery_at_end_pct
    );
}
