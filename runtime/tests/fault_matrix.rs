//! Fault injection over the closed loop (issue 9): for each fault, the expected safe behaviour
//! (hold, return, land or terminate), no panic, and a complete record — or, when the disk fills
//! up, the loss reported as an error with every earlier line kept exactly once.
//!
//! The vehicle flies out with the scripted agent; LLM faults start at its second decision, link
//! and world faults at scenario times while it is in the air. The matrix (fault → outcome) is
//! printed: `cargo nextest run -p alpha3 --test fault_matrix --no-capture`
//! (`ALPHA3_FAULT_DEBUG="<fault>"` prints that case's record, link and truth lines aside).
//!
//! The watchdog's return ends with a landing at home (its land step pre-empts a return only
//! when the return is ruled out or stops getting closer), so a failsafe leaves no violation;
//! every agent turn spans the config's decision period, so faults play out even while the
//! agent's turns do nothing; and an episode that ends with the vehicle in the air hands it to
//! the failsafe until it is down.
//!
//! SIGKILL of `alpha3 bench` and of `alpha3 fly` are tested with those commands.

#![allow(clippy::unwrap_used)]

mod ladder_support;

use alpha3::agent::{EpisodeOutcome, run_episode};
use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::canned::CannedGenerator;
use alpha3::policy::{BoxFuture, Decision, DecisionContext, LlmPolicy, Policy};
use alpha3::recorder::{Recorder, read_record};
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::catalogue;
use alpha3_core::record::{Event, RecordLine, parse_record};
use alpha3_core::scenario::{Comms, Fault, Scenario};
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use ladder_support::{GOOD_DECISIONS, config, scripted_agent, settings};
use serde_json::Map;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;
use tokio::time::Instant;

/// The scenario every case flies (its first waypoint is far from home).
const SCENARIO: usize = 0;
const SEED: u64 = 1;

/// What the policy does from its third decision on.
#[derive(Debug, Clone)]
enum LlmFault {
    /// Every answer comes three deadlines late.
    Timeout,
    /// Never answers.
    Hang,
    /// Answers, but with this text every time.
    Says(&'static str),
}

struct Faulty {
    scripted: Box<dyn Policy>,
    llm: Option<LlmPolicy<CannedGenerator>>,
    hang: bool,
    made: usize,
}

impl Faulty {
    fn new(scenario: &Scenario, fault: Option<&LlmFault>, deadline: Duration) -> Self {
        let replies = |text: &str| (0..200).map(|_| text.to_string()).collect::<Vec<_>>();
        let generator = fault.and_then(|f| match f {
            LlmFault::Timeout => Some(
                CannedGenerator::new(replies(r#"{"intent":"x","actions":[]}"#))
                    .with_delay(deadline * 3),
            ),
            LlmFault::Says(text) => Some(CannedGenerator::new(replies(text))),
            LlmFault::Hang => None,
        });
        Self {
            scripted: scripted_agent(scenario),
            llm: generator.map(|g| LlmPolicy::with_attempts("faulty", 3, g, catalogue()).unwrap()),
            hang: matches!(fault, Some(LlmFault::Hang)),
            made: 0,
        }
    }
}

impl Policy for Faulty {
    fn name(&self) -> &str {
        "faulty"
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        self.made += 1;
        if self.made <= GOOD_DECISIONS {
            return self.scripted.decide(ctx, deadline);
        }
        if self.hang {
            return Box::pin(std::future::pending());
        }
        match &mut self.llm {
            Some(llm) => llm.decide(ctx, deadline),
            None => self.scripted.decide(ctx, deadline),
        }
    }
}

/// One row of the matrix.
struct Case {
    fault: &'static str,
    expected: &'static str,
    llm: Option<LlmFault>,
    faults: Vec<Fault>,
    loss_windows: Vec<[f64; 2]>,
}

fn fault(kind: &str, t_s: f64, duration_s: f64, severity: f64) -> Fault {
    Fault {
        t_s,
        kind: kind.into(),
        duration_s,
        severity,
        extra: Map::new(),
    }
}

struct Observed {
    out: EpisodeOutcome,
    lines: Vec<RecordLine>,
    /// `(t_ms, action, cause)`.
    watchdog: Vec<(u64, String, String)>,
    violations: Vec<String>,
    /// `(t_ms, kind)` of each violation.
    violation_times: Vec<(u64, String)>,
    airborne_at_end: bool,
    home_distance_end_m: f64,
    /// Where the vehicle ended, x/y (truth).
    end_xy: [f64; 2],
    /// Agent turns after the fault other than the safe fallback and the watchdog's.
    commands_after_fault: usize,
}

fn scenario_for(case: &Case) -> Scenario {
    let mut s = suite_scenario(SCENARIO);
    s.faults = case.faults.clone();
    if !case.loss_windows.is_empty() {
        s.comms = Some(Comms {
            loss_windows: case.loss_windows.clone(),
            extra: Map::new(),
        });
    }
    s
}

/// Flies every case in `dir` and prints their rows of the matrix.
async fn fly_cases(cases: &[Case], dir: &Path) -> Vec<Observed> {
    let mut table = header();
    let mut observed = Vec::new();
    for case in cases {
        let o = fly_case(case, dir).await;
        row(&mut table, case, &o);
        observed.push(o);
    }
    println!("{table}");
    observed
}

async fn fly_case(case: &Case, dir: &Path) -> Observed {
    fly_case_with(case, dir, settings()).await
}

async fn fly_case_with(case: &Case, dir: &Path, settings: EpisodeSettings) -> Observed {
    let scenario = scenario_for(case);
    let config = config();
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let mut policy = Faulty::new(
        &scenario,
        case.llm.as_ref(),
        Duration::from_millis(settings.deadline_ms),
    );
    let home = [scenario.spawn.xyz[0], scenario.spawn.xyz[1]];
    let mut world = World::new(scenario, WorldOptions::seeded(SEED));
    let path = dir.join(format!("{}.jsonl", case.fault.replace([' ', '/'], "_")));
    let mut rec = Recorder::create(&path).unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(24 * 3600),
        run_episode(&mut world, &mut policy, &mut gate, &settings, &mut rec),
    )
    .await
    .unwrap_or_else(|_| panic!("{}: the loop waited forever", case.fault))
    .unwrap();
    let parsed = read_record(&path).unwrap();
    assert!(!parsed.torn_tail, "{}", case.fault);
    let lines = parsed.lines;
    let seqs: Vec<u64> = lines.iter().map(|l| l.seq).collect();
    assert_eq!(
        seqs,
        (0..lines.len() as u64).collect::<Vec<_>>(),
        "{}",
        case.fault
    );
    assert!(
        matches!(
            lines.last().map(|l| &l.event),
            Some(Event::Termination { .. })
        ),
        "{}: the record ends with its termination",
        case.fault
    );
    if std::env::var_os("ALPHA3_FAULT_DEBUG").is_some_and(|v| v == case.fault) {
        for l in &lines {
            if !matches!(l.event, Event::Link { .. } | Event::Truth { .. }) {
                eprintln!("{} {}", l.t_ms, serde_json::to_string(&l.event).unwrap());
            }
        }
    }
    let fault_turn = 2 * GOOD_DECISIONS as u32 + 1;
    let truth = world.truth();
    Observed {
        watchdog: lines
            .iter()
            .filter_map(|l| match &l.event {
                Event::Watchdog { action, reason } => {
                    Some((l.t_ms, action.clone(), reason.clone()))
                }
                _ => None,
            })
            .collect(),
        violations: lines
            .iter()
            .filter_map(|l| match &l.event {
                Event::Violation { kind, detail } => Some(format!("{kind}: {detail}")),
                _ => None,
            })
            .collect(),
        violation_times: lines
            .iter()
            .filter_map(|l| match &l.event {
                Event::Violation { kind, .. } => Some((l.t_ms, kind.clone())),
                _ => None,
            })
            .collect(),
        airborne_at_end: world.snapshot().is_airborne(),
        home_distance_end_m: (truth.position[0] - home[0]).hypot(truth.position[1] - home[1]),
        end_xy: [truth.position[0], truth.position[1]],
        commands_after_fault: lines
            .iter()
            .filter(|l| {
                matches!(&l.event, Event::AgentTurn { turn, agent_turn }
                    if *turn >= fault_turn
                        && !["hold_after_generation_failure", "watchdog_in_charge"]
                            .contains(&agent_turn.intent.as_str()))
            })
            .count(),
        out,
        lines,
    }
}

fn steps(o: &Observed) -> String {
    let v: Vec<String> = o
        .watchdog
        .iter()
        .map(|(t, a, c)| format!("{a}@{:.0}s({c})", *t as f64 / 1000.0))
        .collect();
    if v.is_empty() {
        "—".into()
    } else {
        v.join(" → ")
    }
}

/// The watchdog's ladder: its steps, without the gate's escapes from a predicted breach
/// (cause `predictedbreach`: a climb, a hold or a move aside out of traffic's way), which are
/// not rungs of the ladder. When such an escape hold came first, the ladder's own hold is
/// already in effect and the ladder goes on from it, so a leading `hold` is added back.
fn ladder(o: &Observed) -> Vec<&str> {
    let escaped_hold = o
        .watchdog
        .iter()
        .take_while(|w| w.2 == ESCAPE)
        .any(|w| w.1 == "hold");
    let mut l: Vec<&str> = o
        .watchdog
        .iter()
        .filter(|w| w.2 != ESCAPE)
        .map(|w| w.1.as_str())
        .collect();
    if escaped_hold && l.first() != Some(&"hold") {
        l.insert(0, "hold");
    }
    l
}

/// The cause of the gate's escapes from a predicted breach.
const ESCAPE: &str = "predictedbreach";

/// How close to home a return lands, m (the autopilot's arrival radius and GNSS noise).
const HOME_M: f64 = 5.0;

/// The ladder, hold → return, with `cause`, the return landing at home (no land step on the
/// way: nothing rules the return out here), and no violation at all.
fn assert_ladder(case: &Case, o: &Observed, cause: &str) {
    let l = ladder(o);
    assert_eq!(
        l,
        ["hold", "return_to_home"],
        "{}: watchdog {}",
        case.fault,
        steps(o)
    );
    assert!(
        o.watchdog.iter().all(|w| w.2 == cause || w.2 == ESCAPE),
        "{}: {}",
        case.fault,
        steps(o)
    );
    landed_at_home(case, o);
    assert_eq!(
        o.commands_after_fault, 0,
        "{}: a faulty answer reached the gate",
        case.fault
    );
}

/// On the ground at home, with no violation in the truth.
fn landed_at_home(case: &Case, o: &Observed) {
    assert!(!o.airborne_at_end, "{}: still airborne", case.fault);
    assert!(
        o.home_distance_end_m <= HOME_M,
        "{}: landed {:.1} m from home",
        case.fault,
        o.home_distance_end_m
    );
    assert!(
        o.violations.is_empty(),
        "{}: {:?}",
        case.fault,
        o.violations
    );
}

/// A vehicle holding for traffic can be passed at the separation minimum (known, see
/// `closed_loop.rs`); any other violation fails.
fn separation_while_holding_only(case: &Case, o: &Observed) {
    for v in &o.violations {
        assert!(v.starts_with("separation"), "{}: {v}", case.fault);
        println!("FINDING {}: {v}", case.fault);
    }
}

fn row(table: &mut String, case: &Case, o: &Observed) {
    let _ = writeln!(
        table,
        "| {} | {} | {} | {} ({}) | {} | {} | {:.0} m | {} | {} lines, complete |",
        case.fault,
        case.expected,
        steps(o),
        o.out.reason,
        if o.out.success {
            "success"
        } else {
            "no success"
        },
        o.out.generation_failures,
        if o.airborne_at_end {
            "airborne"
        } else {
            "on ground"
        },
        o.home_distance_end_m,
        if o.violations.is_empty() {
            "0".to_string()
        } else {
            o.violations.join("; ")
        },
        o.lines.len(),
    );
}

fn header() -> String {
    "| fault | expected | watchdog | termination | gen. failures | end | from home | violations | record |\n\
     |---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

#[tokio::test(start_paused = true)]
async fn llm_faults_hold_then_return_then_land() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        Case {
            fault: "LLM timeout",
            expected: "hold → return, landing at home (deadline missed)",
            llm: Some(LlmFault::Timeout),
            faults: vec![],
            loss_windows: vec![],
        },
        Case {
            fault: "LLM hang",
            expected: "hold → return, landing at home (deadline missed)",
            llm: Some(LlmFault::Hang),
            faults: vec![],
            loss_windows: vec![],
        },
        Case {
            fault: "LLM garbage",
            expected: "hold → return, landing at home (generation failures)",
            llm: Some(LlmFault::Says(
                "Sure! I'll fly to the waypoint now :) <end>",
            )),
            faults: vec![],
            loss_windows: vec![],
        },
        Case {
            fault: "LLM empty output",
            expected: "hold → return, landing at home (generation failures)",
            llm: Some(LlmFault::Says("")),
            faults: vec![],
            loss_windows: vec![],
        },
        Case {
            fault: "LLM unknown tools",
            expected: "nothing reaches the vehicle; hold → return, landing at home",
            llm: Some(LlmFault::Says(
                r#"{"intent":"go","actions":[{"type":"mcp","name":"teleport","args":{"x":900,"y":0}},{"type":"mcp","name":"disable_geofence","args":{}}]}"#,
            )),
            faults: vec![],
            loss_windows: vec![],
        },
    ];
    let observed = fly_cases(&cases, dir.path()).await;
    for (case, o) in cases.iter().zip(&observed) {
        let cause = match case.llm {
            Some(LlmFault::Timeout | LlmFault::Hang) => "deadlinemissed",
            _ => "generationfailures",
        };
        assert_ladder(case, o, cause);
    }
}

fn short_link_loss() -> Case {
    Case {
        fault: "link loss 40 s, then recovery",
        expected: "hold → return while lost; decisions resume after",
        llm: None,
        faults: vec![],
        loss_windows: vec![[60.0, 100.0]],
    }
}

#[tokio::test(start_paused = true)]
async fn a_link_loss_holds_and_after_recovery_decisions_resume() {
    let dir = tempfile::tempdir().unwrap();
    let case = short_link_loss();
    let o = fly_case(&case, dir.path()).await;
    let mut table = header();
    row(&mut table, &case, &o);
    println!("{table}");
    assert!(o.violations.is_empty(), "{:?}", o.violations);
    assert_eq!(
        o.watchdog.first().map(|w| (w.1.as_str(), w.2.as_str())),
        Some(("hold", "linklost")),
        "{}",
        steps(&o)
    );
    assert_ne!(o.out.reason, "link_lost", "a 40 s loss is survived");
    // After the link came back, the agent flew again.
    let resumed = o
        .lines
        .iter()
        .any(|l| l.t_ms > 100_000 && matches!(&l.event, Event::Verdict { .. }));
    assert!(resumed, "no command after the link recovered");
}

/// The scripted agent answers the lost link with turns whose commands the slice policy holds
/// back; each still spans the decision period, so the loss lasts long enough to end the
/// episode, while the watchdog's return brings the vehicle home and lands it there.
#[tokio::test(start_paused = true)]
async fn a_permanent_link_loss_lands_and_ends_the_episode() {
    let dir = tempfile::tempdir().unwrap();
    let case = Case {
        fault: "link loss for good",
        expected: "hold → return, landing at home; terminate on link_lost",
        llm: None,
        faults: vec![],
        loss_windows: vec![[60.0, 1e6]],
    };
    let o = fly_case(&case, dir.path()).await;
    let mut table = header();
    row(&mut table, &case, &o);
    println!("{table}");
    assert_eq!(o.out.reason, "link_lost", "{}", steps(&o));
    assert_eq!(ladder(&o), ["hold", "return_to_home"], "{}", steps(&o));
    assert!(
        o.watchdog.iter().all(|w| w.2 == "linklost"),
        "{}",
        steps(&o)
    );
    landed_at_home(&case, &o);
}

/// A double fault: the LLM hangs, and GNSS is jammed for good once the watchdog's return has
/// been under way for 20 s. Without a fix the gate rules the return out, so the land step
/// pre-empts it at once and the vehicle comes down there; that landing, off any authorised
/// site, is the one violation, and the world's fault. (The first run finds when the return
/// starts; the world is deterministic, so the second is the same up to the jamming.)
#[tokio::test(start_paused = true)]
async fn a_return_ruled_out_by_the_gate_gives_way_to_the_land_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut case = Case {
        fault: "LLM hang, then GNSS jammed on the way home",
        expected: "hold → return → land at once (no fix: return ruled out)",
        llm: Some(LlmFault::Hang),
        faults: vec![],
        loss_windows: vec![],
    };
    let first_dir = tempfile::tempdir().unwrap();
    let first = fly_case(&case, first_dir.path()).await;
    let t_return = first
        .watchdog
        .iter()
        .find(|w| w.1 == "return_to_home")
        .map(|w| w.0)
        .unwrap_or_else(|| panic!("no return: {}", steps(&first)));
    let t_jam = t_return + 20_000;
    case.faults = vec![fault("gnss_jamming", t_jam as f64 / 1000.0, 1e6, 1.0)];
    let o = fly_case(&case, dir.path()).await;
    let mut table = header();
    row(&mut table, &case, &o);
    println!("{table}");
    assert_eq!(
        ladder(&o),
        ["hold", "return_to_home", "land"],
        "{}",
        steps(&o)
    );
    let t_land = o
        .watchdog
        .iter()
        .find(|w| w.1 == "land" && w.2 != ESCAPE)
        .map(|w| w.0)
        .unwrap();
    assert!(
        (t_jam..=t_jam + 1_000).contains(&t_land),
        "land at {t_land} ms, jammed from {t_jam} ms"
    );
    assert!(!o.airborne_at_end, "still airborne");
    // Without a fix the vehicle drifts with the wind as it descends; where it lands is the
    // world's business, that it lands at once is the watchdog's.
    for (t, kind) in &o.violation_times {
        assert!(
            *t > t_land && kind == "altitude",
            "violation {kind} at {t} ms: {:?}",
            o.violations
        );
    }
}

/// No fault but the end of the episode: the turn budget runs out while the vehicle is out on
/// its mission. Nobody will decide for it any more, so the failsafe takes it to the nearest
/// authorised place to land (home or an emergency site) and lands it there before the
/// termination is recorded.
#[tokio::test(start_paused = true)]
async fn an_episode_ending_in_the_air_hands_the_vehicle_to_the_failsafe() {
    let dir = tempfile::tempdir().unwrap();
    let case = Case {
        fault: "turn budget ends in flight",
        expected: "return, landing at the nearest of home and the sites (episode ended)",
        llm: None,
        faults: vec![],
        loss_windows: vec![],
    };
    let mut s = settings();
    s.max_turns = 3;
    let o = fly_case_with(&case, dir.path(), s).await;
    let mut table = header();
    row(&mut table, &case, &o);
    println!("{table}");
    assert_eq!(o.out.reason, "turn_budget");
    let ladder: Vec<(&str, &str)> = o
        .watchdog
        .iter()
        .filter(|w| w.2 != ESCAPE)
        .map(|w| (w.1.as_str(), w.2.as_str()))
        .collect();
    assert!(
        ladder == [("return_to_home", "episodeended")]
            || ladder == [("return_to_site", "episodeended")],
        "{}",
        steps(&o)
    );
    let t_return = o
        .watchdog
        .iter()
        .find(|w| w.2 != ESCAPE)
        .map(|w| w.0)
        .unwrap();
    let t_end = o.lines.last().unwrap().t_ms;
    let last_operator = o
        .lines
        .iter()
        .rev()
        .find(|l| matches!(l.event, Event::OperatorTurn { .. }))
        .unwrap()
        .t_ms;
    assert_eq!(
        t_return, last_operator,
        "handed over when the episode ended"
    );
    let from_home = |p: &alpha3_core::frames::Enu| {
        let s = scenario_for(&case).spawn.xyz;
        (p.x - s[0]).hypot(p.y - s[1])
    };
    let out_there = o
        .lines
        .iter()
        .find_map(|l| match &l.event {
            Event::Truth { position, .. } if l.t_ms >= t_return => Some(from_home(position)),
            _ => None,
        })
        .unwrap();
    assert!(out_there > 100.0, "handed over {out_there:.0} m from home");
    assert!(t_end > t_return, "the termination comes after the landing");
    // Landed at the place nearest to where it was handed over, with no violation.
    let scenario = scenario_for(&case);
    let at_hand_over = o
        .lines
        .iter()
        .find_map(|l| match &l.event {
            Event::Truth { position, .. } if l.t_ms >= t_return => Some([position.x, position.y]),
            _ => None,
        })
        .unwrap();
    let d = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    let nearest = std::iter::once([scenario.spawn.xyz[0], scenario.spawn.xyz[1]])
        .chain(
            scenario
                .landing
                .iter()
                .flat_map(|l| l.emergency_sites.iter().map(|s| [s[0], s[1]])),
        )
        .min_by(|a, b| d(*a, at_hand_over).total_cmp(&d(*b, at_hand_over)))
        .unwrap();
    assert!(!o.airborne_at_end, "still airborne");
    assert!(
        d(o.end_xy, nearest) <= HOME_M,
        "landed at {:?}, the nearest place was {nearest:?}",
        o.end_xy
    );
    assert!(o.violations.is_empty(), "{:?}", o.violations);
}

#[tokio::test(start_paused = true)]
async fn world_faults_are_flown_safely() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        Case {
            fault: "motor failure, severity 0.6",
            expected: "degraded flight; no violation but the known separation case",
            llm: None,
            faults: vec![fault("motor_failure", 60.0, 0.0, 0.6)],
            loss_windows: vec![],
        },
        Case {
            fault: "GNSS jamming 60 s",
            expected: "dead reckoning; no violation but the known separation case",
            llm: None,
            faults: vec![fault("gnss_jamming", 60.0, 60.0, 1.0)],
            loss_windows: vec![],
        },
        Case {
            fault: "battery sag 50 %",
            expected: "complete or land early; no violation but the known separation case",
            llm: None,
            faults: vec![fault("battery_sag", 60.0, 0.0, 0.5)],
            loss_windows: vec![],
        },
    ];
    let observed = fly_cases(&cases, dir.path()).await;
    for (case, o) in cases.iter().zip(&observed) {
        separation_while_holding_only(case, o);
        assert!(
            !o.airborne_at_end || o.out.success,
            "{}: {}",
            case.fault,
            o.out.reason
        );
    }
}

/// At severity 1 the vehicle cannot hold altitude and refuses every command; the agent's turns
/// (all refused) still span the decision period, so the fall is flown and the crash ends the
/// episode: the world's fault, recorded after the failure, not a hang on the turn budget.
#[tokio::test(start_paused = true)]
async fn a_total_motor_failure_ends_the_episode_on_the_violation() {
    let dir = tempfile::tempdir().unwrap();
    let case = Case {
        fault: "motor failure, severity 1",
        expected: "loss of control: terminate, violation recorded",
        llm: None,
        faults: vec![fault("motor_failure", 60.0, 0.0, 1.0)],
        loss_windows: vec![],
    };
    let o = fly_case(&case, dir.path()).await;
    let mut table = header();
    row(&mut table, &case, &o);
    println!("{table}");
    assert_eq!(o.out.reason, "safety_violation", "{}", steps(&o));
    assert!(!o.airborne_at_end, "still in the air");
    assert!(
        o.violation_times.iter().any(|(_, k)| k == "crash"),
        "{:?}",
        o.violations
    );
    assert!(
        o.violation_times.iter().all(|(t, _)| *t >= 60_000),
        "a violation before the failure: {:?}",
        o.violation_times
    );
}

// ---- disk full ----

const DISK_FULL_DIR: &str = "ALPHA3_TEST_DISK_FULL_DIR";

/// Flies the LLM-free reference episode into `path`.
async fn reference_episode(path: &Path) -> Result<EpisodeOutcome, alpha3::recorder::RecorderError> {
    let case = Case {
        fault: "none",
        expected: "",
        llm: None,
        faults: vec![],
        loss_windows: vec![],
    };
    let scenario = scenario_for(&case);
    let config = config();
    let settings = settings();
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let mut policy = scripted_agent(&scenario);
    let mut world = World::new(scenario, WorldOptions::seeded(SEED));
    let mut rec = Recorder::create(path)?;
    run_episode(&mut world, policy.as_mut(), &mut gate, &settings, &mut rec).await
}

/// Runs in a child process whose record directory is a tiny tmpfs (see the parent test).
#[tokio::test]
#[ignore = "the child half of disk_full_is_reported_and_loses_no_earlier_line"]
async fn disk_full_child() {
    let Some(dir) = std::env::var_os(DISK_FULL_DIR) else {
        return;
    };
    let path = Path::new(&dir).join("ep.jsonl");
    let r = reference_episode(&path).await;
    // The tmpfs goes with this process's mount namespace: hand the file's bytes to the parent.
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    println!("DISK_FULL_FILE {}", serde_json::to_string(&text).unwrap());
    match r {
        Ok(out) => println!("DISK_FULL_RESULT ok {}", out.reason),
        Err(e) => println!("DISK_FULL_RESULT err {e}"),
    }
}

#[tokio::test]
async fn disk_full_is_reported_and_loses_no_earlier_line() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let exe = std::env::current_exe().unwrap();
    // A 48 KiB tmpfs in a private mount namespace: writes fail with ENOSPC mid-episode. Where
    // mount namespaces are not allowed, a file-size limit (EFBIG) stands in for the full disk.
    const DISK_FULL_CHILD_ARGS: [&str; 4] = [
        "--exact",
        "disk_full_child",
        "--nocapture",
        "--include-ignored",
    ];
    let script = r#"mount -t tmpfs -o size=48k none "$1" && shift && exec "$@""#;
    let mut out = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(&full)
        .arg(&exe)
        .args(DISK_FULL_CHILD_ARGS)
        .env(DISK_FULL_DIR, &full)
        .output();
    let mut how = "tmpfs of 48 KiB (ENOSPC)";
    let ran = out
        .as_ref()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("DISK_FULL_RESULT"));
    if !ran {
        how = "file-size limit of 48 KiB (EFBIG)";
        let script = r#"trap '' XFSZ; ulimit -f 48; exec "$@""#;
        out = std::process::Command::new("bash")
            .args(["-c", script, "bash"])
            .arg(&exe)
            .args(DISK_FULL_CHILD_ARGS)
            .env(DISK_FULL_DIR, &full)
            .output();
    }
    let out = out.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "the child panicked or failed:\n{stdout}\n{stderr}"
    );
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("DISK_FULL_RESULT "))
        .unwrap_or_else(|| panic!("no result from the child:\n{stdout}\n{stderr}"))
        .to_string();
    let file: String = stdout
        .lines()
        .find_map(|l| l.strip_prefix("DISK_FULL_FILE "))
        .map(|j| serde_json::from_str(j).unwrap())
        .unwrap_or_default();
    let partial = parse_record(&file).unwrap();
    let reference = dir.path().join("reference.jsonl");
    reference_episode(&reference).await.unwrap();
    let full_lines = read_record(&reference).unwrap().lines;
    let n = partial.lines.len();
    println!(
        "| disk full ({how}) | error reported, earlier lines kept once | — | {result} | — | — | — | — | {n} of {} lines kept{} |",
        full_lines.len(),
        if partial.torn_tail {
            ", torn tail dropped"
        } else {
            ""
        }
    );
    assert!(
        result.starts_with("err "),
        "the loss was not reported: {result}"
    );
    assert!(n > 0 && n < full_lines.len(), "{n} of {}", full_lines.len());
    assert_eq!(
        partial.lines[..],
        full_lines[..n],
        "a line was lost, changed or duplicated"
    );
}
