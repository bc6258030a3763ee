//! The actions whose cheap preconditions hold now, the order they may take within a turn, and
//! the turn grammar narrowed to them.
//!
//! Cheap preconditions are the ones a state and the mission's facts decide at once: no take-off
//! when airborne, no landing or waypoint on the ground, waypoints only from the mission's
//! remaining ones (home once they are flown), landing only at authorised sites, a capture only
//! with an active imaging sensor where one is owed, A2A only to aircraft that exist.
//!
//! Within a turn the actions keep the mission's order ([`Admissible::follows`]): no action
//! twice, the remaining waypoints in flying order without skipping one (the world counts a
//! waypoint only once the ones before it are reached), a capture only at the stop it is owed
//! at, after its sensor's activation, and a waypoint where a capture is owed followed in the
//! same turn by that capture ([`Admissible::forced`]): the world counts a capture only within
//! 25 m of its waypoint. Every set keeps `read_telemetry` and `hold`, admissible at a turn's
//! start, so the model always chooses between at least two actions.

use super::facts::MissionFacts;
use crate::policy::actions;
use crate::policy::grammar::MAX_ACTIONS;
use alpha3_core::link::Slice;
use alpha3_core::protocol::Action;
use alpha3_core::protocol::tools::{CaptureKind, CommandStatus};
use alpha3_core::protocol::{Situation, ToolObservation};
use serde_json::{Map, Value, json};

/// Every admissible set holds at least this many actions.
pub const MIN_ADMISSIBLE: usize = 2;

/// At most this many remaining waypoints are offered at once (the next ones, in order).
pub const MAX_WAYPOINTS: usize = 4;

/// At most this many peers are offered A2A coordination.
const MAX_PEERS: usize = 3;

/// What may come right before an admissible action within one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Follows {
    /// The turn's start or any earlier action.
    Anything,
    /// Only these: `None` is the turn's start, `Some(i)` the `i`-th admissible action.
    Only(Vec<Option<usize>>),
}

/// The admissible actions of a decision, most mission-relevant first, and what may precede
/// each: a turn is a sequence of them in increasing index whose every step is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct Admissible {
    pub actions: Vec<Action>,
    pub follows: Vec<Follows>,
    /// How many actions must still follow each one in its turn: a waypoint where a capture
    /// is owed is followed by that capture (and its sensor's activation), because the world
    /// counts a capture only within 25 m of its waypoint. 0: the turn may end there.
    pub forced: Vec<usize>,
}

impl Admissible {
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Whether `j` may come right after `i` (`None`: the turn's start).
    pub fn may_follow(&self, i: Option<usize>, j: usize) -> bool {
        if i.is_some_and(|i| i >= j) {
            return false;
        }
        match self.follows.get(j) {
            Some(Follows::Anything) => i.is_none_or(|i| self.forced.get(i) == Some(&0)),
            Some(Follows::Only(before)) => before.contains(&i),
            None => false,
        }
    }

    /// Whether `turn` is a sequence this set admits (at most [`MAX_ACTIONS`], at least one).
    pub fn admits(&self, turn: &[Action]) -> bool {
        if turn.is_empty() || turn.len() as u64 > MAX_ACTIONS {
            return false;
        }
        let mut at: Vec<Option<usize>> = vec![None];
        for a in turn {
            at = (0..self.len())
                .filter(|&j| self.actions[j] == *a && at.iter().any(|&i| self.may_follow(i, j)))
                .map(Some)
                .collect();
            if at.is_empty() {
                return false;
            }
        }
        at.iter()
            .any(|&i| i.is_some_and(|i| self.forced.get(i) == Some(&0)))
    }

    /// The different actions the set holds, in order (a capture owed at two stops is one).
    pub fn distinct_actions(&self) -> Vec<Action> {
        self.first_occurrences().cloned().collect()
    }

    /// How many different actions the set holds.
    pub fn distinct(&self) -> usize {
        self.first_occurrences().count()
    }

    fn first_occurrences(&self) -> impl Iterator<Item = &Action> {
        self.actions
            .iter()
            .enumerate()
            .filter(|(i, a)| !self.actions[..*i].contains(a))
            .map(|(_, a)| a)
    }

    /// Adds `a` (unless already there, in which case the first stays) and returns its index.
    fn push(&mut self, a: Action, follows: Follows) -> Option<usize> {
        if self.actions.contains(&a) {
            return None;
        }
        self.actions.push(a);
        self.follows.push(follows);
        self.forced.push(0);
        Some(self.actions.len() - 1)
    }

    /// Adds `a` right after `follows` (`None`: the turn's start). Repeats are allowed: the
    /// same capture may be owed at two stops.
    fn chain(&mut self, a: Action, follows: Option<usize>) -> usize {
        self.actions.push(a);
        self.follows.push(Follows::Only(vec![follows]));
        self.forced.push(0);
        self.actions.len() - 1
    }

    /// The captures owed at one stop, right after `arrive` (the stop's waypoint, or the turn's
    /// start when the vehicle is there already), as one chain: the sensor's activation when it
    /// is off, then one capture per kind owed. Returns the chain's last action: a capture only
    /// counts within 25 m of its waypoint, so the next waypoint comes after it.
    fn stop(
        &mut self,
        arrive: Option<usize>,
        sensor: Option<&(String, bool)>,
        kinds: &[CaptureKind],
    ) -> Option<usize> {
        let Some((sensor, active)) = sensor else {
            return arrive;
        };
        let mut last = arrive;
        let mut chain = Vec::new();
        if !kinds.is_empty() && !active {
            chain.push(self.chain(actions::activate_sensor(sensor), last));
            last = chain.last().copied();
        }
        for kind in kinds {
            chain.push(self.chain(actions::capture(sensor, *kind), last));
            last = chain.last().copied();
        }
        // At a waypoint the chain is the only way on; at the turn's start it is a choice.
        if let Some(w) = arrive {
            let steps = std::iter::once(w).chain(chain.iter().copied());
            for (k, i) in steps.enumerate() {
                if let Some(f) = self.forced.get_mut(i) {
                    *f = chain.len() - k;
                }
            }
        }
        last
    }
}

/// The actions admissible in `now` given `facts`, in the order a turn may take them. Never
/// fewer than [`MIN_ADMISSIBLE`]; no duplicates.
pub fn admissible_actions(facts: &MissionFacts, now: &Situation) -> Admissible {
    let v = &now.snapshot;
    let mut set = Admissible {
        actions: Vec::new(),
        follows: Vec::new(),
        forced: Vec::new(),
    };
    let (lo, hi) = facts.band_m;
    let cruise_z = |z: f64| if lo <= hi { z.clamp(lo, hi) } else { z };
    let sensor = imaging_sensor(facts);
    let sensor = sensor.as_ref();
    let here = [v.position.x, v.position.y];
    // Where the next waypoint may be flown from: the turn's start, or the take-off.
    let mut arrive: Vec<Option<usize>> = vec![None];
    if v.is_airborne() {
        // Captures owed at a waypoint already reached: here, or after flying back to it.
        let first_behind = facts.owed_behind().map(|(i, _)| *i).min();
        if let Some((i, w)) = first_behind.and_then(|i| Some((i, *facts.waypoints.get(i)?))) {
            let kinds = kinds_owed_at(facts, i);
            let last = if facts.is_near(i, here) {
                set.stop(None, sensor, &kinds)
            } else {
                set.push(actions::set_waypoint(w, None), Follows::Only(vec![None]))
                    .and_then(|back| set.stop(Some(back), sensor, &kinds))
            };
            if last.is_some() {
                arrive.push(last);
            }
        }
    } else {
        let z = facts.next().map_or((lo + hi) / 2.0, |(_, w)| w[2]);
        if let Some(t) = set.push(
            actions::takeoff(round(cruise_z(z))),
            Follows::Only(vec![None]),
        ) {
            arrive = vec![Some(t)];
        }
    }
    for (i, w) in facts.remaining.iter().take(MAX_WAYPOINTS) {
        let Some(at) = set.push(
            actions::set_waypoint(*w, None),
            Follows::Only(arrive.clone()),
        ) else {
            break;
        };
        let kinds = kinds_owed_at(facts, *i);
        arrive = vec![set.stop(Some(at), sensor, &kinds)];
    }
    if v.is_airborne() {
        if facts.remaining.is_empty()
            && let Some(home) = facts.sites.first()
        {
            set.push(
                actions::set_waypoint([home[0], home[1], round(cruise_z(v.position.z))], None),
                Follows::Anything,
            );
        }
        if let Some(d) = facts.hold_owed_s {
            set.push(actions::hold(Some(d)), Follows::Anything);
        }
        if now.link.slice != Slice::Urllc {
            set.push(
                actions::switch_network_slice(Slice::Urllc),
                Follows::Anything,
            );
        }
        for peer in facts.peers.iter().take(MAX_PEERS) {
            set.push(
                actions::swarm_coordination(peer, "formation"),
                Follows::Anything,
            );
        }
        set.push(actions::return_to_home(), Follows::Anything);
        for site in &facts.sites {
            set.push(actions::land_at(*site), Follows::Anything);
        }
    }
    set.push(actions::read_telemetry(), Follows::Anything);
    set.push(actions::hold(None), Follows::Anything);
    set
}

/// The imaging sensor captures are taken with (an active one first) and whether it is on.
fn imaging_sensor(facts: &MissionFacts) -> Option<(String, bool)> {
    facts
        .sensors
        .iter()
        .find(|s| facts.active.contains(s))
        .map(|s| (s.clone(), true))
        .or_else(|| facts.sensors.first().map(|s| (s.clone(), false)))
}

/// The capture kinds owed at waypoint `i`, in first-owed order.
fn kinds_owed_at(facts: &MissionFacts, i: usize) -> Vec<CaptureKind> {
    let mut kinds: Vec<CaptureKind> = Vec::new();
    for (j, k) in &facts.captures_owed {
        if *j == i && !kinds.contains(k) {
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
pub(super) fn short_numbers(v: &Value) -> Value {
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
            let status = o.status()?;
            if !matches!(
                status,
                CommandStatus::Denied | CommandStatus::Deferred | CommandStatus::Failed
            ) {
                return None;
            }
            let status = status.as_str();
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
    use crate::policy::steer::testkit;
    use alpha3_core::protocol::{AgentTurn, agent_turn_schema, catalogue};

    fn facts() -> MissionFacts {
        MissionFacts {
            waypoints: vec![
                [200.0, 200.0, 40.0],
                [256.0, 294.0, 40.0],
                [412.5, 307.0, 89.0],
            ],
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
        testkit::situation(Slice::Embb, airborne.then_some(40.0))
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
        assert!(
            !names(&air.actions).contains(&"takeoff".to_string()),
            "{air:?}"
        );
        assert!(names(&air.actions).contains(&"land".to_string()));
        assert!(names(&ground.actions).contains(&"takeoff".to_string()));
        for banned in ["land", "return_to_home"] {
            assert!(
                !names(&ground.actions).contains(&banned.to_string()),
                "{banned}"
            );
        }
        // On the ground a turn starts with the take-off (or a look, or a hold); the
        // waypoints come after it.
        let first: Vec<String> = (0..ground.len())
            .filter(|&j| ground.may_follow(None, j))
            .map(|j| names(&ground.actions[j..=j])[0].clone())
            .collect();
        assert_eq!(first, ["takeoff", "read_telemetry", "hold"]);
        assert!(ground.admits(&[
            actions::takeoff(40.0),
            actions::set_waypoint([256.0, 294.0, 40.0], None)
        ]));
        assert!(ground.len() >= MIN_ADMISSIBLE && air.len() >= MIN_ADMISSIBLE);
    }

    #[test]
    fn waypoints_come_from_the_remaining_ones_then_home() {
        let air = admissible_actions(&facts(), &situation(true));
        assert_eq!(
            air.actions[0],
            actions::set_waypoint([256.0, 294.0, 40.0], None)
        );
        assert_eq!(
            air.actions[1],
            actions::set_waypoint([412.5, 307.0, 89.0], None)
        );
        let done = MissionFacts {
            remaining: vec![],
            captures_owed: vec![],
            ..facts()
        };
        let home = admissible_actions(&done, &situation(true));
        assert_eq!(
            home.actions[0],
            actions::set_waypoint([136.0, 89.0, 40.0], None)
        );
    }

    #[test]
    fn a_turn_keeps_the_mission_order_and_never_repeats_an_action() {
        let air = admissible_actions(&facts(), &situation(true));
        let w1 = actions::set_waypoint([256.0, 294.0, 40.0], None);
        let w2 = actions::set_waypoint([412.5, 307.0, 89.0], None);
        let shoot = actions::capture("rgb", CaptureKind::Image);
        assert!(air.admits(&[w1.clone(), w2.clone(), shoot.clone()]));
        assert!(air.admits(&[w1.clone(), actions::return_to_home()]));
        assert!(air.admits(&[actions::read_telemetry(), actions::hold(None)]));
        assert!(!air.admits(&[w1.clone(), w1.clone()]), "a repeat");
        assert!(!air.admits(std::slice::from_ref(&w2)), "waypoint 1 skipped");
        assert!(!air.admits(&[w2.clone(), w1.clone()]), "out of order");
        assert!(
            !air.admits(&[w1.clone(), shoot.clone()]),
            "the capture is owed at 2"
        );
        assert!(
            !air.admits(&[actions::hold(None), w1.clone()]),
            "back up the list"
        );
        assert!(!air.admits(&[]));
        // A waypoint with a capture owed is not flown past before the capture.
        let owed_at_1 = MissionFacts {
            captures_owed: vec![(1, CaptureKind::Image)],
            ..facts()
        };
        let air = admissible_actions(&owed_at_1, &situation(true));
        assert!(air.admits(&[w1.clone(), shoot.clone(), w2.clone()]));
        assert!(!air.admits(&[w1.clone(), w2.clone()]));
        for cut in [
            vec![w1.clone()],
            vec![w1.clone(), actions::return_to_home()],
            vec![w1.clone(), actions::hold(None)],
        ] {
            assert!(
                !air.admits(&cut),
                "the capture is part of its waypoint: {cut:?}"
            );
        }
        // An inactive sensor is switched on before its capture.
        let off = MissionFacts {
            active: vec![],
            ..facts()
        };
        let air = admissible_actions(&off, &situation(true));
        let on = actions::activate_sensor("rgb");
        assert!(air.admits(&[w1.clone(), w2.clone(), on.clone(), shoot.clone()]));
        assert!(!air.admits(&[w1.clone(), w2.clone(), shoot.clone()]));
    }

    #[test]
    fn a_capture_owed_where_the_vehicle_is_comes_first() {
        let owed_here = MissionFacts {
            captures_owed: vec![(0, CaptureKind::Image)],
            ..facts()
        };
        let mut at_w0 = situation(true);
        at_w0.snapshot.position.x = 205.0;
        at_w0.snapshot.position.y = 195.0;
        let set = admissible_actions(&owed_here, &at_w0);
        let shoot = actions::capture("rgb", CaptureKind::Image);
        let w1 = actions::set_waypoint([256.0, 294.0, 40.0], None);
        assert!(set.admits(&[shoot.clone(), w1.clone()]), "{set:?}");
        assert!(set.admits(&[shoot.clone(), actions::return_to_home()]));
        for leave in [w1.clone(), actions::return_to_home()] {
            assert!(
                set.admits(&[leave]),
                "at the turn's start the capture is a choice"
            );
        }
        assert!(set.admits(&[actions::read_telemetry(), actions::hold(None)]));
        // Away from it: fly back first.
        let set = admissible_actions(&owed_here, &situation(true));
        let back = actions::set_waypoint([200.0, 200.0, 40.0], None);
        assert!(set.admits(&[back, shoot.clone(), w1]), "{set:?}");
        assert!(!set.admits(&[shoot]));
    }

    #[test]
    fn the_narrowed_schema_admits_its_actions_and_nothing_else() {
        let admissible = admissible_actions(&facts(), &situation(true)).actions;
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
