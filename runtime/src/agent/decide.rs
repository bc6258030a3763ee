//! Waiting for the policy's decision under its deadline, while a real-time vehicle flies on
//! under the watchdog.

use super::flight::Flight;
use super::interruption::Interruption;
use super::surroundings::Surroundings;
use crate::policy::{Attempt, Decision, DecisionContext, GenerationFailure, Policy};
use alpha3_core::vehicle::VehicleLink;

impl<V: VehicleLink + Surroundings> Flight<'_, V> {
    /// Waits for the policy. The world stands still meanwhile (a decision takes no world
    /// time); a real-time vehicle keeps flying, so the watchdog ticks until the decision
    /// arrives and holds — then steps down — if it is late.
    pub(super) async fn decide(
        &mut self,
        policy: &mut dyn Policy,
        ctx: &DecisionContext,
        deadline: tokio::time::Instant,
    ) -> Result<Decision, Interruption> {
        let asked = tokio::time::Instant::now();
        let pending = policy.decide(ctx, deadline);
        if !self.side.realtime() {
            // A policy that overruns its deadline (sleeps, hangs) is cut off there: a late
            // answer is never flown.
            return Ok(tokio::time::timeout_at(deadline, pending)
                .await
                .unwrap_or_else(|_| missed_deadline(asked)));
        }
        tokio::pin!(pending);
        self.timing.in_decision = true;
        let decided = loop {
            let next = self.side.now_ms() + self.interval_ms;
            tokio::select! {
                biased;
                d = &mut pending => break Ok(d),
                () = tokio::time::sleep_until(deadline) => break Ok(missed_deadline(asked)),
                r = self.side.advance_to(next) => {
                    if let Err(e) = r {
                        break Err(e.into());
                    }
                    self.timing.ticked(self.side.now_ms().saturating_sub(next));
                    if let Err(e) = self.tick().await {
                        break Err(e);
                    }
                }
            }
        };
        self.timing.in_decision = false;
        decided
    }
}

/// The decision of a policy that did not answer by its deadline: one attempt, with the error.
fn missed_deadline(asked: tokio::time::Instant) -> Decision {
    Decision {
        outcome: Err(GenerationFailure::Deadline),
        attempts: vec![Attempt {
            attempt: 1,
            prompt: String::new(),
            completion: String::new(),
            prompt_tokens: 0,
            cached_tokens: 0,
            completion_tokens: 0,
            latency_ms: asked.elapsed().as_secs_f64() * 1000.0,
            ttft_ms: None,
            error: Some("the policy did not answer by its deadline".into()),
            admissible: None,
        }],
    }
}
