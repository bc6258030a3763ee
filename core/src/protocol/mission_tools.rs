//! The handed-over mission's tools: upload the plan's checked route to the autopilot, start,
//! pause and resume it, and read where it is. Outside the α3-Bench catalogue on purpose
//! ([`super::catalogue`] stays the benchmark's, so scores stay comparable); offered only where
//! a plan is flown on an autopilot (`fly --plan`, `mcp --plan` with `--connect`).

use super::catalogue::{ToolClass, ToolKind, ToolSpec, spec};
use super::tools::{CommandResult, CommandStatus, FindingObservation, NoArgs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What `upload_mission` did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MissionUploadResult {
    pub status: CommandStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Items uploaded (take-off, points, the end).
    pub items: usize,
    /// The route's points in the local frame, in flight order.
    pub points: Vec<[f64; 3]>,
    /// What the gate found on the route (a refused leg: why nothing was uploaded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingObservation>,
}

/// Where the handed-over mission is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MissionStatusResult {
    /// A route is uploaded and the gate holds it.
    pub uploaded: bool,
    /// The route's points.
    pub points: usize,
    /// The point the autopilot flies to now (0: the first); `points` once past the last.
    pub next_point: usize,
    /// The autopilot's current mission item, as it numbers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_item: Option<u16>,
    /// The autopilot flies the mission now (PX4 Mission, ArduPilot AUTO).
    pub flying: bool,
    pub mode: String,
    /// Why the gate paused the mission last, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_for: Option<String>,
}

pub const UPLOAD_MISSION: &str = "upload_mission";
pub const START_MISSION: &str = "start_mission";
pub const PAUSE_MISSION: &str = "pause_mission";
pub const RESUME_MISSION: &str = "resume_mission";
pub const MISSION_STATUS: &str = "mission_status";

/// The handed-over mission's tools, in the order they are listed.
pub fn mission_tools() -> Vec<ToolSpec> {
    use ToolClass::*;
    use ToolKind::*;
    vec![
        spec::<NoArgs, MissionUploadResult>(
            UPLOAD_MISSION,
            Mcp,
            ControlCritical,
            "Upload the plan's checked route to the autopilot as its mission: a take-off, each waypoint (with the ways around no-fly zones the check found), then the plan's end. The gate judges every leg of the route from here first; nothing is uploaded when it refuses one.",
        ),
        spec::<NoArgs, CommandResult>(
            START_MISSION,
            Mcp,
            ControlCritical,
            "Arm if needed and hand the uploaded mission to the autopilot (PX4 Mission mode, ArduPilot AUTO). Approved only when every leg left passes the gate. The gate keeps judging what is left while the autopilot flies, and pauses the mission (a hold) when a leg would no longer pass. Returns when the mission is done or paused.",
        ),
        spec::<NoArgs, CommandResult>(
            PAUSE_MISSION,
            Mcp,
            ControlCritical,
            "Hold where the vehicle is. The mission stays uploaded; resume_mission goes on from its current item.",
        ),
        spec::<NoArgs, CommandResult>(
            RESUME_MISSION,
            Mcp,
            ControlCritical,
            "Go on with the uploaded mission from its current item, if every leg left passes the gate now.",
        ),
        spec::<NoArgs, MissionStatusResult>(
            MISSION_STATUS,
            Mcp,
            Monitoring,
            "Where the handed-over mission is: uploaded or not, the point the autopilot flies to, whether it flies the mission now, and why the gate paused it last.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{catalogue, find};

    #[test]
    fn the_mission_tools_are_not_in_the_benchmark_catalogue() {
        let c = catalogue();
        for t in mission_tools() {
            assert!(find(&c, t.name).is_none(), "{}", t.name);
        }
        assert_eq!(mission_tools().len(), 5);
    }
}
