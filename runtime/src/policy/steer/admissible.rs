//! The actions whose cheap preconditions hold now, and the turn grammar narrowed to them.
//!
//! Cheap preconditions are the ones a state and the mission's facts decide at once: no take-off
//! when airborne, no landing or waypoint on the ground, waypoints only from the mission's
//! remaining ones (home once they are flown), landing only at authorised sites, a capture only
//! with an active imaging sensor (activation of the others while a capture is owed), A2A only
//! to aircraft that exist. Every set keeps
//! `read_telemetry` and `hold`, so the model always chooses between at least two actions.

use super::facts::MissionFacts;
use crate::policy::actions;
use crate::policy::grammar::MAX_ACTIONS;
use alpha3_core::link::Slice;
use alpha3_core::protocol::Action;
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::protocol::{Situation, ToolObservation};
use serde_json::{Map, Value, json};

/// Every admissible set holds at least this many actions.
pub const MIN_ADMISSIBLE: usize = 2;

/// At most this many remaining waypoints are offered at once (the next ones, in order).
const MAX_WAYPOINTS: usize = 3;

/// At most this many peers are offered A2A coordination.
const MAX_PEERS: usize = 3;

/// The actions admissible in `now` given `facts`, the most mission-relevant first. Never fewer
/// than [`MIN_ADMISSIBLE`]; no duplicates.
pub fn admissible_actions(facts: &MissionFacts, now: &Situation) -> Vec<Action> {
    let v = &now.snapshot;
    let mut out = Vec::new();
    let (lo, hi) = facts.band_m;
    let cruise_z = |z: f64| if lo <= hi { z.clamp(lo, hi) } else { z };
    if v.is_airborne() {
        for (_, w) in facts.remaining.iter().take(MAX_WAYPOINTS) {
            out.push(actions::set_waypoint([w[0], w[1], w[2]], None));
        }
        if facts.remaining.is_empty()
            && let Some(home) = facts.sites.first()
        {
            out.push(actions::set_waypoint(
                [home[0], home[1], round(cruise_z(v.position.z))],
                None,
            ));
        }
        if !facts.captures_owed.is_empty() {
            for sensor in &facts.sensors {
                if facts.active.contains(sensor) {
                    for kind in kinds_owed(facts) {
                        out.push(actions::capture(sensor, kind));
                    }
                } else {
                    out.push(actions::activate_sensor(sensor));
                }
            }
        }
        if let Some(d) = facts.hold_owed_s {
            out.push(actions::hold(Some(d)));
        }
        if now.link.slice != Slice::Urllc {
            out.push(actions::switch_network_slice(Slice::Urllc));
        }
        for peer in facts.peers.iter().take(MAX_PEERS) {
            out.push(actions::swarm_coordination(peer, "formation"));
        }
        out.push(actions::return_to_home());
        for site in &facts.sites {
            out.push(actions::land_at(*site));
        }
    } else {
        let z = facts.next().map_or((lo + hi) / 2.0, |(_, w)| w[2]);
        out.push(actions::takeoff(round(cruise_z(z))));
    }
    out.push(actions::read_telemetry());
    out.push(actions::hold(None));
    let mut unique: Vec<Action> = Vec::with_capacity(out.len());
    for a in out {
        if !unique.contains(&a) {
            unique.push(a);
        }
    }
    unique
}

/// The capture kinds still owed, in first-owed order.
fn kinds_owed(facts: &MissionFacts) -> Vec<CaptureKind> {
    let mut kinds: Vec<CaptureKind> = Vec::new();
    for (_, k) in &facts.captures_owed {
        if !kinds.contains(k) {
            kinds.push(*k);
        }
    }
    kinds
}

/// `x` to a tenth of a metre: the grammar offers short numbers.
fn round(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The turn schema narrowed to `admissible`: a snake_case intent and one to
/// [`MAX_ACTIONS`] actions, each exactly one of `admissible`, rendered compactly (llguidance
/// options) so the model's text is the canonical rendering and the KV cache stays valid.
pub fn narrowed_schema(admissible: &[Action]) -> Value {
    let items: Vec<Value> = admissible
        .iter()
        .filter_map(|a| serde_json::to_value(a).ok())
        .map(|v| exact(&short_numbers(&v)))
        .collect();
    json!({
        "type": "object",
        "properties": {
            "intent": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$"},
            "actions": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_ACTIONS,
                "items": {"anyOf": items}
            }
        },
        "required": ["intent", "actions"],
        "additionalProperties": false,
        "x-guidance": {"whitespace_flexible": false, "item_separator": ",", "key_separator": ":"}
    })
}

/// Whole numbers as integers (`253`, not `253.0`): what the prompt shows, and fewer tokens.
fn short_numbers(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => Value::from(x as i64),
            _ => v.clone(),
        },
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, c)| (k.clone(), short_numbers(c)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(short_numbers).collect()),
        _ => v.clone(),
    }
}

/// A schema that admits exactly `v`, objects with their keys in order.
fn exact(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let props: Map<String, Value> = o.iter().map(|(k, c)| (k.clone(), exact(c))).collect();
            let required: Vec<&String> = o.keys().collect();
            json!({
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": false
            })
        }
        other => json!({"const": other}),
    }
}

/// The gate's reasons in `observations`, one short phrase per refused action.
pub(super) fn refusals(observations: &[ToolObservation]) -> Vec<String> {
    observations
        .iter()
        .filter_map(|o| {
            let status = o.result.get("status").and_then(Value::as_str)?;
            if !matches!(status, "denied" | "deferred" | "failed") {
                return None;
            }
            let reason = o
                .result
                .pointer("/findings/0/reason")
                .and_then(Value::as_str)
                .or_else(|| o.result.get("message").and_then(Value::as_str))
                .unwrap_or(status);
            Some(format!("{} {status}: {reason}", o.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::frames::Geo;
    use alpha3_core::link::LinkSample;
    use alpha3_core::protocol::{AgentTurn, agent_turn_schema, catalogue};
    use alpha3_core::snapshot::VehicleSnapshot;

    fn facts() -> MissionFacts {
        MissionFacts {
            remaining: vec![(1, [256.0, 294.0, 40.0]), (2, [412.5, 307.0, 89.0])],
            total_waypoints: 3,
            captures_owed: vec![(2, CaptureKind::Image)],
            hold_owed_s: None,
            sites: vec![[136.0, 89.0], [664.0, 563.0]],
            band_m: (15.0, 120.0),
            reserve_pct: 20.0,
            sensors: vec!["rgb".into()],
            active: vec!["rgb".into()],
            peers: vec![],
        }
    }

    fn situation(airborne: bool) -> Situation {
        let mut snapshot = VehicleSnapshot::on_ground_at_home(Geo::default(), 0);
        if airborne {
            snapshot.armed = true;
            snapshot.position.z = 40.0;
            snapshot.landed = alpha3_core::snapshot::LandedState::InAir;
        }
        Situation {
            snapshot,
            link: LinkSample {
                slice: Slice::Embb,
                lat_ms: 7.0,
                jitter_ms: 1.0,
                loss_pct: 0.1,
                throughput_mbps: 50.0,
                edge_load: 0.3,
            },
            observations: vec![],
            operator: None,
        }
    }

    fn names(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .map(|a| match a {
                Action::Mcp { name, .. } => name.clone(),
                Action::A2a { task, .. } => task.clone(),
            })
            .collect()
    }

    #[test]
    fn no_takeoff_in_the_air_and_no_landing_on_the_ground() {
        let air = admissible_actions(&facts(), &situation(true));
        let ground = admissible_actions(&facts(), &situation(false));
        assert!(!names(&air).contains(&"takeoff".to_string()), "{air:?}");
        assert!(names(&air).contains(&"land".to_string()));
        assert!(names(&ground).contains(&"takeoff".to_string()));
        for banned in ["land", "set_waypoint", "capture", "return_to_home"] {
            assert!(!names(&ground).contains(&banned.to_string()), "{banned}");
        }
        assert!(ground.len() >= MIN_ADMISSIBLE && air.len() >= MIN_ADMISSIBLE);
    }

    #[test]
    fn waypoints_come_from_the_remaining_ones_then_home() {
        let air = admissible_actions(&facts(), &situation(true));
        assert_eq!(air[0], actions::set_waypoint([256.0, 294.0, 40.0], None));
        assert_eq!(air[1], actions::set_waypoint([412.5, 307.0, 89.0], None));
        let done = MissionFacts {
            remaining: vec![],
            ..facts()
        };
        let home = admissible_actions(&done, &situation(true));
        assert_eq!(home[0], actions::set_waypoint([136.0, 89.0, 40.0], None));
    }

    #[test]
    fn the_narrowed_schema_admits_its_actions_and_nothing_else() {
        let admissible = admissible_actions(&facts(), &situation(true));
        let narrowed = jsonschema::validator_for(&narrowed_schema(&admissible)).unwrap();
        let strict = jsonschema::validator_for(&agent_turn_schema(&catalogue())).unwrap();
        for a in &admissible {
            let turn = serde_json::to_value(AgentTurn {
                intent: "go".into(),
                actions: vec![a.clone()],
            })
            .unwrap();
            let turn = short_numbers(&turn);
            assert!(narrowed.is_valid(&turn), "{turn}");
            assert!(strict.is_valid(&turn), "{turn}");
        }
        for bad in [
            actions::takeoff(30.0),
            actions::set_waypoint([1.0, 2.0, 30.0], None),
            actions::land_at([1.0, 1.0]),
            actions::capture("thermal", CaptureKind::Image),
        ] {
            let turn = short_numbers(
                &serde_json::to_value(AgentTurn {
                    intent: "go".into(),
                    actions: vec![bad.clone()],
                })
                .unwrap(),
            );
            assert!(!narrowed.is_valid(&turn), "{turn}");
        }
    }

    #[test]
    fn refusals_quote_the_gate() {
        let obs = vec![
            ToolObservation {
                name: "takeoff".into(),
                result: json!({"status": "denied", "findings": [{"id": "gate.state.takeoff_airborne", "reason": "already airborne"}]}),
            },
            ToolObservation {
                name: "hold".into(),
                result: json!({"status": "ok"}),
            },
        ];
        assert_eq!(refusals(&obs), vec!["takeoff denied: already airborne"]);
    }
}
