//! A small deterministic stand-in for the world, to drive an LLM policy through a short run of
//! decisions without the built-in world (the policy tests and the LLM benchmark, [`super::llama::speed`]):
//! commands take effect at once, every tool answers plausibly, the link turns hard for two turns
//! and the operator speaks once.

use super::decision::DecisionContext;
use alpha3_core::frames::{Enu, Geo};
use alpha3_core::link::{LinkSample, Slice};
use alpha3_core::protocol::{Action, AgentTurn, Situation, ToolObservation};
use alpha3_core::snapshot::{FlightMode, LandedState, VehicleSnapshot};
use serde_json::{Value, json};

/// The mission every synthetic episode flies.
pub const MISSION: &str = "Take off to 30 m, fly to the survey point (150, 100, 30), capture an rgb image there, then return home and land.";

/// Decisions after which the link is hard.
const HARD_TURNS: [usize; 2] = [4, 5];
/// The decision after which the operator speaks.
const OPERATOR_TURN: usize = 3;

fn link(k: usize) -> LinkSample {
    if HARD_TURNS.contains(&k) {
        LinkSample {
            slice: Slice::Embb,
            lat_ms: 64.0,
            jitter_ms: 9.0,
            loss_pct: 2.0,
            throughput_mbps: 3.5,
            edge_load: 0.86,
        }
    } else {
        LinkSample {
            slice: Slice::Urllc,
            lat_ms: 6.0 + k as f64 * 0.5,
            jitter_ms: 1.0,
            loss_pct: 0.1,
            throughput_mbps: 48.0,
            edge_load: 0.3,
        }
    }
}

/// The situation of the first decision: on the ground at home, link good.
pub fn first_situation() -> Situation {
    Situation {
        snapshot: VehicleSnapshot::on_ground_at_home(Geo::default(), 0),
        link: link(0),
        observations: Vec::new(),
        operator: None,
    }
}

pub fn first_context() -> DecisionContext {
    DecisionContext::first(MISSION, first_situation())
}

/// The situation after `turn` was executed in `prev`; `k` is the 1-based number of the decision
/// just made.
pub fn next_situation(prev: &Situation, turn: &AgentTurn, k: usize) -> Situation {
    let mut v = prev.snapshot;
    v.time_ms += 5_000;
    v.battery.remaining_pct = (v.battery.remaining_pct - 1.5).max(0.0);
    let mut observations = Vec::new();
    for a in &turn.actions {
        let result = execute(&mut v, a);
        observations.push(ToolObservation {
            name: a.name().to_owned(),
            result,
        });
    }
    Situation {
        snapshot: v,
        link: link(k),
        observations,
        operator: (k == OPERATOR_TURN)
            .then(|| String::from("Also check the geofence at (150, 100, 30) before you go.")),
    }
}

fn num(args: &Value, path: &str) -> Option<f64> {
    args.pointer(path).and_then(Value::as_f64)
}

/// Applies an action at once and answers as a tool would.
fn execute(v: &mut VehicleSnapshot, a: &Action) -> Value {
    let args = a.arguments();
    let done = json!({"status": "completed"});
    match a.name() {
        "read_telemetry" => json!({
            "pose": {"x": v.position.x, "y": v.position.y, "z": v.position.z, "yaw": v.yaw_deg},
            "speed_mps": 0.0, "battery_pct": v.battery.remaining_pct, "armed": v.armed,
            "mode": "hold", "airborne": v.is_airborne()}),
        "read_network" => json!({"status": "completed"}),
        "takeoff" => {
            v.armed = true;
            v.landed = LandedState::InAir;
            v.mode = FlightMode::Offboard;
            v.position.z = num(args, "/altitude_m").unwrap_or(30.0);
            done
        }
        "set_waypoint" => {
            if let (Some(x), Some(y), Some(z)) = (
                num(args, "/waypoint/x"),
                num(args, "/waypoint/y"),
                num(args, "/waypoint/z"),
            ) {
                v.position = Enu::new(x, y, z);
            }
            done
        }
        "set_altitude" => {
            v.position.z = num(args, "/altitude_m").unwrap_or(v.position.z);
            done
        }
        "return_to_home" | "land" => {
            if a.name() == "return_to_home" {
                v.position = Enu::default();
            }
            v.position.z = 0.0;
            v.landed = LandedState::OnGround;
            v.armed = false;
            v.mode = FlightMode::Land;
            done
        }
        "check_geofence" => json!({"inside": true, "margin_m": 50.0}),
        "activate_sensor" | "deactivate_sensor" => json!({
            "status": "completed", "sensor": args["sensor"], "active": a.name() == "activate_sensor"}),
        "capture" => {
            json!({"status": "completed", "sensor": args["sensor"], "capture_id": "img-1", "bytes": 2_400_000})
        }
        "switch_network_slice" => {
            json!({"status": "accepted", "slice": args["slice"], "effective_after_ms": 200})
        }
        _ if a.is_a2a() => json!({"ack": true}),
        _ => done,
    }
}
