//! How to reach the flight controller, and what the link dropped on the way.

use super::kit::OnboardError;
use alpha3_core::config::{Address, Config};
use alpha3_hil::session::SessionConfig;
use alpha3_hil::simulator::SimulatorPolicy;
use alpha3_hil::{ConnectOptions, HilError, HilLink};
use std::path::PathBuf;
use std::time::Duration;

/// How long a busy local port is tried again before connecting fails.
const PORT_BUSY_WAIT: Duration = Duration::from_secs(10);

/// How to reach the flight controller.
#[derive(Debug, Clone)]
pub struct Connection {
    pub address: Address,
    pub session: SessionConfig,
    pub ready_timeout_ms: u64,
    pub required_failsafes: Vec<String>,
    pub tlog: Option<PathBuf>,
    /// Whether to ask the autopilot if it is a simulator, and to fly nothing else (`fly`).
    pub simulator: SimulatorPolicy,
}

impl Connection {
    /// From the config's `[link]` section (required), with `connect` overriding its address.
    /// Positions on the link are relative to the autopilot's home until [`super::anchor_mission`]
    /// puts them in the mission's frame.
    pub fn from_config(config: &Config, connect: Option<&str>) -> Result<Self, OnboardError> {
        let link = config
            .link
            .as_ref()
            .ok_or_else(|| OnboardError::Config("no [link] section".into()))?;
        let text = connect.unwrap_or(&link.connect);
        let address = Address::parse(text).map_err(|e| OnboardError::Config(e.to_string()))?;
        let mut session = SessionConfig::from_link_config(link)?;
        session.cruise_speed_mps = config.vehicle.as_ref().map(|v| v.cruise_speed_mps);
        Ok(Self {
            address,
            session,
            ready_timeout_ms: 30_000,
            required_failsafes: link.required_failsafes.clone(),
            tlog: None,
            simulator: SimulatorPolicy::Ignore,
        })
    }

    /// Opens the link and waits for the autopilot. A local port still held for a moment (the
    /// previous episode's socket, another program just leaving it) is tried again for up to
    /// 10 s before the error is given.
    pub async fn connect(&self) -> Result<HilLink, HilError> {
        let started = tokio::time::Instant::now();
        loop {
            let opened = HilLink::connect_with(
                self.address.clone(),
                self.session.clone(),
                ConnectOptions {
                    ready_timeout_ms: self.ready_timeout_ms,
                    preflight: true,
                    required_failsafes: self.required_failsafes.clone(),
                    tlog: self.tlog.clone(),
                    simulator: self.simulator,
                },
            )
            .await;
            match opened {
                Err(HilError::Open { source, .. })
                    if source.kind() == std::io::ErrorKind::AddrInUse
                        && started.elapsed() < PORT_BUSY_WAIT =>
                {
                    tracing::warn!(address = %self.address, "local port busy; trying again");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                other => return other,
            }
        }
    }
}

/// How many frames others than the autopilot sent, in a line for the operator; the link
/// dropped them (it stays bound to the autopilot it heard first).
pub fn foreign_note(status: &alpha3_hil::LinkStatus) -> Option<String> {
    let f = status.foreign;
    let s = f.last?;
    let from = s
        .from
        .map_or_else(|| "the link".to_string(), |a| a.to_string());
    Some(format!(
        "{} frames from others than the autopilot dropped (last: system {} component {} from {from})",
        f.count, s.system_id, s.component_id
    ))
}
