//! Peer agents answering A2A tasks. Cooperative aircraft (UAVs, swarm members) answer for
//! themselves; any other address reaches the airspace coordinator (`utm`), which answers for
//! all traffic. `collision_avoidance` computes the real closest point of approach of the
//! agent's stated plan against each peer's own plan and tries resolutions until one clears.

use crate::cpa::{Approach, closest_approach};
use crate::rng::SimRng;
use crate::traffic::{Aircraft, Plan, Traffic};
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

fn worst(ours: &Plan, peers: &[&Aircraft], t0: f64, t1: f64) -> Option<(Approach, String)> {
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
        Plan::along(&moved, speed, ctx.now_s + delay)
    };
    let base = plan_with(0.0, 0.0);
    let end = match &base {
        Plan::Knots(k) => k.last().map_or(ctx.now_s, |k| k.0),
        Plan::Bounce { .. } => ctx.now_s,
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
    let clear = |plan: &Plan| {
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
