//! Argument and result types of every tool and A2A task. The JSON Schemas of the catalogue are
//! generated from these types, so the schema and the code cannot drift apart.

use crate::link::Slice;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A point in the mission's local frame, metres: east (x) and north (y) of the scenario's
/// origin, up (z) from the ground at home; the frame of the scenario's areas and waypoints and
/// of the telemetry's pose.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// A horizontal point in the local frame, metres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point2 {
    pub x: f64,
    pub y: f64,
}

/// A pose: position (metres, local ENU) and heading (degrees from north, clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Pose {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw: f64,
}

/// No arguments.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeoffArgs {
    /// Target height above home, metres.
    pub altitude_m: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetWaypointArgs {
    pub waypoint: Point3,
    /// Cruise speed for this leg, m/s; the current speed when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mps: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetAltitudeArgs {
    /// Height above home, metres.
    pub altitude_m: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSpeedArgs {
    pub speed_mps: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HoldArgs {
    /// How long to hold, seconds; until the next command when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LandArgs {
    /// An authorised landing site (home or a listed site); in place when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<Point2>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckGeofenceArgs {
    pub point: Point3,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SensorArgs {
    /// A payload id or on-board sensor name (`rgb`, `thermal`, `lidar`, …).
    pub sensor: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureArgs {
    pub sensor: String,
    /// What to capture.
    #[serde(default)]
    pub kind: CaptureKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureKind {
    #[default]
    Image,
    /// A short video clip (bulk data: eMBB).
    Clip,
    Scan,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSliceArgs {
    pub slice: Slice,
}

// ---- results ----

/// Outcome of a command-type tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommandStatus {
    /// Sent and confirmed by telemetry.
    Completed,
    /// Sent and acknowledged; in progress.
    Accepted,
    /// Refused by the safety gate (see `findings`).
    Denied,
    /// Held back by the slice policy until the link allows it.
    Deferred,
    /// Queued by the slice policy, sent when the link recovers.
    Buffered,
    /// The vehicle refused or did not confirm in time.
    Failed,
}

impl CommandStatus {
    const ALL: [CommandStatus; 6] = [
        CommandStatus::Completed,
        CommandStatus::Accepted,
        CommandStatus::Denied,
        CommandStatus::Deferred,
        CommandStatus::Buffered,
        CommandStatus::Failed,
    ];

    /// The command outcome a tool's result reports in its `status`, the one reader of it.
    ///
    /// `None` when the result reports none: a reading (`get_telemetry`, …), an A2A answer
    /// (its `"ok"`) or no result at all. `None` is neither done nor refused: whoever needs a
    /// confirmed outcome (a leg flown) counts it as unconfirmed, whoever looks for refusals
    /// as no refusal.
    pub fn of(result: &Value) -> Option<Self> {
        let text = result["status"].as_str()?;
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The serialized spelling (`"denied"`, …), for text that quotes the status.
    pub const fn as_str(self) -> &'static str {
        match self {
            CommandStatus::Completed => "completed",
            CommandStatus::Accepted => "accepted",
            CommandStatus::Denied => "denied",
            CommandStatus::Deferred => "deferred",
            CommandStatus::Buffered => "buffered",
            CommandStatus::Failed => "failed",
        }
    }
}

/// A gate finding as the agent sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FindingObservation {
    /// Stable dotted id, e.g. `gate.geofence.outside`.
    pub id: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandResult {
    pub status: CommandStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingObservation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TelemetryResult {
    pub pose: Pose,
    pub speed_mps: f64,
    pub battery_pct: f64,
    pub armed: bool,
    pub mode: String,
    pub airborne: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GeofenceResult {
    /// A move ending here passes the gate's tests of its end point.
    pub inside: bool,
    /// How far inside every limit the point is once the gate's margins are taken off, metres
    /// (negative when outside one).
    pub margin_m: f64,
    /// What a move ending here would be refused for, in the gate's words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingObservation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SensorResult {
    pub status: CommandStatus,
    pub sensor: String,
    pub active: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CaptureResult {
    pub status: CommandStatus,
    pub sensor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_id: Option<String>,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SwitchSliceResult {
    pub status: CommandStatus,
    pub slice: Slice,
    /// When the switch takes effect, milliseconds from now.
    pub effective_after_ms: u64,
}

// ---- A2A payloads and answers ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollisionAvoidancePayload {
    pub pose: Point3,
    /// The planned path ahead, in order.
    pub planned_path: Vec<Point3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mps: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CollisionAvoidanceAnswer {
    pub collision_risk: bool,
    /// Closest point of approach between the two plans, metres.
    pub cpa_distance_m: f64,
    /// Time to the closest point of approach, seconds.
    pub cpa_time_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusUpdatePayload {
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pose: Option<Point3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_pct: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AckAnswer {
    pub ack: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoverPayload {
    /// The task or mission segment handed over.
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waypoints: Option<Vec<Point3>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HandoverAnswer {
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwarmCoordinationPayload {
    /// What is proposed: `formation`, `area_split`, `deconflict`.
    pub proposal: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<Vec<Point2>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SwarmCoordinationAnswer {
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_reads_back_as_it_serializes() {
        for s in CommandStatus::ALL {
            let text = serde_json::to_value(s).unwrap();
            assert_eq!(text, s.as_str());
            assert_eq!(CommandStatus::of(&json!({ "status": text })), Some(s));
        }
    }

    #[test]
    fn a_result_without_a_command_status_has_none() {
        for r in [
            json!({"pose": {}}),
            json!({"status": "ok", "payload": {}}),
            json!({"status": 3}),
            Value::Null,
        ] {
            assert_eq!(CommandStatus::of(&r), None, "{r}");
        }
    }
}
