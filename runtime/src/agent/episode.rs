//! One closed-loop episode, over any [`VehicleLink`] that is its own [`Surroundings`].

use super::execute::Executor;
use super::surroundings::Surroundings;
use super::traffic::PlansCopy;
use crate::episode_setup::EpisodeSettings;
use crate::policy::{Decision, DecisionContext, Policy};
use crate::recorder::{Recorder, RecorderError};
use alpha3_core::command::Command;
use alpha3_core::config::FailsafeStep;
use alpha3_core::failsafe::{Watchdog, WatchdogAction, return_command, return_status};
use alpha3_core::gate::{GateContext, GateState, evaluate_failsafe_in, time_to_breach};
use alpha3_core::link::{LinkCondition, LinkMonitor, MonitorSettings};
use alpha3_core::protocol::{Situation, ToolObservation, catalogue};
use alpha3_core::record::Event;
use alpha3_core::vehicle::{LinkError, VehicleLink};
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

/// Why the loop stopped early: the record could not be written, or the vehicle is gone.
#[derive(Debug)]
pub(super) enum Stop {
    Record(RecorderError),
    Vehicle(LinkError),
}

impl From<RecorderError> for Stop {
    fn from(e: RecorderError) -> Self {
        Stop::Record(e)
    }
}

impl From<LinkError> for Stop {
    fn from(e: LinkError) -> Self {
        Stop::Vehicle(e)
    }
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
    run_episode_on(world, policy, gate, settings, recorder).await
}

/// Runs one episode of `policy` against `side` — the built-in world, or a flight controller
/// over MAVLink with the world around it ([`LinkedVehicle`](super::LinkedVehicle)). A vehicle
/// that can no longer be reached ends the episode with the reason `vehicle_link_lost`; one the
/// link refuses to fly any longer (an autopilot that came back not proven a simulator) with
/// `vehicle_refused`.
pub async fn run_episode_on<V: VehicleLink + Surroundings>(
    side: &mut V,
    policy: &mut dyn Policy,
    gate: &mut GateContext,
    settings: &EpisodeSettings,
    recorder: &mut Recorder,
) -> Result<EpisodeOutcome, RecorderError> {
    let mut out = EpisodeOutcome {
        reason: String::new(),
        success: false,
        turns: 0,
        tokens: 0,
        tool_actions: 0,
        policy_calls: 0,
        generation_failures: 0,
    };
    match episode_loop(side, policy, gate, settings, recorder, &mut out).await {
        Ok(()) => {}
        Err(Stop::Record(e)) => return Err(e),
        Err(Stop::Vehicle(e)) => {
            out.success = false;
            out.reason = match e {
                LinkError::Refused { .. } => {
                    tracing::error!("the link refuses the vehicle, ending the episode: {e}");
                    "vehicle_refused"
                }
                _ => {
                    tracing::error!("vehicle unreachable, ending the episode: {e}");
                    "vehicle_link_lost"
                }
            }
            .into();
        }
    }
    recorder.append(
        side.now_ms(),
        Event::Termination {
            reason: out.reason.clone(),
            success: out.success,
            turns: out.turns,
        },
    )?;
    recorder.flush()?;
    Ok(out)
}

/// The loop's own state besides the side, the gate, the policy and the record.
pub(super) struct Loop {
    pub(super) watchdog: Watchdog,
    monitor: LinkMonitor,
    pub(super) interval_ms: u64,
    /// Violations of the world already written to the record.
    reported: usize,
    /// The return the watchdog's ladder flies (home, or a landing at a site), while it does.
    pub(super) return_to: Option<Command>,
    /// When the gate's copy of other aircraft's plans was fetched.
    plans: PlansCopy,
}

/// Gives the gate other aircraft's intent as of now, whenever its copy went stale (see
/// [`PlansCopy`]). A copy kept for a whole turn let the gate approve a leg 29.9 m from a swarm
/// member that had stopped on it (sc-0039 in the 10k corpus).
pub(super) fn refresh_plans<V: VehicleLink + Surroundings>(
    gate: &mut GateContext,
    side: &V,
    lp: &mut Loop,
) {
    let world = side.world();
    lp.plans
        .refresh(gate, world.traffic_revision(), side.now_ms(), || {
            crate::episode_setup::known_plans(world)
        });
}

async fn episode_loop<V: VehicleLink + Surroundings>(
    side: &mut V,
    policy: &mut dyn Policy,
    gate_ctx: &mut GateContext,
    settings: &EpisodeSettings,
    recorder: &mut Recorder,
    out: &mut EpisodeOutcome,
) -> Result<(), Stop> {
    let cat = catalogue();
    let mut gate_state = GateState::default();
    let mut monitor = LinkMonitor::new(
        MonitorSettings {
            hard: settings_hard(),
            ..MonitorSettings::default()
        },
        alpha3_core::link::Slice::Urllc,
    );
    let sample = side.link_sample();
    monitor.observe(sample, side.now_ms());
    recorder.append(side.now_ms(), Event::Link { sample })?;
    recorder.append(side.now_ms(), side.truth_event())?;
    let briefing = side.briefing();
    let mut ctx = DecisionContext::first(
        briefing.clone(),
        Situation {
            snapshot: side.snapshot(),
            link: sample,
            observations: Vec::new(),
            operator: Some(briefing),
        },
    );
    let mut lp = Loop {
        watchdog: Watchdog::new(&settings.watchdog, settings.deadline_ms),
        monitor,
        interval_ms: settings.truth_interval_ms,
        reported: 0,
        return_to: None,
        plans: PlansCopy::default(),
    };
    let mut lost_since: Option<u64> = None;
    loop {
        // ---- agent turn ----
        out.turns += 1;
        let turn = out.turns;
        let started = side.now_ms();
        lp.watchdog.decision_started(started);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(settings.deadline_ms);
        let decision = decide(side, policy, &ctx, deadline, gate_ctx, &mut lp, recorder).await?;
        out.policy_calls += decision.calls();
        out.tokens += decision.total_tokens();
        for e in decision.events(turn) {
            recorder.append(side.now_ms(), e)?;
        }
        // After a failed decision with the watchdog in charge, its step stands and its ladder
        // plays out over the turn.
        let mut watchdog_rules = false;
        let agent_turn = match &decision.outcome {
            Ok(t) => {
                lp.watchdog.decision_made();
                t.clone()
            }
            Err(e) => {
                out.generation_failures += 1;
                let late = matches!(e, crate::policy::GenerationFailure::Deadline);
                if late {
                    lp.watchdog.generation_failed();
                } else {
                    // An answer, if a useless one: what escalates is how many come in a row.
                    lp.watchdog.answer_invalid();
                }
                if late {
                    // A missed deadline costs world time, during which the watchdog rules.
                    run_side(
                        side,
                        gate_ctx,
                        &mut lp,
                        recorder,
                        started + settings.deadline_ms + 1,
                        Until::Time,
                    )
                    .await?;
                } else {
                    // No world time passes, but the watchdog sees the failure count now
                    // (repeated failures step down the ladder even while the vehicle holds).
                    tick_after_advance(side, gate_ctx, &mut lp, recorder).await?;
                }
                if lp.watchdog.engaged().is_some() {
                    // The fallback hold would cancel the watchdog's return or landing.
                    watchdog_rules = true;
                    alpha3_core::protocol::AgentTurn {
                        intent: "watchdog_in_charge".into(),
                        actions: Vec::new(),
                    }
                } else {
                    decision.turn_or_fallback()
                }
            }
        };
        recorder.append(
            side.now_ms(),
            Event::AgentTurn {
                turn,
                agent_turn: agent_turn.clone(),
            },
        )?;
        let mut observations = Vec::new();
        let turn_end = side.now_ms() + settings.turn_budget_ms;
        let budget_left = settings.max_tool_actions.saturating_sub(out.tool_actions);
        for (i, action) in agent_turn
            .actions
            .iter()
            .take(budget_left as usize)
            .enumerate()
        {
            let link = lp.monitor.state(side.now_ms());
            // Each action is checked against other aircraft's intent as of now.
            refresh_plans(gate_ctx, side, &mut lp);
            let mut exec = Executor {
                side: &mut *side,
                gate: gate_ctx,
                gate_state: &mut gate_state,
                catalogue: &cat,
                link,
            };
            let o = exec.run(turn, i as u32, action).await;
            for e in o.events {
                recorder.append(side.now_ms(), e)?;
            }
            // A move, and the play-out after the last action, stop early when the link comes
            // back after the watchdog took the vehicle away: the turn's remaining actions go on
            // from where it is, and the agent decides again after them (found in the 10k
            // corpus: a return flown on for 110 s after the link came back, into GNSS jamming
            // and out of the fence). An ordered wait runs its time: holding through an outage
            // is how an agent plans for one.
            if let Some(wait) = o.wait_ms {
                let until = (side.now_ms() + wait).min(turn_end);
                run_side(side, gate_ctx, &mut lp, recorder, until, Until::Time).await?;
            }
            if o.moved {
                // Actions run in order, each move to completion (as a mission upload would).
                run_side(side, gate_ctx, &mut lp, recorder, turn_end, Until::Settled).await?;
            }
            observations.push(ToolObservation {
                name: o.tool,
                result: o.result,
            });
        }
        out.tool_actions += agent_turn.actions.len().min(budget_left as usize) as u32;
        // Let the last command play out (the vehicle's own clock), under the watchdog.
        let play_out = if watchdog_rules {
            Until::Released
        } else {
            Until::Settled
        };
        run_side(side, gate_ctx, &mut lp, recorder, turn_end, play_out).await?;
        // A turn spans at least the decision period, even one that moved nothing (no action,
        // all refused or held back): the world does not wait on the agent.
        let period_end = started + settings.watchdog.decision_period_ms;
        run_side(side, gate_ctx, &mut lp, recorder, period_end, Until::Time).await?;
        recorder.flush()?;

        // ---- operator turn ----
        out.turns += 1;
        let op = side.operator_turn(&agent_turn).await;
        recorder.append(
            side.now_ms(),
            Event::OperatorTurn {
                turn: out.turns,
                intent: op.intent.clone(),
                text: op.text.clone(),
                actions: Vec::new(),
            },
        )?;
        let sample = side.link_sample();
        lp.monitor.observe(sample, side.now_ms());
        recorder.append(side.now_ms(), Event::Link { sample })?;
        recorder.flush()?;

        let now = side.now_ms();
        lost_since = match lp.monitor.state(now).condition {
            LinkCondition::Lost => Some(lost_since.unwrap_or(now)),
            _ => None,
        };
        let lost_for_ms = lost_since.map_or(0, |t| now - t);
        if let Some(reason) = termination(side.world(), lost_for_ms, out, settings) {
            out.success = side.world().mission_report().task_outcome() >= 1.0;
            out.reason = reason;
            if !out.success {
                let max_ms = settings.watchdog.handover_max_ms;
                super::handover::hand_over(side, gate_ctx, &mut lp, recorder, max_ms).await?;
            }
            return Ok(());
        }
        ctx.advance(
            agent_turn,
            Situation {
                snapshot: side.snapshot(),
                link: sample,
                observations,
                operator: Some(op.text),
            },
        );
    }
}

/// Waits for the policy. The world stands still meanwhile (a decision takes no world time);
/// a real-time vehicle keeps flying, so the watchdog ticks until the decision arrives and
/// holds — then steps down — if it is late.
async fn decide<V: VehicleLink + Surroundings>(
    side: &mut V,
    policy: &mut dyn Policy,
    ctx: &DecisionContext,
    deadline: tokio::time::Instant,
    gate: &mut GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
) -> Result<Decision, Stop> {
    let asked = tokio::time::Instant::now();
    let pending = policy.decide(ctx, deadline);
    if !side.realtime() {
        // A policy that overruns its deadline (sleeps, hangs) is cut off there: a late answer
        // is never flown.
        return Ok(tokio::time::timeout_at(deadline, pending)
            .await
            .unwrap_or_else(|_| missed_deadline(asked)));
    }
    tokio::pin!(pending);
    loop {
        let next = side.now_ms() + lp.interval_ms;
        tokio::select! {
            biased;
            d = &mut pending => return Ok(d),
            () = tokio::time::sleep_until(deadline) => return Ok(missed_deadline(asked)),
            r = side.advance_to(next) => {
                r?;
                tick_after_advance(side, gate, lp, recorder).await?;
            }
        }
    }
}

/// The decision of a policy that did not answer by its deadline: one attempt, with the error.
fn missed_deadline(asked: tokio::time::Instant) -> Decision {
    Decision {
        outcome: Err(crate::policy::GenerationFailure::Deadline),
        attempts: vec![crate::policy::Attempt {
            attempt: 1,
            prompt: String::new(),
            completion: String::new(),
            prompt_tokens: 0,
            cached_tokens: 0,
            completion_tokens: 0,
            latency_ms: asked.elapsed().as_secs_f64() * 1000.0,
            ttft_ms: None,
            error: Some("the policy did not answer by its deadline".into()),
        }],
    }
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

/// When [`run_side`] may stop before its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Until {
    /// Only at the time.
    Time,
    /// When the watchdog, engaged for a lost link, is released by the link coming back.
    Released,
    /// As `Released`, or when the vehicle's command is done.
    Settled,
}

/// Runs the vehicle until `until_ms` — or earlier as `until` allows — sampling truth and link,
/// reporting violations and letting the watchdog act.
async fn run_side<V: VehicleLink + Surroundings>(
    side: &mut V,
    gate: &mut GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
    until_ms: u64,
    until: Until,
) -> Result<(), Stop> {
    // Released: the link is back, and the vehicle still flies the watchdog's return or landing
    // (no later command of the agent's replaced it).
    let released = |side: &V, lp: &Loop| {
        lp.watchdog.released()
            && matches!(
                side.snapshot().mode,
                alpha3_core::snapshot::FlightMode::Return | alpha3_core::snapshot::FlightMode::Land
            )
    };
    let done = |side: &V, lp: &Loop| match until {
        Until::Time => false,
        Until::Released => released(side, lp),
        Until::Settled => released(side, lp) || side.is_settled(),
    };
    while side.now_ms() < until_ms && !done(side, lp) {
        let next = (side.now_ms() + lp.interval_ms).min(until_ms);
        side.advance_to(next).await?;
        tick_after_advance(side, gate, lp, recorder).await?;
    }
    Ok(())
}

/// One sample after time moved: link, truth, new violations, and the watchdog's turn.
pub(super) async fn tick_after_advance<V: VehicleLink + Surroundings>(
    side: &mut V,
    gate: &mut GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
) -> Result<(), Stop> {
    refresh_plans(gate, side, lp);
    let now = side.now_ms();
    let sample = side.link_sample();
    lp.monitor.observe(sample, now);
    recorder.append(now, Event::Link { sample })?;
    recorder.append(now, side.truth_event())?;
    let violations = side.world().violations();
    for v in violations.iter().skip(lp.reported) {
        recorder.append(now, v.to_event())?;
    }
    lp.reported = violations.len();
    let snapshot = side.snapshot();
    let lost = lp.monitor.state(now).condition == LinkCondition::Lost || side.vehicle_lost();
    lp.watchdog.link_lost(lost);
    if lp.watchdog.engaged().map(|e| e.0) != Some(FailsafeStep::Return) {
        lp.return_to = None;
    }
    if lp.watchdog.engaged().is_some() {
        // The land step weighs the return under way against the way there.
        let nearest = lp.watchdog.has_ended();
        let status = return_status(gate, &snapshot, now, lp.return_to.as_ref(), nearest);
        lp.watchdog.observe_return(now, status);
    }
    // A holding vehicle must act earlier on traffic: by moving out of the way (escape_ms).
    let breach = time_to_breach(gate, &snapshot, now).map(|b| b.act_in_ms());
    if let WatchdogAction::Step(step) = lp.watchdog.tick(now, breach) {
        take_step(side, gate, lp, recorder, &snapshot, now, step).await?;
    }
    Ok(())
}

/// Takes the watchdog's ladder step `step` through the failsafe path of the gate, and records
/// it with the watchdog's cause.
pub(super) async fn take_step<V: VehicleLink + Surroundings>(
    side: &mut V,
    gate: &GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
    snapshot: &alpha3_core::snapshot::VehicleSnapshot,
    now: u64,
    step: FailsafeStep,
) -> Result<(), Stop> {
    let command = match step {
        FailsafeStep::Hold => Command::Hold,
        FailsafeStep::Return => {
            let nearest = lp.watchdog.has_ended();
            let to = return_command(gate, snapshot, now, nearest).unwrap_or(Command::ReturnToHome);
            lp.return_to = Some(to);
            to
        }
        FailsafeStep::Land => Command::Land { site: None },
    };
    // Knowing the airspace: a landing below the band continues, a hold in traffic's way
    // becomes a move out of it.
    let verdict = evaluate_failsafe_in(gate, snapshot, &command, now);
    let reason = lp
        .watchdog
        .engaged()
        .map_or_else(String::new, |(_, c)| format!("{c:?}").to_lowercase());
    if let Some(approved) = verdict.approved() {
        let receipt = side.execute(approved).await;
        if !receipt.accepted {
            tracing::warn!(
                "failsafe {} refused by the vehicle: {:?}",
                command.name(),
                receipt.message
            );
        }
    }
    recorder.append(
        now,
        Event::Watchdog {
            // What was flown: the gate may have made the step a landing or a move; a return
            // to an emergency site is named apart from the land step.
            action: match verdict.approved().map(|a| *a.command()) {
                Some(Command::Land { site: Some(_) }) if step == FailsafeStep::Return => {
                    "return_to_site"
                }
                Some(c) => c.name(),
                None => command.name(),
            }
            .to_string(),
            reason,
        },
    )?;
    Ok(())
}
