//! The record header's `vehicle_link` note: what the vehicle was and how it was reached, one
//! shape for `fly`, `mcp --connect` and `sitl`.

use crate::agent::anchor::Anchor;
use serde::Serialize;

/// Which battery the gate, the agent and the truth read in an episode (one per episode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BatterySource {
    /// The twin's: the scenario's pack flown along the autopilot's path (`sitl`: a SITL's own
    /// battery is a timer or a stock pack that says nothing of the scenario's vehicle).
    Twin,
    /// The autopilot's own report (`fly`, `mcp --connect`: all truth is the telemetry).
    Autopilot,
}

/// How the vehicle of an episode was reached, for the record's header.
#[derive(Debug, Clone, Serialize)]
pub struct VehicleLinkNote {
    /// The address connected to.
    pub connect: String,
    /// Where the autopilot's frames came from.
    pub peer: Option<String>,
    /// The autopilot and vehicle type from its HEARTBEAT.
    pub autopilot: Option<String>,
    /// The real-vehicle gate found it a simulator on this machine.
    pub simulated: bool,
    /// The real-vehicle gate's reason.
    pub real_vehicle_gate: String,
    pub allow_real_vehicle: bool,
    pub allow_unsigned: bool,
    /// The telemetry log of this run.
    pub tlog: Option<String>,
    /// The parameters written, as the autopilot confirmed them.
    pub param_writes: serde_json::Map<String, serde_json::Value>,
    /// Where the mission was placed on the earth.
    pub anchor: Anchor,
    /// The autopilot's clock against ours (a sped-up SITL runs faster than 1).
    pub clock_rate: Option<f64>,
    pub battery: BatterySource,
    /// The plan flown, when the mission came from one: where each limit came from and the
    /// check before take-off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<super::mission_source::PlanNote>,
}

impl VehicleLinkNote {
    /// The note as the header's JSON.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// Puts the note into a record header's config as `vehicle_link`.
    pub fn note_in(&self, header: &mut alpha3_core::record::Event) {
        if let alpha3_core::record::Event::Header { config, .. } = header
            && let Some(map) = config.as_object_mut()
        {
            map.insert("vehicle_link".into(), self.to_value());
        }
    }
}
