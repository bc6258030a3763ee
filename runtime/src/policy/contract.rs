//! What every mission policy does: decide the next agent turn under a deadline.

use super::decision::{Decision, DecisionContext};
use super::generator::BoxFuture;
use super::no_answer::NoAnswer;
use alpha3_core::protocol::ToolObservation;
use alpha3_core::snapshot::VehicleSnapshot;
use tokio::time::Instant;

/// A mission policy. Object-safe, so the runtime can hold whichever backend the config names.
pub trait Policy: Send {
    /// The policy's name for reports (the config's `policy.name`).
    fn name(&self) -> &str;

    /// Decides the next agent turn. Never fails outright: past `deadline`, or after the last
    /// invalid attempt, the [`Decision`] carries a [`GenerationFailure`] and every attempt made.
    ///
    /// [`GenerationFailure`]: super::GenerationFailure
    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision>;

    /// Prepares for the first decision (a local model evaluates the fixed prompt header), so
    /// an episode's first deadline does not pay for it. Optional: the default does nothing.
    fn warm_up(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Hears what the turn's actions gave back once they played out, with the vehicle as it is
    /// then (an MCP client's tool call is answered here). Optional: the default ignores it.
    fn observe(&mut self, observations: &[ToolObservation], now: &VehicleSnapshot) {
        let _ = (observations, now);
    }

    /// Why the policy will decide nothing more (an MCP client that left, a model whose key
    /// was refused), which ends the episode. Optional: the default is never.
    fn finished(&self) -> Option<String> {
        None
    }

    /// Why the episode flown so far is not this policy's own: a model that never answered in
    /// it had no say in the flight. Asked as the episode ends, which then ends as failed
    /// (`episode_failed: <why>`) and is never scored as valid. Optional: the default is never.
    fn no_answer(&self) -> Option<NoAnswer> {
        None
    }
}
