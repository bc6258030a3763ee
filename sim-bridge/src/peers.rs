//! Peer agents answering A2A tasks. Cooperative aircraft (UAVs, swarm members) answer for
//! themselves; any other address reaches the airspace coordinator (`utm`), which answers for
//! all traffic. `collision_avoidance` computes the real closest point of approach of the
//! agent's stated plan against each peer's own plan and tries resolutions until one clears.

use crate::cpa::{Approach, closest_approach};
use crate::rng::SimRng;
use crate::traffic::{Aircraft, FlightPlan, Traffic};
use crate::vec3::V3;
use alpha3_core::protocol::tools::{
    AckAnswer, CollisionAvoidanceAnswer, CollisionAvoidancePayload, HandoverAnswer,
    HandoverPayload, StatusUpdatePayload, SwarmCoordinationAnswer, SwarmCoordinationPayload,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The coordinator's address.
pub const COORDINATOR: &str = "utm";
/// Longest look-ahead of a conflict check, seconds.
const HORIZON_S: f64 = 300.0;
/// Assumed speed when the agent states none, m/s.
const DEFAULT_SPEED_MPS: f64 = 8.0;

/// Why a task got no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PeerError {
    #[error("unknown A2A task `{0}`")]
    UnknownTask(String),
    #[error("payload of `{task}` does not fit its schema: {message}")]
    BadPayload { task: String, message: String },
    #[error("`{0}` does not answer A2A (non-cooperative traffic)")]
    NotCooperative(String),
}

/// An answer, with who gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct A2aReply {
    pub from: String,
    pub task: String,
    pub payload: Value,
}

/// What the peers know about the airspace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerContext {
    pub now_s: f64,
    pub band: (f64, f64),
    pub separation_m: f64,
}

#[derive(Debug, Clone)]
pub struct Peers {
    /// Each cooperative aircraft's battery at time 0, percent.
    battery_pct: Vec<f64>,
    statuses: Vec<(String, String)>,
}

fn parse<T: DeserializeOwned>(task: &str, payload: &Value) -> Result<T, PeerError> {
    serde_json::from_value(payload.clone()).map_err(|e| PeerError::BadPayload {
        task: task.into(),
        message: e.to_string(),
    })
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Peers {
    pub fn new(traffic: &Traffic, seed: u64) -> Self {
        let mut rng = SimRng::stream(seed, "peers");
        Self {
            battery_pct: traffic
                .aircraft
                .iter()
                .map(|_| rng.range(35.0, 95.0))
                .collect(),
            statuses: Vec::new(),
        }
    }

    /// Status updates received so far, (from, status).
    pub fn statuses(&self) -> &[(String, String)] {
        &self.statuses
    }

    /// Answers `task` sent to `to` with `payload`.
    pub fn answer(
        &mut self,
        traffic: &Traffic,
        task: &str,
        to: Option<&str>,
        payload: &Value,
        ctx: PeerContext,
    ) -> Result<A2aReply, PeerError> {
        let target = to.and_then(|id| traffic.aircraft.iter().position(|a| a.id == id));
        if let Some(i) = target
            && !traffic.aircraft[i].cooperative
        {
            return Err(PeerError::NotCooperative(traffic.aircraft[i].id.clone()));
        }
        let from = target.map_or(COORDINATOR.to_string(), |i| traffic.aircraft[i].id.clone());
        let peers: Vec<&Aircraft> = match target {
            Some(i) => vec![&traffic.aircraft[i]],
            None => traffic.aircraft.iter().collect(),
        };
        let answer = match task {
            "collision_avoidance" => {
                let p: CollisionAvoidancePayload = parse(task, payload)?;
                to_value(&avoid(&p, &peers, ctx))
            }
            "status_update" => {
                let p: StatusUpdatePayload = parse(task, payload)?;
                self.statuses.push((from.clone(), p.status.clone()));
                to_value(&AckAnswer {
                    ack: true,
                    message: Some(format!("{from} noted status `{}`", p.status)),
                })
            }
            "handover" => {
                let p: HandoverPayload = parse(task, payload)?;
                to_value(&self.handover(&p, target, &from, ctx))
            }
            "swarm_coordination" => {
                let p: SwarmCoordinationPayload = parse(task, payload)?;
                to_value(&coordinate(&p, &peers, ctx))
            }
            other => return Err(PeerError::UnknownTask(other.into())),
        };
        Ok(A2aReply {
            from,
            task: task.into(),
            payload: answer,
        })
    }

    fn handover(
        &self,
        p: &HandoverPayload,
        target: Option<usize>,
        from: &str,
        ctx: PeerContext,
    ) -> HandoverAnswer {
        let Some(i) = target else {
            return HandoverAnswer {
                accepted: false,
                reason: Some("the coordinator does not fly; address a peer UAV".into()),
            };
        };
        let battery = (self.battery_pct[i] - 0.05 * ctx.now_s).max(0.0);
        if battery < 50.0 {
            HandoverAnswer {
                accepted: false,
                reason: Some(format!(
                    "{from} battery {battery:.0} % is too low to take `{}`",
                    p.task
                )),
            }
        } else {
            HandoverAnswer {
                accepted: true,
                reason: Some(format!(
                    "{from} takes `{}` with battery {battery:.0} %",
                    p.task
                )),
            }
        }
    }
}

fn worst(ours: &FlightPlan, peers: &[&Aircraft], t0: f64, t1: f64) -> Option<(Approach, String)> {
    peers
        .iter()
        .map(|a| (closest_approach(ours, &a.plan, t0, t1), a.id.clone()))
        .min_by(|x, y| x.0.distance_m.total_cmp(&y.0.distance_m))
}

fn avoid(
    p: &CollisionAvoidancePayload,
    peers: &[&Aircraft],
    ctx: PeerContext,
) -> CollisionAvoidanceAnswer {
    let speed = p
        .speed_mps
        .filter(|s| *s > 0.1)
        .unwrap_or(DEFAULT_SPEED_MPS);
    let pts: Vec<V3> = std::iter::once([p.pose.x, p.pose.y, p.pose.z])
        .chain(p.planned_path.iter().map(|q| [q.x, q.y, q.z]))
        .collect();
    let plan_with = |dz: f64, delay: f64| {
        let moved: Vec<V3> = pts.iter().map(|q| [q[0], q[1], q[2] + dz]).collect();
        FlightPlan::along(&moved, speed, ctx.now_s + delay)
    };
    let base = plan_with(0.0, 0.0);
    let end = match &base {
        FlightPlan::Knots(k) => k.last().map_or(ctx.now_s, |k| k.0),
        FlightPlan::Bounce { .. } => ctx.now_s,
    };
    let t1 = (end + 30.0).min(ctx.now_s + HORIZON_S);
    let Some((cpa, id)) = worst(&base, peers, ctx.now_s, t1) else {
        return CollisionAvoidanceAnswer {
            collision_risk: false,
            cpa_distance_m: f64::MAX,
            cpa_time_s: 0.0,
            resolution: Some("no traffic known".into()),
        };
    };
    let risk = cpa.distance_m < ctx.separation_m;
    let clear = |plan: &FlightPlan| {
        worst(plan, peers, ctx.now_s, t1 + 60.0)
            .is_none_or(|(c, _)| c.distance_m >= 1.2 * ctx.separation_m)
    };
    let resolution = if !risk {
        None
    } else {
        let step = ctx.separation_m + 5.0;
        let top = pts.iter().map(|q| q[2]).fold(f64::NEG_INFINITY, f64::max);
        let low = pts.iter().map(|q| q[2]).fold(f64::INFINITY, f64::min);
        let mut found = None;
        if top + step <= ctx.band.1 && clear(&plan_with(step, 0.0)) {
            found = Some(format!(
                "climb {step:.0} m (to {:.0} m) to pass {id}",
                p.pose.z + step
            ));
        } else if low - step >= ctx.band.0 && clear(&plan_with(-step, 0.0)) {
            found = Some(format!(
                "descend {step:.0} m (to {:.0} m) to pass {id}",
                p.pose.z - step
            ));
        } else {
            for delay in [10.0, 20.0, 30.0, 60.0] {
                if clear(&plan_with(0.0, delay)) {
                    found = Some(format!(
                        "hold {delay:.0} s before proceeding to let {id} pass"
                    ));
                    break;
                }
            }
        }
        Some(found.unwrap_or_else(|| format!("no clear resolution against {id}: hold and re-plan")))
    };
    CollisionAvoidanceAnswer {
        collision_risk: risk,
        cpa_distance_m: (cpa.distance_m * 10.0).round() / 10.0,
        cpa_time_s: ((cpa.t_s - ctx.now_s) * 10.0).round() / 10.0,
        resolution,
    }
}

fn coordinate(
    p: &SwarmCoordinationPayload,
    peers: &[&Aircraft],
    ctx: PeerContext,
) -> SwarmCoordinationAnswer {
    let members = peers.iter().filter(|a| a.cooperative).count();
    if members == 0 {
        return SwarmCoordinationAnswer {
            accepted: false,
            assignment: Some("no cooperative peers in the airspace".into()),
        };
    }
    let assignment = match p.proposal.as_str() {
        "area_split" => {
            let area = p.area.as_deref().unwrap_or(&[]);
            if area.len() < 3 {
                return SwarmCoordinationAnswer {
                    accepted: false,
                    assignment: Some("area_split needs an area of at least 3 points".into()),
                };
            }
            let (x0, x1) = area
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |b, q| {
                    (b.0.min(q.x), b.1.max(q.x))
                });
            let strips = members + 1;
            let w = (x1 - x0) / strips as f64;
            format!(
                "you take strip 1 of {strips} (x {x0:.0}–{:.0} m); peers take the rest eastward",
                x0 + w
            )
        }
        "formation" => format!(
            "peers trail you at {:.0} m spacing, same altitude",
            2.0 * ctx.separation_m
        ),
        "deconflict" => {
            let z = peers[0].plan.position_at(ctx.now_s)[2];
            let up = z + ctx.separation_m;
            let layer = if up <= ctx.band.1 {
                up
            } else {
                (z - ctx.separation_m).max(ctx.band.0)
            };
            format!("{} keeps {z:.0} m; take {layer:.0} m", peers[0].id)
        }
        other => {
            return SwarmCoordinationAnswer {
                accepted: false,
                assignment: Some(format!(
                    "unknown proposal `{other}`: use formation, area_split or deconflict"
                )),
            };
        }
    };
    SwarmCoordinationAnswer {
        accepted: true,
        assignment: Some(assignment),
    }
}

/// Swarm members yield to the vehicle as real members would through their own deconfliction:
/// one whose next step would take it closer to the (airborne) vehicle while already within
/// `YIELD_FACTOR` separations stops there and holds for `YIELD_HOLD_S`, and the rest of
/// its plan slips accordingly — so its shared plan says it waits, and the vehicle can move
/// on. It stops only when stopping keeps it at least as far from the vehicle over the next
/// `YIELD_LOOKAHEAD_S` as flying on would, the vehicle going on at its broadcast velocity
/// (ADS-B / Remote ID): a member that stopped in the way of a vehicle passing by put itself
/// where its shared plan said it would not be, 29.9 m from a leg the gate had approved 32 m
/// from that plan (sc-0039 in the 10k corpus). Other traffic flies on. `own` and `own_velocity`
/// are the vehicle's true position and ground velocity. Returns whether any shared plan
/// changed, so those who hold a copy know to fetch it again.
pub fn keep_clear(
    traffic: &mut Traffic,
    own: V3,
    own_velocity: V3,
    airborne: bool,
    t_prev_s: f64,
    t_s: f64,
    separation_m: f64,
) -> bool {
    let dt = t_s - t_prev_s;
    if !airborne || dt <= 0.0 {
        return false;
    }
    let radius = YIELD_FACTOR * separation_m;
    let mut changed = false;
    for a in traffic
        .aircraft
        .iter_mut()
        .filter(|a| a.id.starts_with(SWARM_PREFIX))
    {
        let was = a.plan.position_at(t_prev_s);
        let next = a.plan.position_at(t_s);
        let closing = crate::vec3::distance(next, own) < crate::vec3::distance(was, own);
        if closing
            && crate::vec3::distance(next, own) < radius
            && stopping_keeps_clear(&a.plan, was, own, own_velocity, t_prev_s)
        {
            changed |= hold_plan(&mut a.plan, t_prev_s, YIELD_HOLD_S);
        }
    }
    changed
}

/// Whether a member holding at `at` from `t_s` on stays at least as far from the vehicle
/// (from `own` at `own_velocity`) over the look-ahead as flying `plan` on would.
fn stopping_keeps_clear(plan: &FlightPlan, at: V3, own: V3, own_velocity: V3, t_s: f64) -> bool {
    let (mut flying, mut holding) = (f64::INFINITY, f64::INFINITY);
    for i in 0..=YIELD_LOOKAHEAD_SAMPLES {
        let dt = YIELD_LOOKAHEAD_S * f64::from(i) / f64::from(YIELD_LOOKAHEAD_SAMPLES);
        let vehicle = crate::vec3::add(own, crate::vec3::scale(own_velocity, dt));
        flying = flying.min(crate::vec3::distance(plan.position_at(t_s + dt), vehicle));
        holding = holding.min(crate::vec3::distance(at, vehicle));
    }
    holding >= flying
}

/// Id prefix of swarm members.
const SWARM_PREFIX: &str = "swarm-";
/// Swarm members keep this many separations from the vehicle.
const YIELD_FACTOR: f64 = 1.6;
/// How long a yielding member waits before it looks again, seconds.
const YIELD_HOLD_S: f64 = 20.0;
/// How far ahead a member weighs stopping against flying on, seconds, and in how many steps.
const YIELD_LOOKAHEAD_S: f64 = 10.0;
const YIELD_LOOKAHEAD_SAMPLES: u32 = 20;

/// Makes `plan` stay where it is at `t_s` until `t_s + dt_s` at least: the member holds
/// there, and everything it planned after `t_s` happens that much later. A hold already under
/// way is extended rather than given new knots. Returns whether the plan changed.
fn hold_plan(plan: &mut FlightPlan, t_s: f64, dt_s: f64) -> bool {
    let at = plan.position_at(t_s);
    let FlightPlan::Knots(knots) = plan else {
        return false;
    };
    let near = |p: V3| crate::vec3::distance(p, at) < 1e-6;
    let i = knots.partition_point(|k| k.0 <= t_s);
    // The hold under way: a segment between two knots at the same point around `t_s`.
    let end = if i >= 2 && near(knots[i - 1].1) && near(knots[i - 2].1) {
        Some(i - 1)
    } else if i >= 1 && i < knots.len() && near(knots[i - 1].1) && near(knots[i].1) {
        Some(i)
    } else {
        None
    };
    match end {
        Some(e) => {
            let slip = (t_s + dt_s - knots[e].0).max(0.0);
            for k in &mut knots[e..] {
                k.0 += slip;
            }
            slip > 0.0
        }
        None => {
            for k in &mut knots[i..] {
                k.0 += dt_s;
            }
            knots.insert(i, (t_s + dt_s, at));
            knots.insert(i, (t_s, at));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::Aircraft;

    fn member(points: &[V3]) -> Traffic {
        Traffic {
            aircraft: vec![Aircraft {
                id: "swarm-1".into(),
                kind: "uav".into(),
                plan: FlightPlan::along(points, 10.0, 0.0),
                cooperative: true,
            }],
        }
    }

    /// The member's closest approach to `own`, and how many steps changed its plan.
    fn fly(traffic: &mut Traffic, own: V3, until_s: f64) -> (f64, usize) {
        let dt = 0.02;
        let mut closest = f64::INFINITY;
        let mut changes = 0;
        let steps = (until_s / dt) as usize;
        for n in 1..=steps {
            let (t0, t1) = ((n - 1) as f64 * dt, n as f64 * dt);
            let before = traffic.clone();
            let changed = keep_clear(traffic, own, [0.0; 3], true, t0, t1, 20.0);
            assert_eq!(changed, *traffic != before, "reports exactly its changes");
            changes += usize::from(changed);
            closest = closest.min(crate::vec3::distance(
                traffic.aircraft[0].plan.position_at(t1),
                own,
            ));
        }
        (closest, changes)
    }

    #[test]
    fn a_swarm_member_waits_short_of_a_vehicle_holding_on_its_route() {
        // The member's route runs straight through the holding vehicle.
        let mut t = member(&[[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]]);
        let (closest, changes) = fly(&mut t, [200.0, 0.0, 50.0], 60.0);
        assert!(changes > 0);
        assert!(closest >= 20.0 * YIELD_FACTOR - 0.5, "{closest}");
        assert!(
            closest < 20.0 * YIELD_FACTOR + 1.0,
            "it comes up to the yield radius"
        );
        let FlightPlan::Knots(k) = &t.aircraft[0].plan else {
            panic!()
        };
        assert!(
            k.len() <= 8,
            "a hold is extended, not re-knotted every step: {k:?}"
        );
        assert!(
            k.windows(2).all(|w| w[0].0 <= w[1].0),
            "knots stay in time order"
        );
        // Without the vehicle in the way it flies its plan as before.
        let mut free = member(&[[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]]);
        let (far, changes) = fly(&mut free, [200.0, 500.0, 50.0], 60.0);
        assert!(far > 400.0);
        assert_eq!(changes, 0);
        assert_eq!(
            free.aircraft[0].plan,
            FlightPlan::along(&[[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]], 10.0, 0.0)
        );
    }

    #[test]
    fn a_member_does_not_stop_in_the_way_of_a_vehicle_passing_by() {
        // The member heads east; the vehicle, 47 m off and closing, crosses its line going
        // west. Flying on, the member is 28.1 m from it at the closest; stopping where it is,
        // 25.8 m: it flies on, as its shared plan says.
        let route = [[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]];
        let mut t = member(&route);
        let own = [36.0, 30.0, 50.0];
        assert!(!keep_clear(
            &mut t,
            own,
            [-9.0, -1.0, 0.0],
            true,
            0.0,
            0.02,
            30.0
        ));
        assert_eq!(t, member(&route));
        // The same vehicle holding there is in its way: it stops.
        assert!(keep_clear(&mut t, own, [0.0; 3], true, 0.0, 0.02, 30.0));
    }

    #[test]
    fn a_member_moving_away_or_other_traffic_does_not_yield() {
        let mut t = member(&[[200.0, 10.0, 50.0], [600.0, 10.0, 50.0]]);
        t.aircraft.push(Aircraft {
            id: "uav-1".into(),
            kind: "uav".into(),
            plan: FlightPlan::along(&[[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]], 10.0, 0.0),
            cooperative: true,
        });
        let before = t.clone();
        for n in 1..=100 {
            assert!(!keep_clear(
                &mut t,
                [200.0, 0.0, 50.0],
                [0.0; 3],
                true,
                (n - 1) as f64 * 0.1,
                n as f64 * 0.1,
                20.0,
            ));
        }
        assert_eq!(
            t, before,
            "moving away from the vehicle, and uav-1 is not a swarm member"
        );
        // On the ground the vehicle is no concern of the swarm.
        let mut g = member(&[[0.0, 0.0, 50.0], [400.0, 0.0, 50.0]]);
        let plan = g.aircraft[0].plan.clone();
        assert!(!keep_clear(
            &mut g,
            [20.0, 0.0, 50.0],
            [0.0; 3],
            false,
            0.0,
            0.1,
            20.0
        ));
        assert_eq!(g.aircraft[0].plan, plan);
    }
}
