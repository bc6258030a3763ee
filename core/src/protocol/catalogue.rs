//! The tool catalogue: every MCP tool and A2A task the agent may use, with its class and the JSON
//! Schemas of its arguments and result. Rendered into prompts, into grammars for constrained
//! decoding, and into an MCP `tools/list` document.

use super::tools::*;
use crate::link::Slice;
use schemars::{JsonSchema, generate::SchemaSettings};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// How the slice policy treats a tool's traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    /// Moves or commands the vehicle: URLLC, never deferred.
    ControlCritical,
    /// Bulk sensor data: eMBB (or URLLC); deferred under hard link conditions.
    Sensing,
    /// Reads state: any slice, small.
    Monitoring,
}

impl ToolClass {
    /// Whether a call of this class on `slice` fits (ALPHA3.md §2, NR `s`).
    pub fn fits_slice(self, slice: Slice) -> bool {
        match self {
            ToolClass::ControlCritical => slice == Slice::Urllc,
            ToolClass::Sensing => matches!(slice, Slice::Embb | Slice::Urllc),
            ToolClass::Monitoring => true,
        }
    }
}

/// MCP tool or A2A task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Mcp,
    A2a,
}

/// One entry of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub kind: ToolKind,
    pub description: &'static str,
    pub class: ToolClass,
    /// JSON Schema (draft 2020-12) of the arguments (A2A: the payload).
    pub args_schema: Value,
    /// JSON Schema (draft 2020-12) of the result (A2A: the answer payload).
    pub result_schema: Value,
}

/// A self-contained draft 2020-12 schema for `T` (definitions inlined where possible).
pub fn schema_of<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let generator = settings.into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

pub(crate) fn spec<A: JsonSchema, R: JsonSchema>(
    name: &'static str,
    kind: ToolKind,
    class: ToolClass,
    description: &'static str,
) -> ToolSpec {
    ToolSpec {
        name,
        kind,
        description,
        class,
        args_schema: schema_of::<A>(),
        result_schema: schema_of::<R>(),
    }
}

/// The whole catalogue, MCP tools first, in a fixed order.
pub fn catalogue() -> Vec<ToolSpec> {
    use ToolClass::*;
    use ToolKind::*;
    vec![
        spec::<NoArgs, TelemetryResult>(
            "read_telemetry",
            Mcp,
            Monitoring,
            "Read the vehicle's pose (local metres, heading), speed, battery, arming state and mode.",
        ),
        spec::<NoArgs, crate::link::LinkSample>(
            "read_network",
            Mcp,
            Monitoring,
            "Read the measured link: slice, latency, jitter, loss, throughput and edge-server load.",
        ),
        spec::<TakeoffArgs, CommandResult>(
            "takeoff",
            Mcp,
            ControlCritical,
            "Arm if needed and climb vertically to altitude_m above home. Only on the ground at home or an authorised site.",
        ),
        spec::<SetWaypointArgs, CommandResult>(
            "set_waypoint",
            Mcp,
            ControlCritical,
            "Fly straight to a local point (x east, y north, z up, metres). The whole path is checked against fences, no-fly zones, altitude band, energy and traffic.",
        ),
        spec::<SetAltitudeArgs, CommandResult>(
            "set_altitude",
            Mcp,
            ControlCritical,
            "Climb or descend to altitude_m above home at the current horizontal position.",
        ),
        spec::<SetSpeedArgs, CommandResult>(
            "set_speed",
            Mcp,
            ControlCritical,
            "Set the cruise speed for the following legs, m/s.",
        ),
        spec::<HoldArgs, CommandResult>(
            "hold",
            Mcp,
            ControlCritical,
            "Hold the current position, optionally for duration_s seconds.",
        ),
        spec::<NoArgs, CommandResult>(
            "return_to_home",
            Mcp,
            ControlCritical,
            "Return home at the configured return altitude and land there.",
        ),
        spec::<LandArgs, CommandResult>(
            "land",
            Mcp,
            ControlCritical,
            "Land in place or at an authorised landing site.",
        ),
        spec::<CheckGeofenceArgs, GeofenceResult>(
            "check_geofence",
            Mcp,
            Monitoring,
            "Check a point (the local frame of set_waypoint and read_telemetry) against the limits the gate holds a waypoint to, without moving: inside the geofence and outside every no-fly zone (where it is now) by the position-uncertainty margin, and within the altitude band of the configuration and the scenario. The path there is judged when the move is asked for.",
        ),
        spec::<SensorArgs, SensorResult>(
            "activate_sensor",
            Mcp,
            Sensing,
            "Switch a payload or on-board sensor on.",
        ),
        spec::<SensorArgs, SensorResult>(
            "deactivate_sensor",
            Mcp,
            Sensing,
            "Switch a payload or on-board sensor off.",
        ),
        spec::<CaptureArgs, CaptureResult>(
            "capture",
            Mcp,
            Sensing,
            "Capture an image, clip or scan with an active sensor and send it down the link.",
        ),
        spec::<SwitchSliceArgs, SwitchSliceResult>(
            "switch_network_slice",
            Mcp,
            ControlCritical,
            "Move the control link to another network slice (URLLC, eMBB, mMTC); takes effect after a short delay.",
        ),
        spec::<CollisionAvoidancePayload, CollisionAvoidanceAnswer>(
            "collision_avoidance",
            A2a,
            ControlCritical,
            "Share pose and planned path with a peer; it answers with the collision risk, closest approach and a suggested resolution.",
        ),
        spec::<StatusUpdatePayload, AckAnswer>(
            "status_update",
            A2a,
            Monitoring,
            "Tell a peer or the ground station the mission status.",
        ),
        spec::<HandoverPayload, HandoverAnswer>(
            "handover",
            A2a,
            ControlCritical,
            "Hand a task or mission segment over to a peer.",
        ),
        spec::<SwarmCoordinationPayload, SwarmCoordinationAnswer>(
            "swarm_coordination",
            A2a,
            ControlCritical,
            "Propose a formation, area split or deconfliction to the swarm.",
        ),
    ]
}

/// Looks a tool or task up by name.
pub fn find<'a>(catalogue: &'a [ToolSpec], name: &str) -> Option<&'a ToolSpec> {
    catalogue.iter().find(|t| t.name == name)
}

/// The MCP `tools/list` result document for the MCP tools (A2A tasks are not MCP tools).
pub fn mcp_tools_list(catalogue: &[ToolSpec]) -> Value {
    let tools: Vec<Value> = catalogue
        .iter()
        .filter(|t| t.kind == ToolKind::Mcp)
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.args_schema,
                "outputSchema": t.result_schema,
                "annotations": {
                    "readOnlyHint": t.class == ToolClass::Monitoring,
                    "alpha3Class": t.class,
                },
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// The A2A tasks, in the same shape, for peers' agent cards.
pub fn a2a_tasks_list(catalogue: &[ToolSpec]) -> Value {
    let tasks: Vec<Value> = catalogue
        .iter()
        .filter(|t| t.kind == ToolKind::A2a)
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "payloadSchema": t.args_schema,
                "answerSchema": t.result_schema,
                "alpha3Class": t.class,
            })
        })
        .collect();
    json!({ "tasks": tasks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_has_every_tool_and_task_of_the_design() {
        let c = catalogue();
        for name in [
            "read_telemetry",
            "read_network",
            "takeoff",
            "set_waypoint",
            "set_altitude",
            "set_speed",
            "hold",
            "return_to_home",
            "land",
            "check_geofence",
            "activate_sensor",
            "deactivate_sensor",
            "capture",
            "switch_network_slice",
        ] {
            assert_eq!(
                find(&c, name).map(|t| t.kind),
                Some(ToolKind::Mcp),
                "{name}"
            );
        }
        for name in [
            "collision_avoidance",
            "status_update",
            "handover",
            "swarm_coordination",
        ] {
            assert_eq!(
                find(&c, name).map(|t| t.kind),
                Some(ToolKind::A2a),
                "{name}"
            );
        }
        let mut names: Vec<_> = c.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), c.len(), "duplicate tool names");
    }

    #[test]
    fn every_schema_is_a_valid_draft_2020_12_object_schema() {
        for t in catalogue() {
            for s in [&t.args_schema, &t.result_schema] {
                assert_eq!(
                    s["$schema"], "https://json-schema.org/draft/2020-12/schema",
                    "{}",
                    t.name
                );
                assert_eq!(s["type"], "object", "{}", t.name);
                jsonschema::draft202012::meta::validate(s)
                    .unwrap_or_else(|e| panic!("{}: {e}", t.name));
            }
        }
    }

    #[test]
    fn args_schemas_accept_good_and_reject_bad_arguments() {
        let c = catalogue();
        let wp = find(&c, "set_waypoint").unwrap();
        let v = jsonschema::validator_for(&wp.args_schema).unwrap();
        assert!(v.is_valid(&json!({"waypoint": {"x": 1.0, "y": 2.0, "z": 30.0}, "speed_mps": 5})));
        assert!(v.is_valid(&json!({"waypoint": {"x": 1, "y": 2, "z": 30}})));
        assert!(!v.is_valid(&json!({"waypoint": {"x": "1", "y": 2, "z": 30}})));
        assert!(!v.is_valid(&json!({"waypoint": {"x": 1, "y": 2}})));
        assert!(!v.is_valid(&json!({"waypoint": {"x": 1, "y": 2, "z": 3}, "geofence": "off"})));
        let slice = find(&c, "switch_network_slice").unwrap();
        let v = jsonschema::validator_for(&slice.args_schema).unwrap();
        assert!(v.is_valid(&json!({"slice": "URLLC"})));
        assert!(!v.is_valid(&json!({"slice": "5G"})));
    }

    #[test]
    fn tools_list_has_the_mcp_shape() {
        let doc = mcp_tools_list(&catalogue());
        let tools = doc["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 14);
        for t in tools {
            assert!(t["name"].is_string() && t["description"].is_string());
            assert_eq!(t["inputSchema"]["type"], "object");
        }
        assert_eq!(
            a2a_tasks_list(&catalogue())["tasks"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
    }

    #[test]
    fn classes_fit_slices_as_the_metric_says() {
        assert!(ToolClass::ControlCritical.fits_slice(Slice::Urllc));
        assert!(!ToolClass::ControlCritical.fits_slice(Slice::Embb));
        assert!(ToolClass::Sensing.fits_slice(Slice::Embb));
        assert!(ToolClass::Sensing.fits_slice(Slice::Urllc));
        assert!(!ToolClass::Sensing.fits_slice(Slice::Mmtc));
        assert!(ToolClass::Monitoring.fits_slice(Slice::Mmtc));
    }
}
