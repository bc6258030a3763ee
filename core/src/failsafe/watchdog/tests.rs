use super::*;
use crate::failsafe::HANDOVER_TRAFFIC_WAIT_MS;

fn config() -> WatchdogConfig {
    WatchdogConfig {
        ladder: vec![FailsafeStep::Hold, FailsafeStep::Return, FailsafeStep::Land],
        step_interval_ms: 10_000,
        max_generation_failures: 3,
        min_time_to_breach_ms: 3_000,
        hold_setpoint_hz: 10.0,
        decision_period_ms: 5_000,
        handover_max_ms: 600_000,
    }
}

#[test]
fn a_pending_decision_holds_then_a_missed_deadline_walks_the_ladder() {
    let mut w = Watchdog::new(&config(), 5_000);
    w.decision_started(0);
    assert_eq!(w.tick(1_000, None), WatchdogAction::StreamHold);
    assert_eq!(w.tick(5_000, None), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(5_001, None),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert_eq!(w.tick(6_000, None), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(15_001, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert_eq!(
        w.tick(25_001, None),
        WatchdogAction::Step(FailsafeStep::Land)
    );
    assert_eq!(
        w.tick(99_000, None),
        WatchdogAction::StreamHold,
        "no step past the last"
    );
    assert_eq!(
        w.engaged(),
        Some((FailsafeStep::Land, Cause::DeadlineMissed))
    );
    w.decision_made();
    assert_eq!(
        w.engaged().map(|e| e.0),
        Some(FailsafeStep::Land),
        "landing is not undone"
    );
}

#[test]
fn a_valid_decision_before_the_last_step_resets_the_ladder() {
    let mut w = Watchdog::new(&config(), 5_000);
    w.decision_started(0);
    assert_eq!(
        w.tick(6_000, None),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    w.decision_made();
    assert_eq!(w.engaged(), None);
    assert_eq!(w.tick(7_000, None), WatchdogAction::None);
}

#[test]
fn repeated_generation_failures_and_link_loss_escalate() {
    let mut w = Watchdog::new(&config(), 60_000);
    for _ in 0..3 {
        w.generation_failed();
    }
    assert_eq!(w.tick(100, None), WatchdogAction::Step(FailsafeStep::Hold));
    let mut w = Watchdog::new(&config(), 60_000);
    w.link_lost(true);
    assert_eq!(w.tick(100, None), WatchdogAction::Step(FailsafeStep::Hold));
    w.decision_made();
    assert_eq!(
        w.engaged().map(|e| e.1),
        Some(Cause::LinkLost),
        "still lost: no reset"
    );
}

#[test]
fn a_predicted_breach_holds_at_once() {
    let mut w = Watchdog::new(&config(), 60_000);
    assert_eq!(w.tick(0, Some(10_000)), WatchdogAction::None);
    assert_eq!(
        w.tick(0, Some(2_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // Still predicted: within the repeat interval it streams the hold, after it the hold is
    // taken again (the gate's failsafe path may make it a move out of the way).
    assert_eq!(w.tick(4_000, Some(2_000)), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(50_000, Some(2_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // A return under way is not interrupted by it.
    let mut w = holding_for_a_lost_link();
    assert_eq!(
        w.tick(10_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert_eq!(w.tick(16_000, Some(2_000)), WatchdogAction::StreamHold);
}

/// A hold taken while the breach was still beyond the move's lead is taken again as soon as
/// there is no time left (the gate makes that hold the move out of the way), not 5 s later.
#[test]
fn a_breach_that_must_be_acted_on_now_takes_the_hold_again_at_once() {
    let mut w = Watchdog::new(&config(), 60_000);
    assert_eq!(
        w.tick(0, Some(2_500)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // Traffic turned towards the holding vehicle: no time left 1 s later.
    assert_eq!(
        w.tick(1_000, Some(0)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // Not every tick: after PREDICTED_BREACH_URGENT_REPEAT_MS.
    assert_eq!(w.tick(1_200, Some(0)), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(1_500, Some(0)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // With time left, the 5 s repeat again.
    assert_eq!(w.tick(3_000, Some(1_000)), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(6_500, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // No time left again: at once.
    assert_eq!(
        w.tick(7_000, Some(0)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
}

/// A return a later decision replaced is taken again at the episode's end: the vehicle is not left hovering.
#[test]
fn an_ended_episode_takes_a_return_again_that_the_vehicle_no_longer_flies() {
    // The link was lost: hold, then return; a decision then replaced the return (the link
    // still lost, the ladder stays engaged). At the end the vehicle is not returning.
    let mut w = holding_for_a_lost_link();
    assert_eq!(
        w.tick(10_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    w.decision_made();
    assert_eq!(
        w.episode_ended(20_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

#[test]
fn invalid_answers_escalate_by_their_count_not_by_the_deadline() {
    let mut w = Watchdog::new(&config(), 1_000);
    for k in 0..3u64 {
        w.decision_started(k * 5_000);
        w.answer_invalid();
        let a = w.tick(k * 5_000 + 4_000, None);
        if k < 2 {
            assert_eq!(a, WatchdogAction::None, "answer {k}: nothing pending");
        } else {
            assert_eq!(a, WatchdogAction::Step(FailsafeStep::Hold));
        }
    }
    assert_eq!(
        w.engaged(),
        Some((FailsafeStep::Hold, Cause::GenerationFailures))
    );
}

/// The way home from `d` m out at 40 m, ruled out or not.
fn way(d: f64, ruled_out: bool) -> ReturnStatus {
    ReturnStatus {
        home_distance_m: d,
        height_m: 40.0,
        ruled_out,
        traffic_in_way: false,
    }
}

/// The way home `d` m long, open, with traffic in it now.
fn busy(d: f64) -> ReturnStatus {
    ReturnStatus {
        traffic_in_way: true,
        ..way(d, false)
    }
}

/// A watchdog whose link was lost at 0: the hold taken at 0.
fn holding_for_a_lost_link() -> Watchdog {
    let mut w = Watchdog::new(&config(), 60_000);
    w.link_lost(true);
    assert_eq!(w.tick(0, None), WatchdogAction::Step(FailsafeStep::Hold));
    w
}

/// A watchdog whose link was lost at 0: hold at 0, return at 10 s.
fn returning(first: ReturnStatus) -> Watchdog {
    let mut w = holding_for_a_lost_link();
    w.observe_return(5_000, first);
    assert_eq!(
        w.tick(10_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    w
}

#[test]
fn a_return_that_gets_closer_is_not_cut_short_by_the_land_step() {
    let mut w = returning(way(400.0, false));
    // 8 m/s towards home, then the descent there: never a land step.
    let mut d = 400.0;
    let mut t = 10_000;
    while d > 0.0 {
        t += 1_000;
        d = (d - 8.0f64).max(0.0);
        w.observe_return(t, way(d, false));
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    // Over home the descent is slow (0.5 m/s): still no land step.
    for h in (0..=40).rev() {
        t += 2_000;
        let s = ReturnStatus {
            home_distance_m: 0.5,
            height_m: f64::from(h),
            ruled_out: false,
            traffic_in_way: false,
        };
        w.observe_return(t, s);
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    // Landed at home: done, whatever time passes.
    t += 100_000;
    let landed = ReturnStatus {
        home_distance_m: 0.5,
        height_m: 0.0,
        ruled_out: false,
        traffic_in_way: false,
    };
    w.observe_return(t, landed);
    assert_eq!(
        w.tick(t, None),
        WatchdogAction::StreamHold,
        "done: no land step"
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Return, Cause::LinkLost)));
}

#[test]
fn climbing_to_the_return_altitude_counts_as_progress() {
    let mut w = returning(way(400.0, false));
    // 20 s of climb at 2 m/s (longer than the 10 s interval), then cruise home.
    for k in 1..=20u64 {
        let s = ReturnStatus {
            home_distance_m: 400.0,
            height_m: 40.0 + 2.0 * k as f64,
            ruled_out: false,
            traffic_in_way: false,
        };
        w.observe_return(10_000 + k * 1_000, s);
        assert_eq!(w.tick(10_000 + k * 1_000, None), WatchdogAction::StreamHold);
    }
    // Level at 80 m and not closing for a whole interval: the land step.
    let stuck = ReturnStatus {
        home_distance_m: 400.0,
        height_m: 80.0,
        ruled_out: false,
        traffic_in_way: false,
    };
    let land_at = (31_000..=45_000u64).step_by(1_000).find(|&t| {
        w.observe_return(t, stuck);
        w.tick(t, None) == WatchdogAction::Step(FailsafeStep::Land)
    });
    assert_eq!(
        land_at,
        Some(36_000),
        "10 s after the last 10 m of climb (at 26 s)"
    );
}

#[test]
fn a_return_that_stops_getting_closer_gives_way_to_the_land_step() {
    let mut w = returning(way(400.0, false));
    w.observe_return(11_000, way(390.0, false));
    // Stuck 390 m out (the autopilot does not fly it): land one interval later.
    for t in (12_000..21_000).step_by(1_000) {
        w.observe_return(t, way(388.0, false));
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    w.observe_return(21_000, way(386.0, false));
    assert_eq!(
        w.tick(21_000, None),
        WatchdogAction::Step(FailsafeStep::Land)
    );
}

#[test]
fn a_return_the_gate_rules_out_gives_way_to_the_land_step() {
    // Ruled out while holding: the return step is skipped for the land step.
    let mut w = holding_for_a_lost_link();
    w.observe_return(5_000, way(400.0, true));
    assert_eq!(
        w.tick(10_000, None),
        WatchdogAction::Step(FailsafeStep::Land)
    );
    // Ruled out on the way (energy, a zone): the land step on its interval.
    let mut w = returning(way(400.0, false));
    w.observe_return(12_000, way(380.0, false));
    assert_eq!(w.tick(12_000, None), WatchdogAction::StreamHold);
    w.observe_return(15_000, way(350.0, true));
    assert_eq!(w.tick(15_000, None), WatchdogAction::StreamHold);
    w.observe_return(20_000, way(300.0, true));
    assert_eq!(
        w.tick(20_000, None),
        WatchdogAction::Step(FailsafeStep::Land)
    );
}

/// A breach predicted all the way home does not keep a return the gate rules out from its land step.
#[test]
fn a_predicted_breach_does_not_keep_a_ruled_out_return_from_its_land_step() {
    // Returning since 10 s; from 15 s the return is ruled out (no fix) and a breach is
    // predicted all the time (the estimate drifts towards the fence).
    let mut w = returning(way(400.0, false));
    w.observe_return(12_000, way(380.0, false));
    assert_eq!(w.tick(12_000, Some(1_000)), WatchdogAction::StreamHold);
    w.observe_return(15_000, way(370.0, true));
    assert_eq!(w.tick(15_000, Some(1_000)), WatchdogAction::StreamHold);
    w.observe_return(20_000, way(370.0, true));
    assert_eq!(
        w.tick(20_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Land)
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Land, Cause::LinkLost)));
}

#[test]
fn a_ladder_engaged_for_a_lost_link_is_released_when_it_is_back() {
    let mut w = Watchdog::new(&config(), 60_000);
    assert!(!w.released());
    w.link_lost(true);
    assert_eq!(w.tick(0, None), WatchdogAction::Step(FailsafeStep::Hold));
    w.link_lost(false);
    assert!(
        !w.released(),
        "a hold leaves the vehicle where the agent had it"
    );
    w.link_lost(true);
    assert_eq!(
        w.tick(10_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert!(!w.released(), "still lost");
    w.link_lost(false);
    assert!(w.released());
    w.decision_made();
    assert!(!w.released(), "the decision took it back");
    // Engaged for another cause: not released by the link.
    let mut w = Watchdog::new(&config(), 1_000);
    w.decision_started(0);
    assert_eq!(
        w.tick(2_000, None),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert!(!w.released());
}

/// A cause that escalates during a breach hold starts its ladder at that hold, now.
#[test]
fn a_breach_hold_is_not_time_served_for_a_lost_link() {
    let mut w = Watchdog::new(&config(), 60_000);
    assert_eq!(
        w.tick(0, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    w.link_lost(true);
    // The link's ladder starts now, at its hold …
    assert_eq!(
        w.tick(12_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Hold, Cause::LinkLost)));
    assert_eq!(w.tick(21_000, None), WatchdogAction::StreamHold);
    // … and its return is due one interval later.
    assert_eq!(
        w.tick(22_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

#[test]
fn a_return_waits_for_traffic_in_its_way_one_interval_at_most() {
    let busy = busy(400.0);
    let mut w = holding_for_a_lost_link();
    w.observe_return(9_000, busy);
    assert_eq!(w.tick(10_000, None), WatchdogAction::StreamHold, "waits");
    // Traffic passed: the return goes.
    w.observe_return(14_000, way(400.0, false));
    assert_eq!(
        w.tick(14_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    // Traffic stays in the way: the return goes one interval after it was due.
    let mut w = holding_for_a_lost_link();
    w.observe_return(9_000, busy);
    assert_eq!(w.tick(19_000, None), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(20_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

#[test]
fn an_ended_episode_with_traffic_in_the_way_holds_before_it_returns() {
    let busy = busy(300.0);
    let mut w = Watchdog::new(&config(), 60_000);
    w.observe_return(0, busy);
    assert_eq!(
        w.episode_ended(0, None),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Hold, Cause::EpisodeEnded)));
    w.observe_return(12_000, way(300.0, false));
    assert_eq!(
        w.tick(12_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

/// The hand-over's return waits for traffic in its way, from the episode's end, rather than fly through it.
#[test]
fn the_hand_over_waits_for_traffic_from_the_episodes_end_however_old_its_hold() {
    let busy = busy(300.0);
    // Held for a lost link since 0; the episode ends at 100 s with traffic in the way.
    let mut w = holding_for_a_lost_link();
    w.link_lost(false);
    w.observe_return(100_000, busy);
    assert_eq!(w.episode_ended(100_000, None), WatchdogAction::StreamHold);
    assert!(w.has_ended());
    // It keeps holding while the traffic is in the way …
    let last = 100_000 + HANDOVER_TRAFFIC_WAIT_MS - 1;
    for t in [110_000, 130_000, last] {
        w.observe_return(t, busy);
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    // … and returns when it has passed.
    let mut clear = w.clone();
    clear.observe_return(140_000, way(300.0, false));
    assert_eq!(
        clear.tick(140_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    // At the latest, the return goes when the wait is over.
    let end = 100_000 + HANDOVER_TRAFFIC_WAIT_MS;
    w.observe_return(end, busy);
    assert_eq!(
        w.tick(end, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

/// Taking the hold again for a predicted breach keeps the time it was first taken.
#[test]
fn a_hold_repeated_for_a_predicted_breach_still_steps_on_to_the_return() {
    let mut w = holding_for_a_lost_link();
    // Traffic: the hold is taken again every 5 s …
    assert_eq!(
        w.tick(5_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert_eq!(w.tick(7_000, Some(1_000)), WatchdogAction::StreamHold);
    // … but the return is due 10 s after the hold was first taken.
    assert_eq!(
        w.tick(10_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Return)
    );
}

#[test]
fn an_ended_episode_hands_the_vehicle_to_the_return_at_once() {
    let mut w = Watchdog::new(&config(), 60_000);
    w.decision_made();
    w.observe_return(0, way(300.0, false));
    assert_eq!(
        w.episode_ended(0, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert_eq!(
        w.engaged(),
        Some((FailsafeStep::Return, Cause::EpisodeEnded))
    );
    for t in (1_000..40_000).step_by(1_000) {
        w.observe_return(t, way(300.0 - t as f64 / 200.0, false));
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    // Then it stalls 100 m out (its last 10 m of progress at 39 s): the land step one
    // interval (10 s) after that.
    let land_at = (40_000..=60_000u64).step_by(1_000).find(|&t| {
        w.observe_return(t, way(100.0, false));
        w.tick(t, None) == WatchdogAction::Step(FailsafeStep::Land)
    });
    assert_eq!(land_at, Some(49_000));
    // From a hold, with the return ruled out: the land step at once.
    let mut w = holding_for_a_lost_link();
    w.observe_return(1_000, way(300.0, true));
    assert_eq!(
        w.episode_ended(1_000, None),
        WatchdogAction::Step(FailsafeStep::Land)
    );
}

#[test]
fn an_ended_episode_leaves_a_return_or_landing_under_way_alone() {
    let mut w = Watchdog::new(&config(), 60_000);
    w.observe_return(0, way(300.0, false));
    assert_eq!(
        w.episode_ended(0, Some(FailsafeStep::Land)),
        WatchdogAction::StreamHold
    );
    assert_eq!(w.engaged().map(|e| e.0), Some(FailsafeStep::Land));
    assert_eq!(w.tick(99_000, None), WatchdogAction::StreamHold);
    let mut w = Watchdog::new(&config(), 60_000);
    w.observe_return(0, way(300.0, false));
    assert_eq!(
        w.episode_ended(0, Some(FailsafeStep::Return)),
        WatchdogAction::StreamHold
    );
    assert_eq!(w.engaged().map(|e| e.0), Some(FailsafeStep::Return));
    // A return the vehicle flies on its own that the gate rules out: land.
    let mut w = Watchdog::new(&config(), 60_000);
    w.observe_return(0, way(300.0, true));
    assert_eq!(
        w.episode_ended(0, Some(FailsafeStep::Return)),
        WatchdogAction::Step(FailsafeStep::Land)
    );
}

/// A link lost during a breach hold waits out its own hold: a return ruled out for a moment
/// then is not skipped for the land step.
#[test]
fn a_link_lost_during_a_breach_hold_returns_after_its_own_hold() {
    let mut w = Watchdog::new(&config(), 60_000);
    assert_eq!(
        w.tick(0, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // 15 s into the breach hold the link is lost while GNSS jamming rules the return out.
    w.link_lost(true);
    w.observe_return(15_000, way(400.0, true));
    assert_eq!(
        w.tick(15_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    // The jamming passes; the return comes one interval after the link's hold, not a landing.
    w.observe_return(20_000, way(400.0, false));
    for t in (20_000..25_000).step_by(1_000) {
        assert_eq!(w.tick(t, None), WatchdogAction::StreamHold, "at {t} ms");
    }
    assert_eq!(
        w.tick(25_000, None),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Return, Cause::LinkLost)));
}

/// A hold the ladder took for another cause is taken again for a predicted breach, so the
/// gate's failsafe path can move the vehicle out of traffic's way.
#[test]
fn a_hold_taken_for_a_lost_link_is_taken_again_for_a_predicted_breach() {
    let mut w = holding_for_a_lost_link();
    assert_eq!(w.tick(3_000, Some(1_000)), WatchdogAction::StreamHold);
    assert_eq!(
        w.tick(5_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Hold)
    );
    assert_eq!(
        w.engaged(),
        Some((FailsafeStep::Hold, Cause::PredictedBreach))
    );
    assert_eq!(w.tick(9_000, Some(1_000)), WatchdogAction::StreamHold);
    // The link's return is due one interval after its hold, breach or not.
    assert_eq!(
        w.tick(10_000, Some(1_000)),
        WatchdogAction::Step(FailsafeStep::Return)
    );
    assert_eq!(w.engaged(), Some((FailsafeStep::Return, Cause::LinkLost)));
}
