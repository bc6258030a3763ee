//! An LLM that stalls past its deadline leaves the vehicle holding, then returning home and
//! landing there (the config's failsafe ladder), and never drifting (issue 8, "Done when").
//!
//! The vehicle first flies out with the scripted agent; then the policy stalls:
//! - `sleeps`: a policy that ignores its deadline, sleeps three deadlines and then answers with
//!   a far waypoint (a late answer must not be flown);
//! - `hangs`: a policy that never answers;
//! - `canned LLM`: the real `LlmPolicy` over a generator whose every answer comes three
//!   deadlines late (it enforces the deadline itself).
//!
//! Checked on the truth trace: while holding the vehicle stays within [`HOLD_RADIUS_M`] of
//! where it stopped; once returning it gets closer to home; then it descends and lands at home
//! without drifting. The ladder's land step (due 15 s after the return with the config's
//! ladder) does not cut the return short while it gets closer, so there is no landing off an
//! authorised site and no violation at all. The tokio clock is paused, so stalls take no wall
//! time.

#![allow(clippy::unwrap_used)]

mod ladder_support;

use alpha3::agent::{EpisodeOutcome, run_episode};
use alpha3::episode_setup::profile_for_scenario;
use alpha3::policy::canned::CannedGenerator;
use alpha3::policy::{BoxFuture, Decision, DecisionContext, LlmPolicy, Policy};
use alpha3::recorder::{Recorder, read_record};
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::{Action, AgentTurn, catalogue, render_turn};
use alpha3_core::record::{Event, RecordLine};
use alpha3_core::scenario::Scenario;
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use ladder_support::{GOOD_DECISIONS, config, scripted_agent, settings};
use serde_json::json;
use std::path::Path;
use std::time::Duration;
use tokio::time::Instant;

/// How far a holding vehicle may wander (wind gusts against the position controller), m.
const HOLD_RADIUS_M: f64 = 3.0;
/// How close to home a return lands, m (the autopilot's arrival radius and GNSS noise).
const HOME_M: f64 = 5.0;

/// What the policy does once it stalls.
#[derive(Debug, Clone, Copy)]
enum Stall {
    /// Sleeps this long, ignoring the deadline, then answers with a far waypoint.
    Sleeps(Duration),
    /// Never answers.
    Hangs,
}

/// The scripted agent for [`GOOD_DECISIONS`] decisions, then a stall.
struct StallAfter {
    inner: Box<dyn Policy>,
    made: usize,
    stall: Stall,
}

fn late_answer() -> AgentTurn {
    AgentTurn {
        intent: "late_answer".into(),
        actions: vec![Action::mcp(
            "set_waypoint",
            json!({"waypoint": {"x": -400.0, "y": 400.0, "z": 40.0}}),
        )],
    }
}

impl Policy for StallAfter {
    fn name(&self) -> &str {
        "stall"
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        self.made += 1;
        if self.made <= GOOD_DECISIONS {
            return self.inner.decide(ctx, deadline);
        }
        let stall = self.stall;
        Box::pin(async move {
            match stall {
                Stall::Sleeps(d) => tokio::time::sleep(d).await,
                Stall::Hangs => std::future::pending::<()>().await,
            }
            Decision {
                outcome: Ok(late_answer()),
                attempts: Vec::new(),
            }
        })
    }
}

/// The scripted agent's first decisions, then an `LlmPolicy` whose generator answers late.
struct ThenLlm {
    scripted: Box<dyn Policy>,
    llm: LlmPolicy<CannedGenerator>,
    made: usize,
}

impl Policy for ThenLlm {
    fn name(&self) -> &str {
        "canned-llm"
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        self.made += 1;
        if self.made <= GOOD_DECISIONS {
            self.scripted.decide(ctx, deadline)
        } else {
            self.llm.decide(ctx, deadline)
        }
    }
}

/// A scenario whose first waypoint is far from home, so holding and returning are visible;
/// the stall is its only fault (its GNSS jamming would rule the return out: `fault_matrix`
/// covers that).
fn scenario() -> Scenario {
    let mut s = suite_scenario(0);
    s.faults.clear();
    let home = s.spawn.xyz;
    let w = s.mission.waypoints[0];
    assert!(
        (w[0] - home[0]).hypot(w[1] - home[1]) > 100.0,
        "{}: first waypoint too close to home for this test",
        s.name
    );
    s
}

async fn fly(policy: &mut dyn Policy, path: &Path) -> (EpisodeOutcome, Vec<RecordLine>, World) {
    let scenario = scenario();
    let config = config();
    let settings = settings();
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let mut world = World::new(scenario, WorldOptions::seeded(1));
    let mut rec = Recorder::create(path).unwrap();
    // Virtual time: a loop that waits for a hung policy forever fails here instead of hanging.
    let out = tokio::time::timeout(
        Duration::from_secs(24 * 3600),
        run_episode(&mut world, policy, &mut gate, &settings, &mut rec),
    )
    .await
    .expect("the loop waited on a stalled policy forever")
    .unwrap();
    let lines = read_record(path).unwrap().lines;
    (out, lines, world)
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    t_ms: u64,
    xy: [f64; 2],
    z: f64,
    airborne: bool,
}

fn truth(lines: &[RecordLine]) -> Vec<Sample> {
    lines
        .iter()
        .filter_map(|l| match &l.event {
            Event::Truth {
                position, airborne, ..
            } => Some(Sample {
                t_ms: l.t_ms,
                xy: [position.x, position.y],
                z: position.z,
                airborne: *airborne,
            }),
            _ => None,
        })
        .collect()
}

fn watchdog_steps(lines: &[RecordLine]) -> Vec<(u64, String, String)> {
    lines
        .iter()
        .filter_map(|l| match &l.event {
            Event::Watchdog { action, reason } => Some((l.t_ms, action.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// The safe sequence on the truth trace: hold in place, return home, land there.
fn check_hold_return_land(what: &str, lines: &[RecordLine], home: [f64; 2]) {
    let steps = watchdog_steps(lines);
    let trace = truth(lines);
    eprintln!("{what}: watchdog {steps:?}");
    let turns: Vec<(u64, &str)> = lines
        .iter()
        .filter_map(|l| match &l.event {
            Event::AgentTurn { agent_turn, .. } => Some((l.t_ms, agent_turn.intent.as_str())),
            _ => None,
        })
        .collect();
    eprintln!("{what}: agent turns {turns:?}");
    let at = |action: &str| {
        steps
            .iter()
            .find(|s| s.1 == action)
            .map(|s| s.0)
            .unwrap_or_else(|| panic!("{what}: no watchdog {action} in {steps:?}"))
    };
    let t_return = at("return_to_home");
    // The hold the return stepped on from: the last one before it (an escape hold earlier, for
    // a predicted breach, may have been followed by the rest of the turn's own flight).
    let t_hold = steps
        .iter()
        .filter(|s| s.1 == "hold" && s.0 < t_return)
        .map(|s| s.0)
        .next_back()
        .unwrap_or_else(|| panic!("{what}: no watchdog hold before the return in {steps:?}"));
    assert!(t_hold < t_return, "{what}: {steps:?}");
    // The gate's escapes from a predicted breach (a climb or a hold out of traffic's way) are
    // not rungs of the ladder; an escape hold stands for the ladder's own hold.
    let mut ladder: Vec<&str> = steps
        .iter()
        .filter(|s| s.2 != "predictedbreach")
        .map(|s| s.1.as_str())
        .collect();
    if ladder.first() != Some(&"hold") {
        ladder.insert(0, "hold");
    }
    assert_eq!(
        ladder,
        ["hold", "return_to_home"],
        "{what}: the land step cut the return short"
    );
    for s in &steps {
        assert!(
            s.2 == "deadlinemissed" || s.2 == "predictedbreach",
            "{what}: cause {s:?}"
        );
    }
    eprintln!(
        "{what}: hold {:.1} s, return {:.1} s (world time)",
        t_hold as f64 / 1e3,
        t_return as f64 / 1e3,
    );
    let held = trace
        .iter()
        .filter(|s| s.t_ms >= t_hold && s.t_ms <= t_return)
        .collect::<Vec<_>>();
    assert!(
        held.len() >= 3,
        "{what}: {} samples while holding",
        held.len()
    );
    let anchor = held[0].xy;
    let wander = held.iter().map(|s| dist(s.xy, anchor)).fold(0.0, f64::max);
    eprintln!(
        "{what}: held {:.0} s at ({:.1}, {:.1}) within {wander:.2} m",
        (t_return - t_hold) as f64 / 1000.0,
        anchor[0],
        anchor[1]
    );
    assert!(
        wander <= HOLD_RADIUS_M,
        "{what}: drifted {wander:.2} m while holding"
    );
    assert!(held.iter().all(|s| s.airborne), "{what}: held in the air");
    let ret: Vec<_> = trace.iter().filter(|s| s.t_ms >= t_return).collect();
    let d0 = dist(ret[0].xy, home);
    // Home: the first sample over it.
    let arrived = ret
        .iter()
        .position(|s| dist(s.xy, home) <= HOME_M)
        .unwrap_or_else(|| panic!("{what}: never got home"));
    eprintln!(
        "{what}: returned from {d0:.1} m to home in {:.0} s",
        (ret[arrived].t_ms - t_return) as f64 / 1000.0
    );
    assert!(
        ret[..=arrived]
            .windows(2)
            .all(|w| dist(w[1].xy, home) <= dist(w[0].xy, home) + 0.5),
        "{what}: the return did not keep closing on home"
    );
    let over_home = &ret[arrived..];
    let last = over_home.last().unwrap();
    eprintln!(
        "{what}: over home, z {:.1} → {:.1}, airborne at the end: {}",
        over_home[0].z, last.z, last.airborne
    );
    assert!(!last.airborne, "{what}: still airborne at the end");
    // Landing at home: no drift off it while descending.
    let land_wander = over_home
        .iter()
        .map(|s| dist(s.xy, home))
        .fold(0.0, f64::max);
    assert!(
        land_wander <= HOME_M,
        "{what}: drifted {land_wander:.2} m from home while landing"
    );
    // The truth: no violation at all.
    for l in lines {
        if let Event::Violation { kind, detail } = &l.event {
            panic!("{what}: violation at {} ms: {kind} {detail}", l.t_ms);
        }
    }
    assert!(
        !lines.iter().any(|l| matches!(&l.event,
            Event::AgentTurn { agent_turn, .. } if agent_turn.intent == "late_answer")),
        "{what}: a late answer was flown"
    );
}

fn home() -> [f64; 2] {
    let s = scenario();
    [s.spawn.xyz[0], s.spawn.xyz[1]]
}

fn scripted() -> Box<dyn Policy> {
    scripted_agent(&scenario())
}

#[tokio::test(start_paused = true)]
async fn a_policy_that_sleeps_past_its_deadline_leaves_the_vehicle_holding_then_returning() {
    let dir = tempfile::tempdir().unwrap();
    let deadline = Duration::from_millis(settings().deadline_ms);
    let mut p = StallAfter {
        inner: scripted(),
        made: 0,
        stall: Stall::Sleeps(deadline * 3),
    };
    let (out, lines, _) = fly(&mut p, &dir.path().join("ep.jsonl")).await;
    eprintln!("{out:?}");
    check_hold_return_land("sleeps", &lines, home());
}

#[tokio::test(start_paused = true)]
async fn a_policy_that_hangs_leaves_the_vehicle_holding_then_returning() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = StallAfter {
        inner: scripted(),
        made: 0,
        stall: Stall::Hangs,
    };
    let (out, lines, _) = fly(&mut p, &dir.path().join("ep.jsonl")).await;
    eprintln!("{out:?}");
    check_hold_return_land("hangs", &lines, home());
}

#[tokio::test(start_paused = true)]
async fn a_canned_llm_answering_late_leaves_the_vehicle_holding_then_returning() {
    let dir = tempfile::tempdir().unwrap();
    let deadline = Duration::from_millis(settings().deadline_ms);
    let answers: Vec<String> = (0..60).map(|_| render_turn(&late_answer())).collect();
    let generator = CannedGenerator::new(answers).with_delay(deadline * 3);
    let mut p = ThenLlm {
        scripted: scripted(),
        llm: LlmPolicy::with_attempts("canned-llm", 3, generator, catalogue()).unwrap(),
        made: 0,
    };
    let (out, lines, _) = fly(&mut p, &dir.path().join("ep.jsonl")).await;
    eprintln!("{out:?}");
    assert!(out.generation_failures >= 1, "{out:?}");
    check_hold_return_land("canned LLM", &lines, home());
}
