//! Agent actions built from the catalogue's typed arguments (`alpha3_core::protocol::tools`),
//! so the policies that write their own turns (scripted, adversarial, the safe fallback) name
//! each tool and shape its arguments in one place. The JSON is what serde makes of the typed
//! arguments: keys in field order, optional fields left out when absent.

use alpha3_core::link::Slice;
use alpha3_core::protocol::Action;
use alpha3_core::protocol::tools::{
    CaptureArgs, CaptureKind, HoldArgs, LandArgs, NoArgs, Point2, Point3, SensorArgs,
    SetAltitudeArgs, SetSpeedArgs, SetWaypointArgs, SwarmCoordinationPayload, SwitchSliceArgs,
    TakeoffArgs,
};
use serde::Serialize;
use serde_json::Value;

/// `args` as JSON. The argument types hold numbers, strings and enums only, which always
/// serialise.
fn json_of(args: &impl Serialize) -> Value {
    serde_json::to_value(args).unwrap_or(Value::Null)
}

fn mcp(name: &str, args: &impl Serialize) -> Action {
    Action::mcp(name, json_of(args))
}

pub fn read_telemetry() -> Action {
    mcp("read_telemetry", &NoArgs {})
}

pub fn takeoff(altitude_m: f64) -> Action {
    mcp("takeoff", &TakeoffArgs { altitude_m })
}

/// Straight to `p` (local x, y, z), at `speed_mps` or the current cruise speed.
pub fn set_waypoint(p: [f64; 3], speed_mps: Option<f64>) -> Action {
    let waypoint = Point3 {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    mcp(
        "set_waypoint",
        &SetWaypointArgs {
            waypoint,
            speed_mps,
        },
    )
}

pub fn set_altitude(altitude_m: f64) -> Action {
    mcp("set_altitude", &SetAltitudeArgs { altitude_m })
}

pub fn set_speed(speed_mps: f64) -> Action {
    mcp("set_speed", &SetSpeedArgs { speed_mps })
}

/// Hold for `duration_s`, or until the next command when `None`.
pub fn hold(duration_s: Option<f64>) -> Action {
    mcp("hold", &HoldArgs { duration_s })
}

pub fn return_to_home() -> Action {
    mcp("return_to_home", &NoArgs {})
}

/// Land at the authorised site `site` (local x, y).
pub fn land_at(site: [f64; 2]) -> Action {
    let site = Point2 {
        x: site[0],
        y: site[1],
    };
    mcp("land", &LandArgs { site: Some(site) })
}

pub fn activate_sensor(sensor: &str) -> Action {
    let sensor = sensor.to_string();
    mcp("activate_sensor", &SensorArgs { sensor })
}

pub fn capture(sensor: &str, kind: CaptureKind) -> Action {
    let sensor = sensor.to_string();
    mcp("capture", &CaptureArgs { sensor, kind })
}

pub fn switch_network_slice(slice: Slice) -> Action {
    mcp("switch_network_slice", &SwitchSliceArgs { slice })
}

/// Proposes `proposal` (`formation`, `area_split`, `deconflict`) to the swarm peer `to`.
pub fn swarm_coordination(to: &str, proposal: &str) -> Action {
    let payload = SwarmCoordinationPayload {
        proposal: proposal.to_string(),
        area: None,
    };
    Action::a2a("swarm_coordination", to, json_of(&payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(a: &Action) -> String {
        serde_json::to_string(a).unwrap()
    }

    /// Each builder writes exactly the JSON the hand-written actions did (records are compared
    /// byte for byte).
    #[test]
    fn builders_write_the_same_json_as_the_hand_written_actions() {
        let (x, y, z) = (12.5, -3.25, 40.0);
        let pairs = [
            (read_telemetry(), Action::mcp("read_telemetry", json!({}))),
            (takeoff(z), Action::mcp("takeoff", json!({"altitude_m": z}))),
            (
                set_waypoint([x, y, z], None),
                Action::mcp(
                    "set_waypoint",
                    json!({"waypoint": {"x": x, "y": y, "z": z}}),
                ),
            ),
            (
                set_waypoint([x, y, z], Some(36.0)),
                Action::mcp(
                    "set_waypoint",
                    json!({"waypoint": {"x": x, "y": y, "z": z}, "speed_mps": 36.0}),
                ),
            ),
            (
                set_altitude(1.0e300),
                Action::mcp("set_altitude", json!({"altitude_m": 1.0e300})),
            ),
            (
                set_speed(36.0),
                Action::mcp("set_speed", json!({"speed_mps": 36.0})),
            ),
            (
                hold(Some(21.7)),
                Action::mcp("hold", json!({"duration_s": 21.7})),
            ),
            (hold(None), Action::mcp("hold", json!({}))),
            (return_to_home(), Action::mcp("return_to_home", json!({}))),
            (
                land_at([x, y]),
                Action::mcp("land", json!({"site": {"x": x, "y": y}})),
            ),
            (
                activate_sensor("rgb"),
                Action::mcp("activate_sensor", json!({"sensor": "rgb"})),
            ),
            (
                capture("rgb", CaptureKind::Clip),
                Action::mcp(
                    "capture",
                    json!({"sensor": "rgb", "kind": CaptureKind::Clip}),
                ),
            ),
            (
                switch_network_slice(Slice::Urllc),
                Action::mcp("switch_network_slice", json!({"slice": "URLLC"})),
            ),
            (
                swarm_coordination("swarm-1", "formation"),
                Action::a2a(
                    "swarm_coordination",
                    "swarm-1",
                    json!({"proposal": "formation"}),
                ),
            ),
        ];
        for (built, by_hand) in pairs {
            assert_eq!(text(&built), text(&by_hand));
        }
    }
}
