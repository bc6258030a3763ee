//! `evaluate` allocates nothing: a counting global allocator (stats_alloc, installed without
//! any unsafe code of ours) sees no allocation, reallocation or deallocation while the gate
//! decides on every kind of command — approvals, clamps, denials — and predicts a breach.
//!
//! The binary holds this one test, so no other test's thread allocates meanwhile.

mod gate_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::gate::{GateState, Verdict, evaluate, evaluate_failsafe, time_to_breach};
use gate_common::{NOW, context, set_waypoint, snapshot};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::hint::black_box;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn evaluate_allocates_nothing() {
    let ctx = context().unwrap();
    let snap = snapshot();
    let mut low = snap;
    low.battery.remaining_pct = 11.0;
    let mut fast = snap;
    fast.velocity = Enu::new(14.0, 0.0, -3.0);
    let commands = [
        set_waypoint(),
        // Clamped: above the band.
        Command::GoTo {
            target: Enu::new(100.0, 50.0, 500.0),
            speed_mps: None,
        },
        // Denied on several counts: through a zone, out of the fence, too fast.
        Command::GoTo {
            target: Enu::new(-2_000.0, 300.0, 30.0),
            speed_mps: Some(40.0),
        },
        Command::SetAltitude { altitude_m: 5.0 },
        Command::ReturnToHome,
        Command::Land { site: None },
        Command::Land {
            site: Some([-300.0, 0.0]),
        },
        Command::Takeoff { altitude_m: 30.0 },
        Command::SetSpeed { speed_mps: 8.0 },
        Command::SetYaw { yaw_deg: 45.0 },
        Command::Arm,
        Command::Disarm,
        Command::Hold,
        Command::GoTo {
            target: Enu::new(f64::NAN, 0.0, 30.0),
            speed_mps: None,
        },
    ];
    let states = [snap, low, fast];
    let mut outcomes = 0usize;
    let first = |c: &Command| evaluate(&ctx, &snap, c, NOW, &mut GateState::default());
    assert!(matches!(first(&commands[0]), Verdict::Approved(_)));
    assert!(matches!(first(&commands[1]), Verdict::Clamped { .. }));
    assert!(matches!(first(&commands[2]), Verdict::Denied(_)));

    // The counter counts: one Vec is one allocation.
    let probe = Region::new(GLOBAL);
    drop(black_box(vec![1u8; 16]));
    assert_eq!(probe.change().allocations, 1);

    // The counter is process-wide, and the test harness's own thread may allocate while this
    // one runs (it does under load, once, at start-up). `evaluate` is deterministic, so any
    // allocation of its own would show in every round: the least of five rounds must be zero.
    let rounds: Vec<_> = (0..5)
        .map(|_| {
            let region = Region::new(GLOBAL);
            for (i, s) in states.iter().enumerate() {
                for (j, c) in commands.iter().enumerate() {
                    let mut state = GateState::default();
                    let now = NOW + (i * 100 + j) as u64;
                    let v = black_box(evaluate(&ctx, s, c, now, &mut state));
                    outcomes += v.findings().len() + usize::from(v.approved().is_some());
                    black_box(evaluate_failsafe(s, c, now));
                }
                black_box(time_to_breach(&ctx, s, NOW));
            }
            region.change()
        })
        .collect();
    let least = rounds
        .iter()
        .min_by_key(|c| c.allocations + c.reallocations + c.deallocations)
        .copied();
    let least = least.unwrap();
    assert_eq!(least.allocations, 0, "{rounds:?}");
    assert_eq!(least.reallocations, 0, "{rounds:?}");
    assert_eq!(least.deallocations, 0, "{rounds:?}");
    assert!(outcomes > 0);
}
