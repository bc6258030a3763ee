//! How `fly` and `mcp` reach a flight controller, in one place: the real-vehicle gate and the
//! unsigned-link check on the address alone (nothing is opened if they fail), then the link
//! (with its `.tlog`), the real-vehicle gate again on what the autopilot says it is, the wait
//! until it is ready to fly, the config's parameter writes, and the mission anchored at the
//! autopilot's home.

use crate::agent::anchor::Anchor;
use crate::agent::onboard::{Connection, anchor_mission, wait_ready_to_fly};
use crate::exit;
use crate::real_vehicle::{after_connect, before_connect};
use crate::unsigned_link::exposure;
use alpha3_core::config::{Address, Config};
use alpha3_core::scenario::Scenario;
use alpha3_hil::HilLink;
use alpha3_hil::simulator::SimulatorPolicy;
use anyhow::Context;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a command asks for.
#[derive(Debug, Clone)]
pub struct VehicleRequest<'a> {
    pub config: &'a Config,
    /// The address (`udpin:127.0.0.1:14540`, `serial:/dev/ttyAMA0:921600`).
    pub connect: &'a str,
    pub allow_real_vehicle: bool,
    pub allow_unsigned: bool,
    pub ready_timeout_s: u64,
    /// Where the link's telemetry log goes, if anywhere.
    pub tlog: Option<PathBuf>,
}

/// Why a command stops before flying: its exit code and what it prints (each line after the
/// command's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    pub code: u8,
    pub lines: Vec<String>,
}

impl Stop {
    /// Prints the lines after `command` (`alpha3 fly`) and gives the exit code.
    pub fn report(&self, command: &str) -> std::process::ExitCode {
        for line in &self.lines {
            eprintln!("{command}: {line}");
        }
        exit::code(self.code)
    }

    fn invalid(line: impl Into<String>) -> Self {
        Self {
            code: exit::INVALID,
            lines: vec![line.into()],
        }
    }

    fn failure(line: impl Into<String>) -> Self {
        Self {
            code: exit::FAILURE,
            lines: vec![line.into()],
        }
    }

    /// The refusal of a flight controller that is not provably simulated.
    pub fn not_simulated(reason: &str) -> Self {
        Self {
            code: exit::INVALID,
            lines: vec![
                format!("refusing to fly: {reason}"),
                "this flight controller is not provably simulated; pass --allow-real-vehicle to fly a real aircraft".into(),
            ],
        }
    }
}

/// A connected, ready and anchored flight controller.
#[derive(Debug)]
pub struct Connected {
    pub link: HilLink,
    pub anchor: Anchor,
    /// The scenario as flown: from the ground when the vehicle stands there.
    pub flown: Scenario,
    /// The record header's `vehicle_link` note: the address and peer, the real-vehicle
    /// gate's verdict and overrides, the `.tlog`, the parameters as the autopilot confirmed
    /// them, the anchor and the vehicle's clock rate.
    pub note: Value,
}

/// The checks on the address alone: it parses, the real-vehicle gate passes (or is
/// overridden, with a warning), and a link other machines can reach is signed (or allowed).
pub fn check_address(req: &VehicleRequest<'_>) -> Result<Address, Stop> {
    let address = Address::parse(req.connect).map_err(|e| Stop::invalid(e.to_string()))?;
    if let Some(v) = before_connect(&address) {
        if !req.allow_real_vehicle {
            return Err(Stop::not_simulated(v.reason()));
        }
        tracing::warn!(
            "flying a flight controller that is not provably simulated: {}",
            v.reason()
        );
    }
    if let Some(link) = &req.config.link
        && let Some(why) = exposure(&address, link)
    {
        if !req.allow_unsigned {
            return Err(Stop {
                code: exit::INVALID,
                lines: vec![
                    format!("refusing to fly: {why}"),
                    "sign the link ([link] signing_key_env, require_signing = true) or pass --allow-unsigned".into(),
                ],
            });
        }
        tracing::warn!("flying over an exposed, unsigned link: {why}");
    }
    Ok(address)
}

/// Connects to `address` (as [`check_address`] passed it) as `req` says and anchors
/// `scenario` at the autopilot's home. `prefix` starts the progress line (`alpha3 fly`). A link
/// that cannot be opened is an error; every other reason not to fly is a [`Stop`], with the
/// link closed.
pub async fn connect_vehicle(
    req: &VehicleRequest<'_>,
    address: Address,
    scenario: &Scenario,
    prefix: &str,
) -> anyhow::Result<Result<Connected, Stop>> {
    let mut conn = match Connection::from_config(req.config, Some(req.connect)) {
        Ok(c) => c,
        Err(e) => return Ok(Err(Stop::invalid(e.to_string()))),
    };
    conn.ready_timeout_ms = req.ready_timeout_s * 1000;
    conn.tlog = req.tlog.clone();
    // Asked at connect and on every reconnect; unless allowed, the link itself refuses every
    // command while the autopilot is not proven a simulator.
    conn.simulator = if req.allow_real_vehicle {
        SimulatorPolicy::Check
    } else {
        SimulatorPolicy::Require
    };
    let link = conn
        .connect()
        .await
        .context("connecting to the flight controller")?;
    let verdict = after_connect(&address, &link.status());
    if !verdict.is_simulated() {
        if !req.allow_real_vehicle {
            link.close().await;
            return Ok(Err(Stop::not_simulated(verdict.reason())));
        }
        tracing::warn!(
            "flying a flight controller that is not provably simulated: {}",
            verdict.reason()
        );
    }
    eprintln!("{prefix}: {}", verdict.reason());
    if let Err(e) = wait_ready_to_fly(&link, Duration::from_secs(req.ready_timeout_s)).await {
        link.close().await;
        return Ok(Err(Stop::failure(e.to_string())));
    }
    let param_writes = match param_writes(req.config, &link).await {
        Ok(w) => w,
        Err(e) => {
            link.close().await;
            return Ok(Err(Stop::invalid(e.to_string())));
        }
    };
    let anchor = match anchor_mission(&link, scenario).await {
        Ok(a) => a,
        Err(e) => {
            link.close().await;
            return Ok(Err(Stop::failure(e.to_string())));
        }
    };
    let mut flown = scenario.clone();
    if anchor.on_ground {
        flown.spawn.xyz[2] = 0.0;
    }
    let note = json!({
        "connect": address.to_string(),
        "peer": link.status().peer.map(|p| p.to_string()),
        "simulated": verdict.is_simulated(),
        "real_vehicle_gate": verdict.reason(),
        "allow_real_vehicle": req.allow_real_vehicle,
        "allow_unsigned": req.allow_unsigned,
        "tlog": conn.tlog.as_ref().map(|p| p.display().to_string()),
        "param_writes": param_writes,
        "anchor": anchor,
        "clock_rate": link.vehicle_clock().map(|c| c.rate),
        "battery": "autopilot",
    });
    Ok(Ok(Connected {
        link,
        anchor,
        flown,
        note,
    }))
}

/// Writes the config's `[link] param_writes` (alpha3-hil refuses protected names the config
/// did not list) and returns what the autopilot confirmed, for the record.
async fn param_writes(config: &Config, link: &HilLink) -> Result<Value, alpha3_hil::HilError> {
    let Some(writes) = config.link.as_ref().map(|l| &l.param_writes) else {
        return Ok(json!({}));
    };
    if writes.is_empty() {
        return Ok(json!({}));
    }
    let list: Vec<(String, f64)> = writes.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let done = link.write_params(list).await?;
    let mut out = serde_json::Map::new();
    for (name, value) in done {
        tracing::warn!(param = %name, %value, "autopilot parameter written (named in the config)");
        out.insert(name, json!(value.as_f64()));
    }
    Ok(Value::Object(out))
}

/// `DIR/<id>.tlog`, or `<id>-2.tlog`, `-3`, … when an earlier run's log is there.
pub fn free_tlog_path(dir: &Path, id: &str) -> PathBuf {
    let first = dir.join(format!("{id}.tlog"));
    if !first.exists() {
        return first;
    }
    (2u32..)
        .map(|n| dir.join(format!("{id}-{n}.tlog")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_gets_its_own_telemetry_log() {
        let dir = tempfile::tempdir().unwrap();
        let a = free_tlog_path(dir.path(), "ep");
        assert_eq!(a, dir.path().join("ep.tlog"));
        std::fs::write(&a, b"").unwrap();
        let b = free_tlog_path(dir.path(), "ep");
        assert_eq!(b, dir.path().join("ep-2.tlog"));
    }
}
