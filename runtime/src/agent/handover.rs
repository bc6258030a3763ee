//! The end of an episode with the vehicle still in the air, and the way home the watchdog
//! weighs its land step against.
//!
//! Once an episode is over nobody decides for the vehicle: left hovering, it would stay there
//! until its battery ran out. So after an episode that ended without success (a budget, the
//! link, a violation) with the vehicle airborne, the runtime hands it to the failsafe — the
//! watchdog's return, which ends with a landing at home, or its land step where the gate rules
//! the return out (see `alpha3_core::watchdog`) — and lets episode time run until the vehicle
//! is down or `watchdog.handover_max_ms` has passed. It is recorded like the episode itself
//! (watchdog steps with the cause `episodeended`, truth, link, violations), before the
//! termination line. A successful episode ends where its mission ends, under the agent's last
//! command.

use super::episode::{Loop, Stop, take_step, tick_after_advance};
use super::side::VehicleSide;
use crate::recorder::Recorder;
use alpha3_core::command::Command;
use alpha3_core::config::FailsafeStep;
use alpha3_core::gate::{GateContext, GateState, Severity, evaluate, ids};
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use alpha3_core::watchdog::{ReturnStatus, WatchdogAction};

/// Denials of a return that pass by themselves: traffic moves on, the rate limit refills, the
/// next telemetry is fresh. A return is not ruled out by these; it waits them out.
const PASSING: [&str; 4] = [
    ids::SEPARATION_TRAFFIC,
    ids::SEPARATION_PEER,
    ids::RATE_EXCEEDED,
    ids::STATE_STALE_SNAPSHOT,
];

/// The way home from `snap`: how far, how high, and whether the gate rules a return from here
/// out: its path through a zone, static or moving, or out of the fence; the energy to get home
/// with the hard reserve; no position fix. Without a fix the return would fly on a drifting
/// estimate — towards a home that is not there, possibly out of the fence — so, as PX4 does on
/// position loss, the vehicle lands instead.
pub(super) fn return_status(
    gate: &GateContext,
    snap: &VehicleSnapshot,
    now_ms: u64,
) -> ReturnStatus {
    let home = gate.home();
    let ruled_out = snap.is_airborne() && {
        let mut scratch = GateState::default();
        let verdict = evaluate(gate, snap, &Command::ReturnToHome, now_ms, &mut scratch);
        verdict
            .findings()
            .iter()
            .any(|f| f.severity == Severity::Deny && !PASSING.contains(&f.id))
    };
    ReturnStatus {
        home_distance_m: snap.position.horizontal_distance(home),
        height_m: snap.position.z - home.z,
        ruled_out,
    }
}

/// Hands a vehicle still in the air at the end of an unsuccessful episode to the failsafe and
/// runs episode time until it is down or `max_ms` has passed (0: not at all).
pub(super) async fn hand_over<V: VehicleSide>(
    side: &mut V,
    gate: &GateContext,
    lp: &mut Loop,
    recorder: &mut Recorder,
    max_ms: u64,
) -> Result<(), Stop> {
    let snapshot = side.snapshot();
    if max_ms == 0 || !snapshot.is_airborne() {
        return Ok(());
    }
    let now = side.now_ms();
    lp.watchdog
        .observe_return(now, return_status(gate, &snapshot, now));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::EpisodeSettings;
    use alpha3_core::airspace::Area;
    use alpha3_core::config::Config;
    use alpha3_core::frames::{Enu, Geo};
    use alpha3_core::snapshot::{FixType, LandedState};

    const NOW: u64 = 10_000;

    fn gate() -> GateContext {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/alpha3.toml");
        let config = Config::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
        GateContext::new(EpisodeSettings::default().limits, config.vehicle.unwrap()).unwrap()
    }

    fn hovering(x: f64, y: f64, z: f64) -> VehicleSnapshot {
        let mut s = VehicleSnapshot::on_ground_at_home(Geo::default(), NOW);
        s.armed = true;
        s.landed = LandedState::InAir;
        s.position = Enu::new(x, y, z);
        s
    }

    #[test]
    fn the_way_home_is_measured_and_open_in_an_open_field() {
        let s = return_status(&gate(), &hovering(300.0, 400.0, 40.0), NOW);
        assert!((s.home_distance_m - 500.0).abs() < 1e-9);
        assert!((s.height_m - 40.0).abs() < 1e-9);
        assert!(!s.ruled_out);
    }

    #[test]
    fn an_empty_battery_or_a_zone_on_the_way_rule_the_return_out() {
        let mut empty = hovering(300.0, 0.0, 40.0);
        empty.battery.remaining_pct = 16.0;
        assert!(return_status(&gate(), &empty, NOW).ruled_out);
        let zone = gate()
            .with_no_fly(&Area::circle([150.0, 0.0], 40.0))
            .unwrap();
        assert!(return_status(&zone, &hovering(300.0, 0.0, 40.0), NOW).ruled_out);
    }

    #[test]
    fn without_a_fix_the_return_is_ruled_out() {
        let mut no_fix = hovering(300.0, 0.0, 40.0);
        no_fix.gnss.fix = FixType::None;
        assert!(return_status(&gate(), &no_fix, NOW).ruled_out);
    }

    #[test]
    fn on_the_ground_nothing_is_ruled_out() {
        let mut parked = hovering(300.0, 0.0, 0.0);
        parked.landed = LandedState::OnGround;
        parked.gnss.fix = FixType::None;
        assert!(!return_status(&gate(), &parked, NOW).ruled_out);
    }
}
