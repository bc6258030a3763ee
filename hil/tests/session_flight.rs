//! The session against the fake autopilot in process, on a virtual clock: deterministic
//! flights, lost frames, late answers.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::{FlightMode, LandedState};
use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::procedure::ProcedureOutcome;
use alpha3_hil::session::Event;
use support::fake_px4::FakeConfig;
use support::loopback::Loopback;
use support::test_config;

fn ready() -> Loopback {
    let mut l = Loopback::new(test_config(), FakeConfig::default());
    assert!(l.run_until(5000, |l| {
        let s = l.session.telemetry().seen();
        s.home && s.position && s.heartbeat
    }));
    l
}

fn fly(l: &mut Loopback) -> Vec<(String, ProcedureOutcome)> {
    let mut log = vec![];
    for c in [
        Command::Arm,
        Command::Takeoff { altitude_m: 10.0 },
        Command::GoTo {
            target: Enu::new(40.0, -30.0, 20.0),
            speed_mps: None,
        },
        Command::Land { site: None },
    ] {
        let r = l.command(&c);
        log.push((r.command.to_string(), r.outcome.clone()));
        match c {
            Command::Takeoff { .. } => {
                assert!(
                    l.run_until(10_000, |l| (l.session.snapshot().position.z - 10.0).abs()
                        < 0.1)
                );
            }
            Command::GoTo { target, .. } => {
                assert!(
                    l.run_until(20_000, |l| l.session.snapshot().position.distance(target)
                        < 0.1)
                );
            }
            _ => {}
        }
    }
    assert!(l.run_until(20_000, |l| !l.session.snapshot().armed));
    log
}

#[test]
fn a_whole_flight_on_a_virtual_clock() {
    let mut l = ready();
    let log = fly(&mut l);
    assert!(
        log.iter().all(|(_, o)| *o == ProcedureOutcome::Confirmed),
        "{log:?}"
    );
    let s = l.session.snapshot();
    assert_eq!(s.landed, LandedState::OnGround);
    assert_eq!(s.mode, FlightMode::Land);
}

#[test]
fn arming_is_retried_until_the_autopilot_is_ready() {
    let mut l = Loopback::new(test_config(), FakeConfig::default());
    assert!(l.run_until(1000, |l| l.session.profile().is_some()));
    let r = l.command(&Command::Arm);
    assert_eq!(r.outcome, ProcedureOutcome::Confirmed);
    assert!(l.now_us >= 1_500_000, "not before the fake is ready");
    let arms = l
        .fake
        .received
        .iter()
        .filter(|(_, m)| {
            matches!(m, MavMessage::COMMAND_LONG(c) if c.command == mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM)
        })
        .count();
    assert!(arms >= 3, "{arms} arm commands");
    assert!(
        r.warnings.iter().any(|w| w.contains("Arming denied")),
        "PX4's reasons come along: {r:?}"
    );
}

#[test]
fn the_same_inputs_give_the_same_flight() {
    let a = {
        let mut l = ready();
        fly(&mut l);
        (l.events.clone(), l.session.snapshot())
    };
    let b = {
        let mut l = ready();
        fly(&mut l);
        (l.events.clone(), l.session.snapshot())
    };
    assert_eq!(a, b);
}

#[test]
fn commands_get_through_when_a_third_of_our_frames_are_lost() {
    let mut l = ready();
    l.drop_up_every = 3;
    let log = fly(&mut l);
    assert!(
        log.iter().all(|(_, o)| *o == ProcedureOutcome::Confirmed),
        "{log:?}"
    );
}

#[test]
fn an_answer_slower_than_the_timeout_is_reported_late_not_taken() {
    let mut l = ready();
    l.run_until(2000, |_| false); // past the fake's arming readiness
    // ACKs take 1.2 s: longer than 3 sends × 300 ms.
    l.delay_down_us = 1_200_000;
    let r = l.command(&Command::Arm);
    assert!(
        matches!(r.outcome, ProcedureOutcome::TimedOut { .. }),
        "{r:?}"
    );
    l.run_until(2000, |_| false);
    let late = l
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::LateAck {
                    command: mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
                    ..
                }
            )
        })
        .count();
    assert_eq!(late, 1, "one late ACK reported: {:?}", l.events);
    // The autopilot did arm: the runtime sees it in telemetry, not in a receipt.
    assert!(l.session.snapshot().armed);
}
