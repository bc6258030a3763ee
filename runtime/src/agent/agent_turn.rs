//! One agent turn: the policy decides (or fails, and the watchdog's ladder stands), each action
//! runs through the gate and the slice policy to the vehicle and plays out, and the turn spans
//! at least the decision period.

use super::advance::Until;
use super::episode::EpisodeOutcome;
use super::execute::{Executor, RouteChange};
use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use crate::episode_setup::EpisodeSettings;
use crate::policy::{DecisionContext, GenerationFailure, Policy};
use alpha3_core::protocol::{AgentTurn, ToolObservation};
use alpha3_core::record::Event;
use alpha3_core::vehicle::VehicleLink;
use std::time::Duration;

/// What the turn asked for and what its actions gave back.
pub(super) struct TurnDone {
    pub(super) agent_turn: AgentTurn,
    pub(super) observations: Vec<ToolObservation>,
}

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Runs agent turn `out.turns + 1` (counted in `out`, with its calls, tokens, failures and
    /// actions) and writes it to the record, flushed at its end.
    pub(super) async fn agent_turn(
        &mut self,
        policy: &mut dyn Policy,
        ctx: &DecisionContext,
        settings: &EpisodeSettings,
        out: &mut EpisodeOutcome,
    ) -> Result<TurnDone, Interruption> {
        out.turns += 1;
        let turn = out.turns;
        let started = self.side.now_ms();
        self.watchdog.decision_started(started);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(settings.deadline_ms);
        let decision = self.decide(policy, ctx, deadline).await?;
        out.policy_calls += decision.calls();
        out.tokens += decision.total_tokens();
        for e in decision.events(turn) {
            self.recorder.append(self.side.now_ms(), e)?;
        }
        // After a failed decision with the watchdog in charge, its step stands and its ladder
        // plays out over the turn.
        let mut watchdog_rules = false;
        let agent_turn = match &decision.outcome {
            Ok(t) => {
                self.watchdog.decision_made();
                t.clone()
            }
            Err(e) => {
                out.generation_failures += 1;
                let late = matches!(e, GenerationFailure::Deadline);
                if late {
                    self.watchdog.generation_failed();
                } else {
                    // An answer, if a useless one: what escalates is how many come in a row.
                    self.watchdog.answer_invalid();
                }
                if late {
                    // A missed deadline costs world time, during which the watchdog rules.
                    self.run_until(started + settings.deadline_ms + 1, Until::Time)
                        .await?;
                } else {
                    // No world time passes, but the watchdog sees the failure count now
                    // (repeated failures step down the ladder even while the vehicle holds).
                    self.tick().await?;
                }
                if self.watchdog.engaged().is_some() {
                    // The fallback hold would cancel the watchdog's return or landing.
                    watchdog_rules = true;
                    AgentTurn {
                        intent: alpha3_core::score::claim::WATCHDOG_INTENT.into(),
                        actions: Vec::new(),
                    }
                } else if policy.finished().is_some() {
                    // The policy has ended (an MCP client left): the episode ends after this
                    // turn and the failsafe hand-over takes the vehicle. A fallback hold would
                    // cancel a landing the vehicle is flying.
                    AgentTurn {
                        intent: "policy_ended".into(),
                        actions: Vec::new(),
                    }
                } else {
                    decision.turn_or_fallback()
                }
            }
        };
        self.recorder.append(
            self.side.now_ms(),
            Event::AgentTurn {
                turn,
                agent_turn: agent_turn.clone(),
            },
        )?;
        let mut observations = Vec::new();
        let turn_end = self.side.now_ms() + settings.turn_budget_ms;
        let budget_left = settings.max_tool_actions.saturating_sub(out.tool_actions);
        for (i, action) in agent_turn
            .actions
            .iter()
            .take(budget_left as usize)
            .enumerate()
        {
            let link = self.monitor.state(self.side.now_ms());
            // Each action is checked against other aircraft's intent and the autopilot's own
            // airspace as of now.
            self.refresh_plans();
            self.refresh_airspace(&settings.limits).await?;
            let mut exec = Executor {
                side: &mut *self.side,
                gate: &*self.gate,
                gate_state: &mut self.gate_state,
                catalogue: &self.catalogue,
                link,
                paused_for: self.paused_for.clone(),
                judged: Vec::new(),
                sent: None,
            };
            let o = exec.run(turn, i as u32, action).await;
            if exec.sent.is_some() {
                self.last_sent = exec.sent;
                self.last_sent_by_watchdog = false;
            }
            for (age_ms, gate_us) in exec.judged {
                self.timing.judged(age_ms, gate_us);
            }
            match o.route.clone() {
                Some(RouteChange::Adopt(route)) => {
                    self.gate.adopt_route(Some(route));
                    self.paused_for = None;
                }
                Some(RouteChange::Drop) => self.gate.adopt_route(None),
                None => {}
            }
            for e in o.events {
                self.recorder.append(self.side.now_ms(), e)?;
            }
            // A move, and the play-out after the last action, stop early when the link comes
            // back after the watchdog took the vehicle away: the turn's remaining actions go on
            // from where it is, and the agent decides again after them rather than the return
            // flying on. An ordered wait runs its time: holding through an outage is how an
            // agent plans for one.
            if let Some(wait) = o.wait_ms {
                let until = (self.side.now_ms() + wait).min(turn_end);
                self.run_until(until, Until::Time).await?;
            }
            if o.moved {
                // Actions run in order, each move to completion (as a mission upload would).
                self.run_until(turn_end, Until::Settled).await?;
            }
            observations.push(ToolObservation {
                name: o.tool,
                result: o.result,
            });
        }
        out.tool_actions += agent_turn.actions.len().min(budget_left as usize) as u32;
        policy.observe(&observations, &self.side.snapshot());
        // Let the last command play out (the vehicle's own clock), under the watchdog; a
        // policy that has ended leaves that to the hand-over, at once.
        let ended = policy.finished().is_some();
        let play_out = if watchdog_rules {
            Until::Released
        } else {
            Until::Settled
        };
        if !ended {
            self.run_until(turn_end, play_out).await?;
            // A turn spans at least the decision period, even one that moved nothing (no
            // action, all refused or held back): the world does not wait on the agent.
            let period_end = started + settings.watchdog.decision_period_ms;
            self.run_until(period_end, Until::Time).await?;
        }
        self.recorder.flush()?;
        Ok(TurnDone {
            agent_turn,
            observations,
        })
    }
}
