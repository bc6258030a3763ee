//! A full closed-loop episode with the scripted reference agent in the built-in world: every
//! command passes the gate, the record is complete and scorable, and the truth has no violation.

#![allow(clippy::unwrap_used)]

use alpha3::agent::{EpisodeOutcome, run_episode};
use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::{EpisodeBrief, from_config};
use alpha3::recorder::{Recorder, read_record};
use alpha3_core::config::Config;
use alpha3_core::gate::GateContext;
use alpha3_core::record::Event;
use alpha3_sim::evaluator::MissionReport;
use alpha3_sim::scenario::parse_scenario;
use alpha3_sim::{World, WorldOptions};
use alpha3_test_support::root;

struct Flown {
    out: EpisodeOutcome,
    events: Vec<Event>,
    /// World time of each event, milliseconds.
    times: Vec<u64>,
    report: MissionReport,
}

async fn fly(scenario_file: &str, seed: u64) -> Flown {
    let text = std::fs::read_to_string(root().join(scenario_file)).unwrap();
    let scenario = parse_scenario(&text).unwrap();
    let config =
        Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
            .unwrap();
    let settings = EpisodeSettings::from_config(&config, None);
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let brief = EpisodeBrief {
        scenario: &scenario,
        settings: &settings,
        vehicle: &profile,
        // The scripted agent draws nothing at random.
        seed: 0,
    };
    let mut policy = from_config(config.policy.as_ref().unwrap(), root(), Some(&brief)).unwrap();
    let mut world = World::new(scenario, WorldOptions::seeded(seed));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep.jsonl");
    let mut rec = Recorder::create(&path).unwrap();
    let out = run_episode(&mut world, policy.as_mut(), &mut gate, &settings, &mut rec)
        .await
        .unwrap();
    let (times, events) = read_record(&path)
        .unwrap()
        .lines
        .into_iter()
        .map(|l| (l.t_ms, l.event))
        .unzip();
    Flown {
        out,
        events,
        times,
        report: world.mission_report(),
    }
}

fn violations(file: &str, events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Violation { kind, detail } => Some(format!("{file}: {kind} {detail}")),
            _ => None,
        })
        .collect()
}

/// When the watchdog's ladder took the vehicle from the agent (a missed deadline, a lost link,
/// the episode's end — not the gate's escape from a predicted breach, which the agent's plan
/// continues after), world time in ms.
fn watchdog_takeover_ms(f: &Flown) -> Option<u64> {
    f.events
        .iter()
        .zip(&f.times)
        .find(|(e, _)| matches!(e, Event::Watchdog { reason, .. } if reason != "predictedbreach"))
        .map(|(_, t)| *t)
}

/// One seed of the suite.
struct SuiteRun {
    done: usize,
    failed: Vec<String>,
    /// Violations while the agent flew the vehicle.
    agent: Vec<String>,
    /// Violations after the watchdog's ladder had taken the vehicle over (printed, counted).
    failsafe: Vec<String>,
    /// Completed missions with any violation at all.
    completed_with_violation: Vec<String>,
}

/// The suite on one seed: completions, the failures with their reasons, and every violation,
/// by who was flying when it happened.
async fn suite(seed: u64) -> SuiteRun {
    let mut run = SuiteRun {
        done: 0,
        failed: Vec::new(),
        agent: Vec::new(),
        failsafe: Vec::new(),
        completed_with_violation: Vec::new(),
    };
    for i in 0..50 {
        let file = format!("configs/scenarios/sc-{i:04}.json");
        let f = fly(&file, seed).await;
        if f.out.success {
            run.done += 1;
        } else {
            run.failed.push(format!("{file}: {}", f.out.reason));
        }
        let takeover = watchdog_takeover_ms(&f);
        let mut recorded = Vec::new();
        let mut after_takeover = true;
        for (e, t) in f.events.iter().zip(&f.times) {
            if let Event::Violation { kind, detail } = e {
                recorded.push(format!(
                    "{file}: {kind} {detail} at {:.1} s",
                    *t as f64 / 1e3
                ));
                after_takeover &= takeover.is_some_and(|w| *t >= w);
            }
        }
        let world: Vec<String> = f
            .report
            .violations
            .iter()
            .map(|v| format!("{file}: world {} {}", v.kind.as_str(), v.detail))
            .collect();
        if f.out.success && !(recorded.is_empty() && world.is_empty()) {
            run.completed_with_violation.push(file.clone());
        }
        // The world's own list has no times: it goes with the record's violations (the record
        // carries every violation the world reported, at the time it happened).
        let into = if after_takeover && !recorded.is_empty() {
            &mut run.failsafe
        } else {
            &mut run.agent
        };
        into.extend(recorded);
        into.extend(world);
    }
    run
}

#[tokio::test]
async fn the_scripted_agent_flies_a_generated_mission_through_the_gate() {
    let Flown { out, events, .. } = fly("configs/scenarios/sc-0000.json", 1).await;
    eprintln!("{out:?}");
    assert!(out.success, "{out:?}");
    assert!(
        out.turns >= 2 && out.turns % 2 == 0,
        "agent and operator alternate: {out:?}"
    );
    let verdicts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Verdict { outcome, .. } => Some(outcome.as_str()),
            _ => None,
        })
        .collect();
    assert!(!verdicts.is_empty(), "commands went through the gate");
    assert!(matches!(events.last(), Some(Event::Termination { .. })));
    let v = violations("sc-0000", &events);
    assert!(v.is_empty(), "truth violations: {v:#?}");
}

#[tokio::test]
async fn the_scripted_agent_completes_the_suite_without_truth_violations() {
    let run = suite(1).await;
    eprintln!(
        "completed {}/50; not completed: {:#?}",
        run.done, run.failed
    );
    eprintln!("violations while the agent flew: {:#?}", run.agent);
    eprintln!(
        "violations after the watchdog took over (link lost, episode ended): {:#?}",
        run.failsafe
    );
    // Issue 7: the reference agent completes at least 90 % of the suite with no truth
    // violation at all: not while it flies, not in a completed mission, and not after the
    // watchdog took over (link lost, episode ended) — the two lists are kept apart to say who
    // flew when one appears.
    assert!(run.agent.is_empty(), "{:#?}", run.agent);
    assert!(run.failsafe.is_empty(), "{:#?}", run.failsafe);
    assert!(
        run.completed_with_violation.is_empty(),
        "{:#?}",
        run.completed_with_violation
    );
    assert!(
        run.done >= 45,
        "the scripted agent completed only {} of 50",
        run.done
    );
}

/// Per-scenario diagnosis: why each episode ended, what the world's evaluator saw, and every
/// gate denial and operator line. `ALPHA3_SEED` (default 1) and `ALPHA3_SCENARIOS` (a
/// comma-separated list of indices; default all 50) choose what to fly:
/// `cargo nextest run -p alpha3 --test closed_loop diagnose --run-ignored only --no-capture`.
#[tokio::test]
#[ignore = "diagnostic printout, not a check"]
async fn diagnose_the_scripted_agent_per_scenario() {
    let seed: u64 = std::env::var("ALPHA3_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let which: Vec<usize> = std::env::var("ALPHA3_SCENARIOS")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| (0..50).collect());
    let verbose = which.len() < 50;
    let mut done = 0;
    for i in &which {
        let file = format!("configs/scenarios/sc-{i:04}.json");
        let Flown {
            out,
            events,
            times,
            report: r,
        } = fly(&file, seed).await;
        done += usize::from(out.success);
        println!(
            "{i:02} {} {:<16} turns {:>2} actions {:>2} wp {}/{} tasks {}/{} done_at {:?}/{} \
             aborted {} final {:?} battery {:.1} minsep {:.1}",
            if out.success { "OK  " } else { "FAIL" },
            out.reason,
            out.turns,
            out.tool_actions,
            r.waypoints_reached,
            r.waypoints_total,
            r.tasks_done,
            r.tasks_total,
            r.completed_at_s.map(|t| t.round()),
            r.time_budget_s,
            r.aborted,
            r.final_state,
            r.battery_end_pct,
            r.min_separation_m,
        );
        for (e, t) in events.iter().zip(&times) {
            let t = *t as f64 / 1000.0;
            match e {
                Event::Violation { kind, detail } => {
                    println!("     {t:.1} VIOLATION {kind} {detail}")
                }
                Event::Verdict {
                    turn,
                    outcome,
                    findings,
                    ..
                } if outcome.as_str() == "denied" || verbose => {
                    let f: Vec<String> = findings
                        .iter()
                        .map(|f| format!("{} ({:.1}/{:.1})", f.id, f.measured, f.limit))
                        .collect();
                    println!("     {t:.1} t{turn} verdict {outcome} {}", f.join(", "));
                }
                Event::OperatorTurn { text, .. } => println!("     {t:.1} op: {text}"),
                Event::AgentTurn { turn, agent_turn } if verbose => {
                    let names: Vec<String> = agent_turn
                        .actions
                        .iter()
                        .map(|a| format!("{} {}", a.name(), a.arguments()))
                        .collect();
                    println!(
                        "     {t:.1} t{turn} {}: {}",
                        agent_turn.intent,
                        names.join("; ")
                    );
                }
                Event::Observation {
                    turn, tool, result, ..
                } if verbose => {
                    let r = result.to_string();
                    println!("     {t:.1} t{turn} {tool} -> {}", &r[..r.len().min(200)]);
                }
                Event::Watchdog { action, reason } => {
                    println!("     {t:.1} watchdog {action} ({reason})");
                }
                _ => {}
            }
        }
    }
    println!("seed {seed}: completed {done}/{}", which.len());
}
