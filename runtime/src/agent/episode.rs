//! One closed-loop episode.

use super::execute::Executor;
use super::settings::EpisodeSettings;
use crate::policy::{DecisionContext, Policy};
use crate::recorder::{Recorder, RecorderError};
use alpha3_core::command::Command;
use alpha3_core::config::FailsafeStep;
use alpha3_core::gate::{GateContext, GateState, evaluate_failsafe, time_to_breach};
use alpha3_core::link::{LinkCondition, LinkMonitor, MonitorSettings};
use alpha3_core::protocol::{Situation, ToolObservation, catalogue};
use alpha3_core::record::Event;
use alpha3_core::watchdog::{Watchdog, WatchdogAction};
use alpha3_sim::World;
use std::time::Duration;

/// How an episode ended.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeOutcome {
    pub reason: String,
    pub success: bool,
    /// Dialogue turns (agent and operator).
    pub turns: u32,
    pub tokens: u64,
    pub tool_actions: u32,
    pub policy_calls: u32,
    pub generation_failures: u32,
}

/// Runs one episode of `policy` in `world`, writing every step to `recorder` (flushed at the
/// end of every turn). `gate` is the gate's context for the world's scenario.
pub async fn run_episode(
    world: &mut World,
    policy: &mut dyn Policy,
    gate: &mut GateContext,
    settings: &EpisodeSettings,
    recorder: &mut Recorder,
) -> Result<EpisodeOutcome, RecorderError> {
    let cat = catalogue();
    let mut gate_state = GateState::default();
    let mut monitor = LinkMonitor::new(
        MonitorSettings {
            hard: settings_hard(),
            ..MonitorSettings::default()
        },
        alpha3_core::link::Slice::Urllc,
    );
    let mut watchdog = Watchdog::new(&settings.watchdog, settings.deadline_ms);
    let mut out = EpisodeOutcome {
        reason: String::new(),
        success: false,
        turns: 0,
        tokens: 0,
        tool_actions: 0,
        policy_calls: 0,
        generation_failures: 0,
    };
    let sample = world.link_sample();
    monitor.observe(sample, world.now_ms());
    recorder.append(world.now_ms(), Event::Link { sample })?;
    recorder.append(world.now_ms(), world.truth_event())?;
    let mut ctx = DecisionContext::first(
        world.briefing(),
        Situation {
            snapshot: world.snapshot(),
            link: sample,
            observations: Vec::new(),
            operator: Some(world.briefing()),
        },
    );
    let mut reported_violations = 0usize;
    let mut lost_since: Option<u64> = None;
    loop {
        // ---- agent turn ----
        out.turns += 1;
        let turn = out.turns;
        let started = world.now_ms();
        watchdog.decision_started(started);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(settings.deadline_ms);
        let decision = policy.decide(&ctx, deadline).await;
        out.policy_calls += decision.calls();
        out.tokens += decision.total_tokens();
        for e in decision.events(turn) {
            recorder.append(world.now_ms(), e)?;
        }
        let agent_turn = match &decision.outcome {
            Ok(t) => {
                watchdog.decision_made();
                t.clone()
            }
            Err(e) => {
                out.generation_failures += 1;
                watchdog.generation_failed();
                if matches!(e, crate::policy::GenerationFailure::Deadline) {
                    // A missed deadline costs world time, during which the watchdog rules.
                    run_world(
                        world,
                        gate,
                        &mut watchdog,
                        &mut monitor,
                        recorder,
                        started + settings.deadline_ms + 1,
                        settings.truth_interval_ms,
                        &mut reported_violations,
                        false,
                    )?;
                }
                decision.turn_or_fallback()
            }
        };
        recorder.append(
            world.now_ms(),
            Event::AgentTurn {
                turn,
                agent_turn: agent_turn.clone(),
            },
        )?;
        // The gate sees other aircraft's intent as of now.
        if let Err(e) = gate.set_peer_plans(super::traffic::known_plans(world)) {
            tracing::warn!("traffic plans not usable by the gate: {e}");
        }
        let gate: &GateContext = gate;
        let mut observations = Vec::new();
        let turn_end = world.now_ms() + settings.turn_budget_ms;
        let budget_left = settings.max_tool_actions.saturating_sub(out.tool_actions);
        for (i, action) in agent_turn
            .actions
            .iter()
            .take(budget_left as usize)
            .enumerate()
        {
            let link = monitor.state(world.now_ms());
            let mut exec = Executor {
                world,
                gate,
                gate_state: &mut gate_state,
                catalogue: &cat,
                link,
            };
            let o = exec.run(turn, i as u32, action);
            for e in o.events {
                recorder.append(world.now_ms(), e)?;
            }
            if let Some(wait) = o.wait_ms {
                let until = (world.now_ms() + wait).min(turn_end);
                run_world(
                    world,
                    gate,
                    &mut watchdog,
                    &mut monitor,
                    recorder,
                    until,
                    settings.truth_interval_ms,
                    &mut reported_violations,
                    false,
                )?;
            }
            if o.moved {
                // Actions run in order, each move to completion (as a mission upload would).
                run_world(
                    world,
                    gate,
                    &mut watchdog,
                    &mut monitor,
                    recorder,
                    turn_end,
                    settings.truth_interval_ms,
                    &mut reported_violations,
                    true,
                )?;
            }
            observations.push(ToolObservation {
                name: o.tool,
                result: o.result,
            });
        }
        out.tool_actions += agent_turn.actions.len().min(budget_left as usize) as u32;
        // Let the last command play out (the world's own clock), under the watchdog.
        run_world(
            world,
            gate,
            &mut watchdog,
            &mut monitor,
            recorder,
            turn_end,
            settings.truth_interval_ms,
            &mut reported_violations,
            true,
        )?;
        recorder.flush()?;

        // ---- operator turn ----
        out.turns += 1;
        let op = world.operator_turn(&agent_turn);
        recorder.append(
            world.now_ms(),
            Event::OperatorTurn {
                turn: out.turns,
                intent: op.intent.clone(),
                text: op.text.clone(),
                actions: Vec::new(),
            },
        )?;
        let sample = world.link_sample();
        monitor.observe(sample, world.now_ms());
        recorder.append(world.now_ms(), Event::Link { sample })?;
        recorder.flush()?;

        let now = world.now_ms();
        lost_since = match monitor.state(now).condition {
            LinkCondition::Lost => Some(lost_since.unwrap_or(now)),
            _ => None,
        };
        let lost_for_ms = lost_since.map_or(0, |t| now - t);
        if let Some(reason) = termination(world, lost_for_ms, &out, settings) {
            out.success = world.mission_report().task_outcome() >= 1.0;
            out.reason = reason;
            break;
        }
        ctx.advance(
            agent_turn,
            Situation {
                snapshot: world.snapshot(),
                link: sample,
                observations,
                operator: Some(op.text),
            },
        );
    }
    recorder.append(
        world.now_ms(),
        Event::Termination {
            reason: out.reason.clone(),
            success: out.success,
            turns: out.turns,
        },
    )?;
    recorder.flush()?;
    Ok(out)
}

fn settings_hard() -> alpha3_core::link::HardThresholds {
    alpha3_core::link::HardThresholds::default()
}

/// Why the episode ends now, if it does.
fn termination(
    world: &World,
    lost_for_ms: u64,
    out: &EpisodeOutcome,
    settings: &EpisodeSettings,
) -> Option<String> {
    let report = world.mission_report();
    if report.task_outcome() >= 1.0 {
        return Some("mission_complete".into());
    }
    if world.violations().iter().any(|v| v.kind.is_terminating()) {
        return Some("safety_violation".into());
    }
    if lost_for_ms >= settings.link_lost_terminate_ms {
        return Some("link_lost".into());
    }
    if out.turns + 2 > settings.max_turns {
        return Some("turn_budget".into());
    }
    if out.tokens >= settings.max_tokens {
        return Some("token_budget".into());
    }
    if out.tool_actions >= settings.max_tool_actions {
        return Some("action_budget".into());
    }
    None
}

/// Runs the world until `until_ms` — or, with `stop_when_settled`, until its command is done —
/// sampling truth and link, reporting violations and letting the watchdog act.
#[allow(clippy::too_many_arguments)]
fn run_world(
    world: &mut World,
    gate: &GateContext,
    watchdog: &mut Watchdog,
    monitor: &mut LinkMonitor,
    recorder: &mut Recorder,
    until_ms: u64,
    interval_ms: u64,
    reported: &mut usize,
    stop_when_settled: bool,
) -> Result<(), RecorderError> {
    while world.now_ms() < until_ms && !(stop_when_settled && world.is_settled()) {
        let next = (world.now_ms() + interval_ms).min(until_ms);
        tick(world, gate, watchdog, monitor, recorder, next, reported)?;
    }
    Ok(())
}

fn tick(
    world: &mut World,
    gate: &GateContext,
    watchdog: &mut Watchdog,
    monitor: &mut LinkMonitor,
    recorder: &mut Recorder,
    next_ms: u64,
    reported: &mut usize,
) -> Result<(), RecorderError> {
    world.advance_to_ms(next_ms);
    let now = world.now_ms();
    let sample = world.link_sample();
    monitor.observe(sample, now);
    recorder.append(now, Event::Link { sample })?;
    recorder.append(now, world.truth_event())?;
    for v in &world.violations()[*reported..] {
        recorder.append(now, v.to_event())?;
    }
    *reported = world.violations().len();
    let snapshot = world.snapshot();
    watchdog.link_lost(monitor.state(now).condition == LinkCondition::Lost);
    let breach = time_to_breach(gate, &snapshot, now).map(|b| b.in_ms);
    if let WatchdogAction::Step(step) = watchdog.tick(now, breach) {
        let command = match step {
            FailsafeStep::Hold => Command::Hold,
            FailsafeStep::Return => Command::ReturnToHome,
            FailsafeStep::Land => Command::Land { site: None },
        };
        let verdict = evaluate_failsafe(&snapshot, &command, now);
        let reason = watchdog
            .engaged()
            .map_or_else(String::new, |(_, c)| format!("{c:?}").to_lowercase());
        if let Some(approved) = verdict.approved() {
            world.execute(approved.command());
        }
        recorder.append(
            now,
            Event::Watchdog {
                action: command.name().to_string(),
                reason,
            },
        )?;
    }
    Ok(())
}
