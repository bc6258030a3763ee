//! A flight record as the review page's model: the scenario frame (fence, zones, sites, home,
//! waypoints, traffic, peers), columnar time series (truth, link, time to breach), the gate's
//! verdicts placed on the map, and the dialogue in record order. Numbers are rounded to
//! centimetres and milliseconds of the record's own values to keep pages small.

use super::bound::clip;
use alpha3_core::airspace::Area;
use alpha3_core::gate::VerdictOutcome;
use alpha3_core::link::SliceDecision;
use alpha3_core::protocol::Action;
use alpha3_core::record::{Event, FindingRecord, ParsedRecord};
use alpha3_core::scenario::Scenario;
use alpha3_sim::dynamics::FlightLimits;
use alpha3_sim::traffic::Traffic;
use serde::Serialize;
use serde_json::Value;

/// Who was flying at a truth sample.
pub const FLYER_AGENT: u8 = 0;
/// The watchdog had taken over (from its action until the next accepted agent turn).
pub const FLYER_WATCHDOG: u8 = 1;

/// Sampling interval of other aircraft's tracks, seconds.
const TRACK_STEP_S: f64 = 2.0;

/// Everything a review page shows.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    pub meta: Meta,
    pub frame: Frame,
    pub truth: Truth,
    pub link: Link,
    /// Time to the first predicted breach at each truth sample, seconds (empty when unknown).
    pub breach_s: Vec<Option<f64>>,
    /// The finding id of that breach, per truth sample.
    pub breach_id: Vec<Option<String>>,
    pub verdicts: Vec<VerdictMark>,
    pub slice_decisions: Vec<SliceMark>,
    pub dialogue: Vec<Entry>,
    pub pillars: Vec<PillarView>,
    pub alpha3: Option<f64>,
    /// Why `breach_s` is empty, when it is.
    pub breach_note: Option<String>,
    /// Why `pillars` is empty, when it is.
    pub pillars_note: Option<String>,
    /// What the page says about itself (what was left out to keep it bounded).
    pub notes: Vec<String>,
}

/// What ran and how it ended.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Meta {
    pub episode_id: String,
    pub scenario: String,
    pub seed: u64,
    pub policy: String,
    pub model: Option<String>,
    pub metric_version: String,
    pub termination: Option<String>,
    pub success: Option<bool>,
    /// The last line's time, seconds.
    pub end_s: f64,
    /// A torn last line was dropped when reading.
    pub torn_tail: bool,
    /// Where the static frame came from (`record`, `record+scenario`).
    pub frame_source: String,
}

/// The scenario's frame, metres ENU.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Frame {
    /// The scenario's altitude band.
    pub band_m: Option<[f64; 2]>,
    /// The band the gate enforced.
    pub gate_band_m: Option<[f64; 2]>,
    pub reserve_battery_pct: Option<f64>,
    pub hard_reserve_battery_pct: Option<f64>,
    pub geofence: Vec<Area>,
    pub no_fly: Vec<Area>,
    pub emergency_sites: Vec<[f64; 3]>,
    pub home: Option<[f64; 3]>,
    pub waypoints: Vec<[f64; 3]>,
    pub traffic: Vec<Track>,
    pub peers: Vec<Track>,
}

/// Another aircraft's positions over time: `t_s[i]` at `(x[i], y[i])`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Track {
    pub name: String,
    pub t_s: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// Truth samples, one column per quantity.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Truth {
    pub t_s: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub vx: Vec<f64>,
    pub vy: Vec<f64>,
    pub vz: Vec<f64>,
    pub speed_mps: Vec<f64>,
    pub battery_pct: Vec<f64>,
    pub armed: Vec<bool>,
    pub airborne: Vec<bool>,
    /// [`FLYER_AGENT`] or [`FLYER_WATCHDOG`].
    pub flyer: Vec<u8>,
}

/// Link samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Link {
    pub t_s: Vec<f64>,
    pub lat_ms: Vec<f64>,
    pub loss_pct: Vec<f64>,
    pub slice: Vec<String>,
}

/// One gate verdict, placed on the map.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictMark {
    pub t_s: f64,
    pub turn: u32,
    pub action: u32,
    pub outcome: VerdictOutcome,
    pub tool: Option<String>,
    pub findings: Vec<FindingRecord>,
    /// The vehicle at the time, metres.
    pub at: Option<[f64; 2]>,
    /// The commanded waypoint, when the action had one.
    pub target: Option<[f64; 3]>,
}

/// One slice decision.
#[derive(Debug, Clone, Serialize)]
pub struct SliceMark {
    pub t_s: f64,
    pub turn: u32,
    pub action: u32,
    pub decision: SliceDecision,
}

/// One row of the dialogue.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub t_s: f64,
    /// operator, agent, generation, verdict, observation, watchdog, violation, unheard, end.
    pub kind: &'static str,
    pub turn: Option<u32>,
    pub action: Option<u32>,
    pub text: String,
    /// Verdict outcome, watchdog action, …
    pub tag: Option<String>,
    pub findings: Vec<FindingRecord>,
    pub tokens: Option<u64>,
    pub latency_ms: Option<f64>,
}

/// One α3 pillar and what drove it.
#[derive(Debug, Clone, Serialize)]
pub struct PillarView {
    pub name: String,
    pub value: Option<f64>,
    pub why: String,
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn secs(t_ms: u64) -> f64 {
    t_ms as f64 / 1000.0
}

/// Builds the model from a parsed record and, when known, its scenario (waypoints, traffic and
/// moving zones come from the scenario; the rest is in the record's header).
pub fn build(record: &ParsedRecord, scenario: Option<&Scenario>) -> Timeline {
    let mut meta = Meta {
        torn_tail: record.torn_tail,
        frame_source: "record".into(),
        ..Meta::default()
    };
    let mut frame = Frame::default();
    let mut truth = Truth::default();
    let mut link = Link::default();
    let mut verdicts = Vec::new();
    let mut slice_decisions = Vec::new();
    let mut dialogue = Vec::new();
    let mut alpha3 = None;
    let mut watchdog_since: Option<u64> = None;
    let mut actions: Vec<(u32, Vec<Action>)> = Vec::new();
    let mut observations: Vec<(u32, u32, String)> = Vec::new();
    for line in &record.lines {
        let t_s = secs(line.t_ms);
        meta.end_s = t_s;
        let entry = |kind: &'static str, text: String| Entry {
            t_s,
            kind,
            turn: None,
            action: None,
            text,
            tag: None,
            findings: Vec::new(),
            tokens: None,
            latency_ms: None,
        };
        match &line.event {
            Event::Header {
                episode_id,
                scenario: key,
                seed,
                policy,
                model,
                metric_version,
                config,
                ..
            } => {
                meta.episode_id = episode_id.clone();
                meta.scenario = key.clone();
                meta.seed = *seed;
                meta.policy = policy.clone();
                meta.model = model.clone();
                meta.metric_version = metric_version.clone();
                frame_from_header(&mut frame, config);
            }
            Event::Generation {
                turn,
                attempt,
                completion,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                error,
                ..
            } => {
                let mut e = entry("generation", clip(completion));
                e.turn = Some(*turn);
                e.action = Some(*attempt);
                e.tokens = Some(prompt_tokens + completion_tokens);
                e.latency_ms = Some(r2(*latency_ms));
                e.tag = error.as_deref().map(clip);
                dialogue.push(e);
            }
            Event::AgentTurn { turn, agent_turn } => {
                watchdog_since = None;
                let list: Vec<String> = agent_turn
                    .actions
                    .iter()
                    .enumerate()
                    .map(|(i, a)| format!("{i}: {}", action_text(a)))
                    .collect();
                let mut e = entry(
                    "agent",
                    clip(&format!("{}\n{}", agent_turn.intent, list.join("\n"))),
                );
                e.turn = Some(*turn);
                dialogue.push(e);
                actions.push((*turn, agent_turn.actions.clone()));
            }
            Event::OperatorTurn {
                turn, intent, text, ..
            } => {
                let mut e = entry("operator", clip(text));
                e.turn = Some(*turn);
                e.tag = Some(clip(intent));
                dialogue.push(e);
            }
            Event::OperatorUnheard { lines, dropped } => {
                let mut text = lines.join("\n");
                if *dropped > 0 {
                    text.push_str(&format!("\n(+{dropped} more)"));
                }
                dialogue.push(entry("unheard", clip(&text)));
            }
            Event::Verdict {
                turn,
                action,
                outcome,
                findings,
            } => {
                let act = find_action(&actions, *turn, *action);
                let mut e = entry(
                    "verdict",
                    clip(
                        &findings
                            .iter()
                            .map(|f| f.reason.as_str())
                            .collect::<Vec<_>>()
                            .join("; "),
                    ),
                );
                e.turn = Some(*turn);
                e.action = Some(*action);
                e.tag = Some(outcome.as_str().into());
                e.findings = findings.clone();
                dialogue.push(e);
                verdicts.push(VerdictMark {
                    t_s,
                    turn: *turn,
                    action: *action,
                    outcome: *outcome,
                    tool: act.map(action_name),
                    findings: findings.clone(),
                    at: truth.x.last().zip(truth.y.last()).map(|(x, y)| [*x, *y]),
                    target: act.and_then(waypoint_of),
                });
            }
            Event::SliceDecision {
                turn,
                action,
                decision,
            } => slice_decisions.push(SliceMark {
                t_s,
                turn: *turn,
                action: *action,
                decision: *decision,
            }),
            Event::Observation {
                turn,
                action,
                tool,
                result,
                executed,
            } => {
                let mut e = entry("observation", clip(&compact(result)));
                e.turn = Some(*turn);
                e.action = Some(*action);
                e.tag = Some(clip(&format!(
                    "{tool}{}",
                    if *executed { "" } else { " (not executed)" }
                )));
                observations.push((*turn, *action, tool.clone()));
                dialogue.push(e);
            }
            Event::Link { sample } => {
                link.t_s.push(t_s);
                link.lat_ms.push(r2(sample.lat_ms));
                link.loss_pct.push(r2(sample.loss_pct));
                link.slice.push(
                    serde_json::to_value(sample.slice)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                );
            }
            Event::Truth {
                position,
                velocity,
                battery_pct,
                armed,
                airborne,
            } => {
                truth.t_s.push(t_s);
                truth.x.push(r2(position.x));
                truth.y.push(r2(position.y));
                truth.z.push(r2(position.z));
                truth.vx.push(r2(velocity.x));
                truth.vy.push(r2(velocity.y));
                truth.vz.push(r2(velocity.z));
                truth.speed_mps.push(r2(velocity.x.hypot(velocity.y)));
                truth.battery_pct.push(r2(*battery_pct));
                truth.armed.push(*armed);
                truth.airborne.push(*airborne);
                truth.flyer.push(if watchdog_since.is_some() {
                    FLYER_WATCHDOG
                } else {
                    FLYER_AGENT
                });
            }
            Event::Violation { kind, detail } => {
                let mut e = entry("violation", clip(detail));
                e.tag = Some(clip(kind));
                dialogue.push(e);
            }
            Event::Watchdog { action, reason } => {
                watchdog_since.get_or_insert(line.t_ms);
                let mut e = entry("watchdog", clip(reason));
                e.tag = Some(clip(action));
                dialogue.push(e);
            }
            Event::Airspace {
                changed,
                adopted,
                detail,
                ..
            } => {
                let what = if *adopted { "adopted" } else { "not adopted" };
                let mut e = entry(
                    "airspace",
                    clip(&format!("{}: {detail}", changed.join(", "))),
                );
                e.tag = Some(what.into());
                dialogue.push(e);
            }
            Event::MissionPaused {
                next_point,
                findings,
                detail,
                ..
            } => {
                let why = findings
                    .first()
                    .map_or(detail.clone(), |f| format!("{}: {}", f.id, f.reason));
                let mut e = entry(
                    "mission",
                    clip(&format!("paused before point {next_point}: {why}")),
                );
                e.tag = Some("paused".into());
                dialogue.push(e);
            }
            Event::Termination {
                reason,
                success,
                turns,
            } => {
                meta.termination = Some(reason.clone());
                meta.success = Some(*success);
                let mut e = entry("end", clip(&format!("{reason} after {turns} turn(s)")));
                e.tag = Some(if *success { "success" } else { "failure" }.into());
                dialogue.push(e);
            }
            Event::Score { alpha3: a, .. } => alpha3 = Some(*a),
        }
    }
    for v in &mut verdicts {
        if v.tool.is_none() {
            v.tool = observations
                .iter()
                .find(|(t, a, _)| *t == v.turn && *a == v.action)
                .map(|(_, _, tool)| tool.clone());
        }
    }
    if let Some(s) = scenario {
        frame_from_scenario(&mut frame, s, meta.end_s);
        meta.frame_source = "record+scenario".into();
    }
    Timeline {
        meta,
        frame,
        truth,
        link,
        breach_s: Vec::new(),
        breach_id: Vec::new(),
        verdicts,
        slice_decisions,
        dialogue,
        pillars: Vec::new(),
        alpha3,
        breach_note: None,
        pillars_note: None,
        notes: Vec::new(),
    }
}

fn find_action(actions: &[(u32, Vec<Action>)], turn: u32, index: u32) -> Option<&Action> {
    actions
        .iter()
        .rev()
        .find(|(t, _)| *t == turn)
        .and_then(|(_, list)| list.get(index as usize))
}

fn action_name(a: &Action) -> String {
    match a {
        Action::Mcp { name, .. } => name.clone(),
        Action::A2a { task, .. } => format!("a2a:{task}"),
    }
}

fn action_text(a: &Action) -> String {
    match a {
        Action::Mcp { name, args, .. } => format!("{name} {}", compact(args)),
        Action::A2a { task, payload, .. } => format!("a2a:{task} {}", compact(payload)),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The `waypoint` argument of a command, if it has one.
fn waypoint_of(a: &Action) -> Option<[f64; 3]> {
    let Action::Mcp { args, .. } = a else {
        return None;
    };
    let w = args.get("waypoint").unwrap_or(args);
    let num = |k: &str| w.get(k).and_then(Value::as_f64);
    Some([num("x")?, num("y")?, num("z").unwrap_or(0.0)])
}

/// Fence, zones, sites, home and band from the header's `initial_state` and limits.
fn frame_from_header(frame: &mut Frame, config: &Value) {
    let state = &config["initial_state"];
    let air = &state["airspace"];
    let pair = |v: &Value| -> Option<[f64; 2]> { Some([v.get(0)?.as_f64()?, v.get(1)?.as_f64()?]) };
    frame.band_m = pair(&air["alt_bounds"]);
    frame.gate_band_m = pair(&state["policy"]["alt_bounds"]);
    frame.geofence = serde_json::from_value(air["geofence"].clone()).unwrap_or_default();
    frame.no_fly = serde_json::from_value(air["no_fly_zones"].clone()).unwrap_or_default();
    frame.emergency_sites =
        serde_json::from_value(air["emergency_sites"].clone()).unwrap_or_default();
    let pose = &state["uav"]["pose"];
    frame.home = match (pose["x"].as_f64(), pose["y"].as_f64()) {
        (Some(x), Some(y)) => Some([x, y, pose["z"].as_f64().unwrap_or(0.0)]),
        _ => None,
    };
    let limits = &config["limits"];
    frame.reserve_battery_pct = limits["reserve_battery_pct"].as_f64();
    frame.hard_reserve_battery_pct = limits["hard_reserve_battery_pct"].as_f64();
}

/// Waypoints, other aircraft and the spawn point from the scenario. Traffic (and swarm peers)
/// follow the built-in world's own plans, sampled every [`TRACK_STEP_S`] up to `end_s`.
fn frame_from_scenario(frame: &mut Frame, s: &Scenario, end_s: f64) {
    frame.waypoints = s.mission.waypoints.clone();
    if frame.home.is_none() {
        frame.home = Some(s.spawn.xyz);
    }
    if frame.no_fly.is_empty() {
        frame.no_fly = s
            .airspace
            .no_fly_zones
            .iter()
            .chain(&s.airspace.no_fly_zones_dynamic)
            .cloned()
            .collect();
    }
    let cruise = FlightLimits::from_airframe(&s.uav).cruise_speed_mps;
    let steps = (end_s / TRACK_STEP_S).ceil().max(1.0) as usize;
    for a in Traffic::new(s, cruise).aircraft {
        let mut track = Track {
            name: a.id.clone(),
            ..Track::default()
        };
        for k in 0..=steps {
            let t = k as f64 * TRACK_STEP_S;
            let p = a.plan.position_at(t);
            track.t_s.push(t);
            track.x.push(r2(p[0]));
            track.y.push(r2(p[1]));
        }
        if a.cooperative {
            frame.peers.push(track);
        } else {
            frame.traffic.push(track);
        }
    }
}
