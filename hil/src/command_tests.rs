use super::*;

const US: Target = Target {
    system: 1,
    component: 191,
};
const AP: Target = Target {
    system: 1,
    component: 1,
};
const MS: u64 = 1000;

fn timing() -> CommandTiming {
    CommandTiming {
        ack_timeout_ms: 500,
        retries: 2,
        in_progress_timeout_ms: 5000,
    }
}

fn arm() -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
}

fn ack(command: MavCmd, result: MavResult) -> mav::COMMAND_ACK_DATA {
    mav::COMMAND_ACK_DATA {
        command,
        result,
        ..Default::default()
    }
}

fn confirmation(m: &MavMessage) -> u8 {
    match m {
        MavMessage::COMMAND_LONG(c) => c.confirmation,
        other => panic!("not a COMMAND_LONG: {other:?}"),
    }
}

#[test]
fn an_ack_finishes_the_command() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm(), AP);
    let sent = m.poll_transmit(0).unwrap();
    assert_eq!(confirmation(&sent), 0);
    assert!(m.poll_transmit(0).is_none(), "sent once until the timeout");
    let a = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_ACCEPTED,
    );
    assert_eq!(
        m.on_ack(100 * MS, 1, &a, US),
        AckMatch::Outcome(CommandOutcome::Accepted {
            result: MavResult::MAV_RESULT_ACCEPTED
        })
    );
    assert!(!m.is_busy());
}

#[test]
fn silence_is_retried_then_times_out_and_never_fires_late() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm(), AP);
    let mut confirmations = vec![];
    let mut now = 0;
    let outcome = loop {
        if let Some(msg) = m.poll_transmit(now) {
            confirmations.push(confirmation(&msg));
        }
        if let Some(o) = m.handle_timeout(now) {
            break o;
        }
        now = m.poll_timeout().unwrap();
    };
    assert_eq!(confirmations, [0, 1, 2], "first send and two retries");
    assert_eq!(
        outcome,
        CommandOutcome::TimedOut {
            sends: 3,
            waited_ms: 1500
        }
    );
    // Nothing is ever sent for it again, however long we poll.
    for t in (now..now + 120_000 * MS).step_by(100_000) {
        assert!(m.poll_transmit(t).is_none());
        assert!(m.handle_timeout(t).is_none());
    }
    assert_eq!(m.poll_timeout(), None);
}

#[test]
fn a_late_ack_is_not_taken_for_the_next_commands_answer() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm(), AP);
    m.poll_transmit(0);
    // Replaced before any answer: the first arm is abandoned.
    m.start(200 * MS, arm(), AP);
    let a = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_ACCEPTED,
    );
    // The new arm has not been sent yet: the ACK can only be the old command's.
    assert_eq!(
        m.on_ack(210 * MS, 1, &a, US),
        AckMatch::Late {
            command: MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
            result: MavResult::MAV_RESULT_ACCEPTED
        }
    );
    assert!(m.is_busy());
    m.poll_transmit(220 * MS).unwrap();
    assert!(matches!(
        m.on_ack(300 * MS, 1, &a, US),
        AckMatch::Outcome(_)
    ));
}

#[test]
fn in_progress_waits_without_resending() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm(), AP);
    m.poll_transmit(0);
    let p = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_IN_PROGRESS,
    );
    assert_eq!(m.on_ack(10 * MS, 1, &p, US), AckMatch::Pending);
    assert!(m.handle_timeout(600 * MS).is_none());
    assert!(
        m.poll_transmit(600 * MS).is_none(),
        "no re-send while in progress"
    );
    assert!(matches!(
        m.handle_timeout(5010 * MS),
        Some(CommandOutcome::TimedOut { sends: 1, .. })
    ));
}

#[test]
fn arming_is_retried_at_the_interval_until_ready() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm().until_ready(10_000, 1000), AP);
    let denied = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_DENIED,
    );
    let accepted = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_ACCEPTED,
    );
    let mut now = 0;
    for attempt in 0..4u8 {
        let msg = m.poll_transmit(now).unwrap();
        assert_eq!(confirmation(&msg), attempt);
        assert_eq!(m.on_ack(now + 20 * MS, 1, &denied, US), AckMatch::Pending);
        assert!(
            m.poll_transmit(now + 500 * MS).is_none(),
            "waits the interval"
        );
        now = m.poll_timeout().unwrap();
        assert_eq!(
            now,
            (u64::from(attempt) + 1) * 1020 * MS,
            "an interval after each refusal"
        );
    }
    m.poll_transmit(now).unwrap();
    assert!(matches!(
        m.on_ack(now + 20 * MS, 1, &accepted, US),
        AckMatch::Outcome(CommandOutcome::Accepted { .. })
    ));
}

#[test]
fn a_refusal_after_the_ready_window_is_final() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm().until_ready(1500, 1000), AP);
    let denied = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_DENIED,
    );
    m.poll_transmit(0);
    assert_eq!(m.on_ack(10 * MS, 1, &denied, US), AckMatch::Pending);
    m.poll_transmit(1010 * MS).unwrap();
    assert_eq!(
        m.on_ack(1020 * MS, 1, &denied, US),
        AckMatch::Outcome(CommandOutcome::Refused {
            result: MavResult::MAV_RESULT_DENIED
        })
    );
}

#[test]
fn acks_for_someone_else_or_another_command_are_unrelated() {
    let mut m = CommandMachine::new(timing());
    m.start(0, arm(), AP);
    m.poll_transmit(0);
    let mut other = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_ACCEPTED,
    );
    other.target_system = 255;
    assert_eq!(m.on_ack(1, 1, &other, US), AckMatch::Unrelated);
    let wrong = ack(MavCmd::MAV_CMD_NAV_LAND, MavResult::MAV_RESULT_ACCEPTED);
    assert_eq!(m.on_ack(1, 1, &wrong, US), AckMatch::Unrelated);
    let right = ack(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        MavResult::MAV_RESULT_ACCEPTED,
    );
    assert_eq!(
        m.on_ack(1, 7, &right, US),
        AckMatch::Unrelated,
        "from system 7"
    );
    assert!(m.is_busy());
}

#[test]
fn command_int_carries_scaled_coordinates() {
    let spec = CommandSpec::int(
        MavCmd::MAV_CMD_DO_REPOSITION,
        MavFrame::MAV_FRAME_GLOBAL,
        [-1.0, 1.0, 0.0, f32::NAN],
        473_977_420,
        85_455_940,
        498.0,
    );
    match spec.to_message(AP, 0) {
        MavMessage::COMMAND_INT(c) => {
            assert_eq!((c.x, c.y, c.z), (473_977_420, 85_455_940, 498.0));
            assert_eq!(c.frame, MavFrame::MAV_FRAME_GLOBAL);
            assert_eq!((c.target_system, c.target_component), (1, 1));
            assert!(c.param4.is_nan());
        }
        other => panic!("{other:?}"),
    }
}
