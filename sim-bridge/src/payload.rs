//! Sensors and payloads the agent switches on and captures with. A capture is recorded at the
//! vehicle's true position, so the mission evaluator can tell whether a payload task was done.

use crate::scenario::{payload_power_w, sensor_names};
use crate::vec3::V3;
use alpha3_core::protocol::tools::{CaptureKind, CaptureResult, CommandStatus, SensorResult};
use alpha3_core::scenario::Scenario;

/// Fitted sensors that navigate rather than image.
const NAVIGATION: [&str; 5] = ["gnss", "imu", "magnetometer", "barometer", "radar"];
/// Sizes of captures, bytes.
const IMAGE_BYTES: u64 = 5_000_000;
const SCAN_BYTES: u64 = 20_000_000;
const CLIP_S: f64 = 10.0;

/// One capture as it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    pub id: String,
    pub sensor: String,
    pub kind: CaptureKind,
    pub t_s: f64,
    /// True position when taken.
    pub position: V3,
    pub bytes: u64,
}

#[derive(Debug, Clone)]
pub struct Payloads {
    names: Vec<String>,
    power_w: Vec<f64>,
    bitrate_mbps: Vec<f64>,
    active: Vec<bool>,
    captures: Vec<Capture>,
}

impl Payloads {
    pub fn new(s: &Scenario) -> Self {
        let names = sensor_names(s);
        let bitrate_mbps = names
            .iter()
            .map(|n| {
                s.uav
                    .payloads
                    .iter()
                    .find(|p| {
                        p.get("id")
                            .or_else(|| p.get("type"))
                            .and_then(|v| v.as_str())
                            == Some(n)
                    })
                    .and_then(|p| p.get("data")?.get("bitrate_mbps")?.as_f64())
                    .unwrap_or(4.0)
            })
            .collect();
        Self {
            power_w: names.iter().map(|n| payload_power_w(s, n)).collect(),
            active: vec![false; names.len()],
            bitrate_mbps,
            names,
            captures: Vec::new(),
        }
    }

    /// The fitted sensor `name` refers to: exact, else the first whose name contains it
    /// (`rgb` finds `camera_rgb`, `thermal` finds `thermal_camera_lwir`).
    fn resolve(&self, name: &str) -> Option<usize> {
        let lower = name.to_ascii_lowercase();
        self.names
            .iter()
            .position(|n| *n == lower)
            .or_else(|| self.names.iter().position(|n| n.contains(&lower)))
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn result(
        status: CommandStatus,
        sensor: &str,
        active: bool,
        message: Option<String>,
    ) -> SensorResult {
        SensorResult {
            status,
            sensor: sensor.to_string(),
            active,
            message,
        }
    }

    pub fn activate(&mut self, name: &str, offline: &[String]) -> SensorResult {
        let Some(i) = self.resolve(name) else {
            return Self::result(
                CommandStatus::Failed,
                name,
                false,
                Some(format!("no sensor `{name}` fitted")),
            );
        };
        let fitted = self.names[i].clone();
        if offline.contains(&fitted) {
            return Self::result(
                CommandStatus::Failed,
                &fitted,
                false,
                Some(format!("`{fitted}` is offline")),
            );
        }
        self.active[i] = true;
        Self::result(CommandStatus::Completed, &fitted, true, None)
    }

    pub fn deactivate(&mut self, name: &str) -> SensorResult {
        let Some(i) = self.resolve(name) else {
            return Self::result(
                CommandStatus::Failed,
                name,
                false,
                Some(format!("no sensor `{name}` fitted")),
            );
        };
        self.active[i] = false;
        Self::result(
            CommandStatus::Completed,
            &self.names[i].clone(),
            false,
            None,
        )
    }

    /// Captures with `name` at time `t_s` and true position `position`.
    pub fn capture(
        &mut self,
        name: &str,
        kind: CaptureKind,
        t_s: f64,
        position: V3,
        offline: &[String],
    ) -> CaptureResult {
        let failed = |sensor: &str| CaptureResult {
            status: CommandStatus::Failed,
            sensor: sensor.to_string(),
            capture_id: None,
            bytes: 0,
        };
        let Some(i) = self.resolve(name) else {
            return failed(name);
        };
        let sensor = self.names[i].clone();
        if !self.active[i] || offline.contains(&sensor) || NAVIGATION.contains(&sensor.as_str()) {
            return failed(&sensor);
        }
        let bytes = match kind {
            CaptureKind::Image => IMAGE_BYTES,
            CaptureKind::Scan => SCAN_BYTES,
            CaptureKind::Clip => (self.bitrate_mbps[i] * 125_000.0 * CLIP_S) as u64,
        };
        let id = format!("cap-{:04}", self.captures.len() + 1);
        self.captures.push(Capture {
            id: id.clone(),
            sensor: sensor.clone(),
            kind,
            t_s,
            position,
            bytes,
        });
        CaptureResult {
            status: CommandStatus::Completed,
            sensor,
            capture_id: Some(id),
            bytes,
        }
    }

    /// Power of the active payloads, watts.
    pub fn active_power_w(&self) -> f64 {
        self.active
            .iter()
            .zip(&self.power_w)
            .filter(|(a, _)| **a)
            .map(|(_, p)| p)
            .sum()
    }

    pub fn captures(&self) -> &[Capture] {
        &self.captures
    }

    pub fn is_active(&self, name: &str) -> bool {
        self.resolve(name).is_some_and(|i| self.active[i])
    }
}
