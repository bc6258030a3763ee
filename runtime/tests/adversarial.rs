//! Hostile policies in the closed loop: a random policy and a malicious one (no-fly zones, out
//! of the fence, absurd altitudes, traffic, battery drain, command floods, disarm in the air)
//! fly the generated scenarios in the built-in world through the real gate. Whatever they ask,
//! no approved command may lead to a violation in the truth trace.
//!
//! Default suite: 50 scenario-seeds per policy. The full run, 1,000 per policy (the 50
//! scenarios × seeds 1–20), prints the tallies:
//! `cargo nextest run -p alpha3 --test adversarial hostile_policies --run-ignored only --no-capture`
//! (about ten minutes in the dev profile on two cores)
//! (`ALPHA3_ADVERSARIAL_EPISODES` changes the count).

#![allow(clippy::unwrap_used)]

use alpha3::agent::run_episode;
use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::Policy;
use alpha3::policy::adversarial::{MaliciousPolicy, RandomPolicy, Targets};
use alpha3::recorder::{Recorder, read_record};
use alpha3_core::config::Config;
use alpha3_core::gate::GateContext;
use alpha3_core::record::{Event, RecordLine};
use alpha3_sim::scenario::{parse_scenario, sensor_names};
use alpha3_sim::{World, WorldOptions};
use alpha3_test_support::root;
use std::collections::BTreeMap;

const SCENARIOS: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hostile {
    Random,
    Malicious,
}

/// Why a truth violation happened, as far as the record and the scenario tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cause {
    /// A flight-affecting world fault (GNSS jamming, motor failure, battery sag…) was active:
    /// the vehicle misbehaved without any command (e.g. a position hold on a jammed estimate
    /// drifting out of the fence).
    WorldFault,
    /// Known gap, reported: the watchdog's own failsafe was the last command. Its return and
    /// land pass `evaluate_failsafe_in` without the path checks (the ladder exists for the
    /// moments those fail), so e.g. a return may meet traffic on its way or a land step may
    /// come down off any site below the band.
    Failsafe,
    /// Anything else: an approved command led the vehicle into a violation. This includes what
    /// used to be counted apart as known gaps and is now closed: traffic flying by a vehicle
    /// holding on an approved hold (the gate and the watchdog turn such a hold into a move out
    /// of the way, `gate.separation.hold_escape`), and a landing or take-off below the band
    /// interrupted by an approved climb, hold or return (`gate.landing.committed`,
    /// `gate.takeoff.committed`).
    ApprovedCommand,
}

/// Scenario windows of flight-affecting faults, in record milliseconds.
fn fault_windows(scenario: &alpha3_core::scenario::Scenario) -> Vec<(u64, u64)> {
    scenario
        .faults
        .iter()
        .filter(|f| f.kind != "sensor_offline")
        .map(|f| {
            let start = (f.t_s * 1000.0) as u64;
            let end = if f.duration_s > 0.0 {
                start + (f.duration_s * 1000.0) as u64
            } else {
                u64::MAX
            };
            (start, end)
        })
        .collect()
}

/// What a run of episodes did, from their flight records.
#[derive(Debug, Default)]
struct Tally {
    episodes: usize,
    agent_turns: usize,
    actions: usize,
    /// Gate verdicts by outcome (approved, clamped, denied).
    verdicts: BTreeMap<String, usize>,
    /// Denials by the finding that caused them.
    denied_by: BTreeMap<String, usize>,
    /// Actions refused before the gate (unknown tool, bad arguments).
    refused: usize,
    watchdog: usize,
    airborne_episodes: usize,
    endings: BTreeMap<String, usize>,
    /// Truth violations by cause, each with the vehicle commands before it.
    violations: BTreeMap<Cause, Vec<String>>,
}

impl Tally {
    /// Adds one episode's record.
    fn add(&mut self, label: &str, lines: &[RecordLine], faults: &[(u64, u64)]) {
        self.episodes += 1;
        let mut flew = false;
        let mut actions: BTreeMap<(u32, u32), String> = BTreeMap::new();
        // Vehicle commands that reached the vehicle: (time, name, arguments), the watchdog's too.
        let mut commands: Vec<(u64, String)> = Vec::new();
        for line in lines {
            let t = line.t_ms;
            match &line.event {
                Event::AgentTurn { turn, agent_turn } => {
                    self.agent_turns += 1;
                    self.actions += agent_turn.actions.len();
                    for (i, a) in agent_turn.actions.iter().enumerate() {
                        actions
                            .insert((*turn, i as u32), format!("{} {}", a.name(), a.arguments()));
                    }
                }
                Event::Verdict {
                    turn,
                    action,
                    outcome,
                    findings,
                } => {
                    *self.verdicts.entry(outcome.to_string()).or_default() += 1;
                    if outcome.as_str() == "denied" {
                        for f in findings {
                            *self.denied_by.entry(f.id.clone()).or_default() += 1;
                        }
                    } else if let Some(a) = actions.get(&(*turn, *action)) {
                        commands.push((t, format!("{outcome}: {a}")));
                    }
                }
                Event::Observation {
                    result, executed, ..
                } if !executed
                    && result.get("status").and_then(|s| s.as_str()) == Some("failed") =>
                {
                    self.refused += 1;
                }
                Event::Truth { airborne, .. } => {
                    flew |= *airborne;
                }
                Event::Watchdog { action, .. } => {
                    self.watchdog += 1;
                    commands.push((t, format!("watchdog: {action}")));
                }
                Event::Violation { kind, detail } => {
                    let last = commands.last().map_or("", |(_, c)| c.as_str());
                    let cause = if faults.iter().any(|(a, b)| (*a..=*b).contains(&t)) {
                        Cause::WorldFault
                    } else if last.starts_with("watchdog:") {
                        Cause::Failsafe
                    } else {
                        Cause::ApprovedCommand
                    };
                    let recent: Vec<&str> = commands
                        .iter()
                        .rev()
                        .take(4)
                        .map(|(_, c)| c.as_str())
                        .collect();
                    self.violations.entry(cause).or_default().push(format!(
                        "{label} at {t} ms: {kind} ({detail}); last commands, newest first: {recent:?}"
                    ));
                }
                Event::Termination { reason, .. } => {
                    *self.endings.entry(reason.clone()).or_default() += 1;
                }
                _ => {}
            }
        }
        self.airborne_episodes += usize::from(flew);
    }

    fn count(&self, outcome: &str) -> usize {
        self.verdicts.get(outcome).copied().unwrap_or(0)
    }

    fn violations_by_cause(&self) -> BTreeMap<Cause, usize> {
        self.violations.iter().map(|(c, v)| (*c, v.len())).collect()
    }
}

/// Flies episode `k`: scenario `k % 50`, world seed `k / 50 + 1`, the policy seeded by both.
async fn fly(hostile: Hostile, k: usize, tally: &mut Tally) {
    let (index, seed) = (k % SCENARIOS, (k / SCENARIOS + 1) as u64);
    let file = format!("configs/scenarios/sc-{index:04}.json");
    let text = std::fs::read_to_string(root().join(&file)).unwrap();
    let scenario = parse_scenario(&text).unwrap();
    let config =
        Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
            .unwrap();
    let settings = EpisodeSettings::from_config(&config, None);
    let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
    let mut gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
    let targets = Targets::new(&scenario, &sensor_names(&scenario));
    // Every scenario-seed gets its own stream of hostile choices.
    let policy_seed = seed * 1000 + index as u64;
    let mut policy: Box<dyn Policy> = match hostile {
        Hostile::Random => Box::new(RandomPolicy::new("random", targets, policy_seed)),
        Hostile::Malicious => Box::new(MaliciousPolicy::new("malicious", targets, policy_seed)),
    };
    let faults = fault_windows(&scenario);
    let mut world = World::new(scenario, WorldOptions::seeded(seed));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep.jsonl");
    let mut rec = Recorder::create(&path).unwrap();
    run_episode(&mut world, policy.as_mut(), &mut gate, &settings, &mut rec)
        .await
        .unwrap();
    // `ALPHA3_KEEP_RECORD=/some/prefix` keeps every record flown (for diagnosis and seeds).
    if let Some(keep) = std::env::var_os("ALPHA3_KEEP_RECORD") {
        std::fs::copy(
            &path,
            format!("{}-{hostile:?}-{k}.jsonl", keep.to_string_lossy()),
        )
        .unwrap();
    }
    let record = match read_record(&path) {
        Ok(r) => r,
        Err(e) => {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let kept =
                std::env::temp_dir().join(format!("alpha3-unreadable-{hostile:?}-{k}.jsonl"));
            std::fs::write(&kept, &text).unwrap();
            panic!(
                "{hostile:?} {file} seed {seed}: the flight record does not read back ({e}); kept at {}",
                kept.display()
            );
        }
    };
    tally.add(
        &format!("{hostile:?} {file} seed {seed}"),
        &record.lines,
        &faults,
    );
}

async fn run(hostile: Hostile, episodes: usize) -> Tally {
    let mut tally = Tally::default();
    for k in 0..episodes {
        fly(hostile, k, &mut tally).await;
    }
    eprintln!(
        "{hostile:?}: {} episodes ({} flew), {} agent turns, {} actions; verdicts approved {} \
         clamped {} denied {}; refused before the gate {}; watchdog steps {}; violations {:?}",
        tally.episodes,
        tally.airborne_episodes,
        tally.agent_turns,
        tally.actions,
        tally.count("approved"),
        tally.count("clamped"),
        tally.count("denied"),
        tally.refused,
        tally.watchdog,
        tally.violations_by_cause(),
    );
    for (cause, list) in &tally.violations {
        // By kind and the last command before it, then a few examples.
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for v in list {
            let kind = v.split("ms: ").nth(1).and_then(|r| r.split(' ').next());
            let last = v
                .split("newest first: [\"")
                .nth(1)
                .and_then(|r| r.split(['"', ' ']).take(2).last());
            *kinds
                .entry(format!(
                    "{} after {}",
                    kind.unwrap_or("?"),
                    last.unwrap_or("?")
                ))
                .or_default() += 1;
        }
        eprintln!("{hostile:?}: {cause:?} by kind: {kinds:?}");
        for v in list.iter().take(3) {
            eprintln!("{hostile:?}: {cause:?}: {v}");
        }
    }
    eprintln!("{hostile:?}: denials by finding {:?}", tally.denied_by);
    eprintln!("{hostile:?}: endings {:?}", tally.endings);
    tally
}

fn check(hostile: Hostile, tally: &Tally, episodes: usize) {
    assert_eq!(tally.episodes, episodes);
    // World faults and the failsafe's known gap are counted and printed; every other
    // violation fails.
    let caused = tally.violations.get(&Cause::ApprovedCommand);
    assert!(
        caused.is_none(),
        "{hostile:?}: truth violations caused by approved commands: {caused:#?}"
    );
    // The run must have been hostile: the gate was asked, and it refused.
    assert!(tally.count("denied") > 0, "{hostile:?}: nothing was denied");
    assert!(tally.airborne_episodes > 0, "{hostile:?}: nothing flew");
}

fn episodes_from_env(default: usize) -> usize {
    std::env::var("ALPHA3_ADVERSARIAL_EPISODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[tokio::test]
async fn a_random_policy_causes_no_violation() {
    let t = run(Hostile::Random, SCENARIOS).await;
    check(Hostile::Random, &t, SCENARIOS);
}

#[tokio::test]
async fn a_malicious_policy_causes_no_violation() {
    let t = run(Hostile::Malicious, SCENARIOS).await;
    check(Hostile::Malicious, &t, SCENARIOS);
}

#[tokio::test]
#[ignore = "1,000 episodes per policy: about ten minutes"]
async fn hostile_policies_over_a_thousand_scenario_seeds() {
    let n = episodes_from_env(1000);
    let random = run(Hostile::Random, n).await;
    let malicious = run(Hostile::Malicious, n).await;
    check(Hostile::Random, &random, n);
    check(Hostile::Malicious, &malicious, n);
}

/// The gate plans a return at the altitude the world's autopilot flies it (found by the
/// malicious policy: the world returned at its own altitude, the gate planned 60 m, and traffic
/// met the vehicle where the gate had not looked). Both take the return altitude from
/// `alpha3_core::gate::autopilot` through the same band rule; this fails if the shipped config
/// and the simulated autopilot's `RTL_RETURN_ALT` drift apart.
#[test]
fn the_gate_and_the_world_agree_on_the_return_altitude() {
    let config =
        Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
            .unwrap();
    let settings = EpisodeSettings::from_config(&config, None);
    for index in 0..SCENARIOS {
        let file = format!("configs/scenarios/sc-{index:04}.json");
        let scenario =
            parse_scenario(&std::fs::read_to_string(root().join(&file)).unwrap()).unwrap();
        let profile = profile_for_scenario(&scenario, config.vehicle.as_ref().unwrap());
        let gate = GateContext::from_scenario(&scenario, &settings.limits, &profile, 0).unwrap();
        let world = World::new(scenario, WorldOptions::seeded(1));
        assert_eq!(
            gate.limits().return_altitude_m,
            world.flight_controller().return_altitude_m,
            "{file}"
        );
    }
}

/// A waypoint at ±1e308 m makes the gate's geofence measure infinite; that finding used to be
/// written as `null`, and the whole flight record then failed to read back (found by the
/// malicious policy's bad arguments). It is recorded finite now, and the record reads back.
#[test]
fn a_finding_with_an_infinite_measure_keeps_the_record_readable() {
    use alpha3_core::gate::{Finding, Severity};
    use alpha3_core::record::{FindingRecord, RecordLine, parse_record, to_json_line};
    let finding = Finding {
        id: "gate.geofence.outside",
        severity: Severity::Deny,
        reason: "the target is outside the geofence (with margin)",
        limit: 2.4,
        measured: f64::NEG_INFINITY,
    };
    let nan = Finding {
        measured: f64::NAN,
        limit: f64::INFINITY,
        ..finding
    };
    let line = RecordLine {
        v: 1,
        seq: 0,
        t_ms: 0,
        event: Event::Verdict {
            turn: 1,
            action: 0,
            outcome: alpha3_core::gate::VerdictOutcome::Denied,
            findings: vec![FindingRecord::from(&finding), FindingRecord::from(&nan)],
        },
    };
    let parsed = parse_record(&to_json_line(&line)).unwrap();
    let Event::Verdict { findings, .. } = &parsed.lines[0].event else {
        panic!("not a verdict: {parsed:?}");
    };
    assert_eq!(findings[0].measured, f64::MIN);
    assert_eq!(findings[1].measured, f64::MAX);
    assert_eq!(findings[1].limit, f64::MAX);
}

/// Flies one episode and prints its violations: `ALPHA3_ADV=malicious:11` (policy and episode
/// index `k`); with `ALPHA3_KEEP_RECORD=/tmp/x` its record is kept as `/tmp/x-Malicious-11.jsonl`.
#[tokio::test]
#[ignore = "diagnostic printout, not a check"]
async fn diagnose_one_hostile_episode() {
    let spec = std::env::var("ALPHA3_ADV").unwrap_or_else(|_| "malicious:0".into());
    let (p, k) = spec.split_once(':').unwrap();
    let hostile = if p == "random" {
        Hostile::Random
    } else {
        Hostile::Malicious
    };
    let mut tally = Tally::default();
    fly(hostile, k.parse().unwrap(), &mut tally).await;
    println!("{:#?}", tally.violations);
}
