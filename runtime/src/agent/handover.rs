//! The end of an episode with the vehicle still in the air, and the way home the watchdog
//! weighs its land step against.
//!
//! Once an episode is over nobody decides for the vehicle: left hovering, it would stay there
//! until its battery ran out. So after an episode that ended without success (a budget, the
//! link, a violation) with the vehicle airborne, the runtime hands it to the failsafe — the
//! watchdog's return, which ends with a landing at home, or its land step where the gate rules
//! the return out (see `alpha3_core::failsafe`) — and lets episode time run until the vehicle
//! is down or `watchdog.handover_max_ms` has passed. It is recorded like the episode itself
//! (watchdog steps with the cause `episodeended`, truth, link, violations), before the
//! termination line. A successful episode ends where its mission ends, under the agent's last
//! command.

use super::episode::{Loop, Stop, refresh_plans, take_step, tick_after_advance};
use super::surroundings::Surroundings;
use crate::recorder::Recorder;
use alpha3_core::config::FailsafeStep;
use alpha3_core::failsafe::{WatchdogAction, return_status};
use alpha3_core::gate::GateContext;
use alpha3_core::snapshot::FlightMode;
use alpha3_core::vehicle::VehicleLink;

/// Hands a vehicle still in the air at the end of an unsuccessful episode to the failsafe and
/// runs episode time until it is down or `max_ms` has passed (0: not at all).
pub(super) async fn hand_over<V: VehicleLink + Surroundings>(
    side: &mut V,
    gate: &mut GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
    max_ms: u64,
) -> Result<(), Stop> {
    let snapshot = side.snapshot();
    if max_ms == 0 || !snapshot.is_airborne() {
        return Ok(());
    }
    refresh_plans(gate, side, lp);
    let now = side.now_ms();
    lp.watchdog.observe_return(
        now,
        return_status(gate, &snapshot, now, lp.return_to.as_ref(), true),
    );
    let under_way = match snapshot.mode {
        FlightMode::Return => Some(FailsafeStep::Return),
        FlightMode::Land => Some(FailsafeStep::Land),
        _ => None,
    };
    if let WatchdogAction::Step(step) = lp.watchdog.episode_ended(now, under_way) {
        take_step(side, gate, lp, recorder, &snapshot, now, step).await?;
    }
    let until = now.saturating_add(max_ms);
    while side.now_ms() < until && side.snapshot().is_airborne() {
        let next = (side.now_ms() + lp.interval_ms).min(until);
        side.advance_to(next).await?;
        tick_after_advance(side, gate, lp, recorder).await?;
    }
    if side.snapshot().is_airborne() {
        tracing::warn!(
            "the vehicle is still in the air {} s after the episode ended",
            max_ms / 1000
        );
    }
    Ok(())
}
