//! One closed-loop episode, over any [`VehicleLink`] that is its own [`Surroundings`]: the
//! agent's turn ([`Flight::agent_turn`]), the operator's turn, and the check whether the
//! episode ends; an unsuccessful end with the vehicle in the air hands it to the failsafe.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use super::traffic::PlansCopy;
use crate::episode_setup::{AfterSuccess, EpisodeSettings};
use crate::policy::steer::MissionFacts;
use crate::policy::{DecisionContext, Policy};
use crate::recorder::{Recorder, RecorderError};
use alpha3_core::failsafe::Watchdog;
use alpha3_core::gate::{GateContext, GateState};
use alpha3_core::link::{LinkCondition, LinkMonitor, MonitorSettings};
use alpha3_core::protocol::{AgentTurn, Situation, catalogue};
use alpha3_core::record::Event;
use alpha3_core::vehicle::{LinkError, VehicleLink};
use alpha3_sim::World;

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
    /// How the safety path kept up (telemetry age, the gate's time, late watchdog ticks).
    pub safety: super::safety_timing::SafetyTiming,
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
/// `vehicle_refused`. One in which the model never answered ends as failed
/// (`episode_failed: <why>`, [`Policy::no_answer`]).
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
        safety: super::safety_timing::SafetyTiming::default(),
    };
    match episode_loop(side, policy, gate, settings, recorder, &mut out).await {
        // A model that never answered had no say in the flight: not its episode.
        Ok(()) => {
            if let Some(why) = policy.no_answer() {
                tracing::warn!("the episode fails: {why}");
                out.success = false;
                out.reason = alpha3_core::record::failure_reason(&why.to_string());
            }
        }
        Err(Interruption::Record(e)) => return Err(e),
        Err(Interruption::Vehicle(e)) => {
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

async fn episode_loop<V: VehicleLink + Surroundings>(
    side: &mut V,
    policy: &mut dyn Policy,
    gate: &mut GateContext,
    settings: &EpisodeSettings,
    recorder: &mut Recorder,
    out: &mut EpisodeOutcome,
) -> Result<(), Interruption> {
    let mut catalogue = catalogue();
    if side.handed_route().is_some() {
        // A plan flown on an autopilot may be handed over: its tools, outside the benchmark's.
        catalogue.extend(alpha3_core::protocol::mission_tools());
    }
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
    ctx.facts = Some(MissionFacts::of_world(side.world()));
    let mut flight = Flight {
        side,
        gate,
        recorder,
        gate_state: GateState::default(),
        catalogue,
        watchdog: Watchdog::new(&settings.watchdog, settings.deadline_ms),
        monitor,
        interval_ms: settings.truth_interval_ms,
        reported: 0,
        return_to: None,
        plans: PlansCopy::default(),
        mission_watch_at_ms: 0,
        paused_for: None,
        limits: settings.limits.clone(),
        cut: settings.handover_cut.clone(),
        timing: super::safety_timing::SafetyTiming::default(),
        swarm_held: false,
        last_sent: None,
        last_sent_by_watchdog: false,
    };
    let flown = fly(&mut flight, policy, ctx, settings, out).await;
    out.safety = std::mem::take(&mut flight.timing);
    flown
}

/// Agent and operator turns until the episode ends, then the hand-over the end asks for.
async fn fly<V: VehicleLink + Surroundings>(
    flight: &mut Flight<'_, V>,
    policy: &mut dyn Policy,
    mut ctx: DecisionContext,
    settings: &EpisodeSettings,
    out: &mut EpisodeOutcome,
) -> Result<(), Interruption> {
    let mut lost_since: Option<u64> = None;
    loop {
        let done = flight.agent_turn(policy, &ctx, settings, out).await?;
        let (operator_text, sample) = operator_turn(flight, &done.agent_turn, out).await?;
        let now = flight.side.now_ms();
        lost_since = match flight.monitor.state(now).condition {
            LinkCondition::Lost => Some(lost_since.unwrap_or(now)),
            _ => None,
        };
        let lost_for_ms = lost_since.map_or(0, |t| now - t);
        let finished = policy.finished();
        // A swarm member that lost its swarm lands where it is: its mates take it for landed
        // there, and nobody may fly blind among them.
        if flight.side.swarm_lost(now) {
            out.success = false;
            out.reason = "swarm_lost".into();
            flight
                .hand_over(
                    settings.watchdog.handover_max_ms,
                    &settings.handover_cut,
                    true,
                )
                .await?;
            return Ok(());
        }
        if let Some(reason) = termination(flight.side.world(), lost_for_ms, out, settings, finished)
        {
            out.success = flight.side.world().mission_report().task_outcome() >= 1.0;
            out.reason = reason;
            let end = if out.success {
                settings.after_success
            } else {
                AfterSuccess::ReturnAndLand
            };
            if end != AfterSuccess::Stay {
                flight
                    .hand_over(
                        settings.watchdog.handover_max_ms,
                        &settings.handover_cut,
                        end == AfterSuccess::Land,
                    )
                    .await?;
            }
            return Ok(());
        }
        ctx.advance(
            done.agent_turn,
            Situation {
                snapshot: flight.side.snapshot(),
                link: sample,
                observations: done.observations,
                operator: Some(operator_text),
            },
        );
        ctx.facts = Some(MissionFacts::of_world(flight.side.world()));
    }
}

/// The operator answers the agent's turn (counted in `out`); the link is sampled after it.
/// Returns the operator's words and that sample.
async fn operator_turn<V: VehicleLink + Surroundings>(
    flight: &mut Flight<'_, V>,
    agent_turn: &AgentTurn,
    out: &mut EpisodeOutcome,
) -> Result<(String, alpha3_core::link::LinkSample), Interruption> {
    out.turns += 1;
    let op = flight.side.operator_turn(agent_turn).await;
    flight.recorder.append(
        flight.side.now_ms(),
        Event::OperatorTurn {
            turn: out.turns,
            intent: op.intent.clone(),
            text: op.text.clone(),
            actions: Vec::new(),
        },
    )?;
    let sample = flight.side.link_sample();
    flight.monitor.observe(sample, flight.side.now_ms());
    flight
        .recorder
        .append(flight.side.now_ms(), Event::Link { sample })?;
    flight.recorder.flush()?;
    Ok((op.text, sample))
}

fn settings_hard() -> alpha3_core::link::HardThresholds {
    alpha3_core::link::HardThresholds::default()
}

/// Why the episode ends now, if it does (`finished`: the policy's own reason to stop).
fn termination(
    world: &World,
    lost_for_ms: u64,
    out: &EpisodeOutcome,
    settings: &EpisodeSettings,
    finished: Option<String>,
) -> Option<String> {
    let report = world.mission_report();
    if report.task_outcome() >= 1.0 {
        return Some("mission_complete".into());
    }
    if world.violations().iter().any(|v| v.kind.is_terminating()) {
        return Some("safety_violation".into());
    }
    if let Some(reason) = finished {
        return Some(reason);
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
