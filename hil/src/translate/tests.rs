//! What each command looks like on the wire, per profile.

use super::*;
use crate::command::CommandForm;
use crate::command::Retry;
use crate::dialect::mav::{MavCmd, MavFrame};
use alpha3_core::snapshot::FlightMode;

const HOME: Geo = Geo {
    lat_deg: 47.397742,
    lon_deg: 8.545594,
    alt_amsl_m: 488.0,
};

fn ctx(goto: GotoMethod) -> Context {
    let mut snapshot = VehicleSnapshot::on_ground_at_home(HOME, 0);
    snapshot.position = Enu::new(0.0, 0.0, 10.0);
    snapshot.armed = true;
    Context {
        target: Target {
            system: 1,
            component: 1,
        },
        snapshot,
        frame: LocalFrame::new(HOME),
        home_local: Ned::new(1.0, -2.0, -0.5),
        goto,
        streaming: false,
        arm_ready_ms: 15_000,
        arm_interval_ms: 1000,
        arrive_timeout_ms: 10_000,
        cruise_speed_mps: None,
    }
}

fn px4(c: &Command) -> Procedure {
    translate(c, Profile::Px4, &ctx(GotoMethod::Reposition)).unwrap()
}

fn long(step: &Step) -> (MavCmd, [f32; 7], Retry) {
    match step {
        Step::Command(spec) => match spec.form {
            CommandForm::Long(p) => (spec.command, p, spec.retry),
            other => panic!("not COMMAND_LONG: {other:?}"),
        },
        other => panic!("not a command: {other:?}"),
    }
}

#[test]
fn px4_arm_retries_until_ready_and_confirms_armed() {
    let procedure = px4(&Command::Arm);
    let (cmd, p, retry) = long(&procedure.steps[0]);
    assert_eq!(cmd, MavCmd::MAV_CMD_COMPONENT_ARM_DISARM);
    assert_eq!(p[0], 1.0);
    assert_eq!(
        retry,
        Retry::UntilReady {
            within_ms: 15_000,
            interval_ms: 1000
        }
    );
    assert_eq!(procedure.confirm, Confirm::Armed(true));
}

#[test]
fn px4_takeoff_altitude_is_amsl_in_param7() {
    let procedure = px4(&Command::Takeoff { altitude_m: 12.5 });
    let (cmd, p, _) = long(&procedure.steps[0]);
    assert_eq!(cmd, MavCmd::MAV_CMD_NAV_TAKEOFF);
    assert_eq!(p[6], 500.5, "home 488 m + 12.5 m");
    assert!(p[3].is_nan() && p[4].is_nan() && p[5].is_nan());
    assert!(procedure.hold_if_lost);
}

#[test]
fn px4_go_to_is_a_global_reposition_with_amsl_z() {
    let target = Enu::new(100.0, 50.0, 20.0);
    let procedure = px4(&Command::GoTo {
        target,
        speed_mps: Some(5.0),
    });
    let Step::Command(spec) = &procedure.steps[0] else {
        panic!()
    };
    assert_eq!(spec.command, MavCmd::MAV_CMD_DO_REPOSITION);
    let CommandForm::Int {
        frame,
        params,
        x,
        y,
        z,
    } = spec.form
    else {
        panic!()
    };
    let g = LocalFrame::new(HOME).to_geo(target);
    assert_eq!(frame, MavFrame::MAV_FRAME_GLOBAL);
    assert_eq!(
        (x, y),
        (
            (g.lat_deg * 1e7).round() as i32,
            (g.lon_deg * 1e7).round() as i32
        )
    );
    assert_eq!(z, 508.0);
    assert_eq!(&params[..3], &[5.0, 1.0, 0.0], "speed, change mode, radius");
    assert!(params[3].is_nan(), "keep yaw");
    assert_eq!(procedure.steps.last(), Some(&Step::StopStream));
    assert!(matches!(procedure.confirm, Confirm::Approaching { target: t, .. } if t == target));
}

#[test]
fn px4_modes_and_landing() {
    // On the ground, Hold is the mode.
    let hold = px4(&Command::Hold);
    assert_eq!(hold.steps.len(), 2, "{hold:?}");
    let (cmd, p, _) = long(&hold.steps[0]);
    assert_eq!(
        (cmd, &p[..3]),
        (MavCmd::MAV_CMD_DO_SET_MODE, &[1.0, 4.0, 3.0][..])
    );
    assert_eq!(hold.steps[1], Step::StopStream);
    let rtl = px4(&Command::ReturnToHome);
    assert_eq!(long(&rtl.steps[0]).0, MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH);
    assert_eq!(rtl.confirm, Confirm::Mode(FlightMode::Return));
    assert!(!rtl.hold_if_lost, "never cancel a return with a hold");
    let land = px4(&Command::Land { site: None });
    let (cmd, p, _) = long(&land.steps[0]);
    assert_eq!(cmd, MavCmd::MAV_CMD_NAV_LAND);
    assert!(p[3..].iter().all(|v| v.is_nan()));
    let at = px4(&Command::Land {
        site: Some([20.0, 0.0]),
    });
    assert!(matches!(
        at.steps[1],
        Step::Await {
            until: Confirm::Arrived { .. },
            ..
        }
    ));
    assert_eq!(long(&at.steps[2]).0, MavCmd::MAV_CMD_NAV_LAND);
    let speed = px4(&Command::SetSpeed { speed_mps: 4.0 });
    assert_eq!(long(&speed.steps[0]).1[..3], [1.0, 4.0, -1.0]);
    assert_eq!(speed.confirm, Confirm::Ack);
}

#[test]
fn px4_offboard_streams_local_setpoints_from_the_ekf_origin_before_switching() {
    let procedure = translate(
        &Command::GoTo {
            target: Enu::new(10.0, 20.0, 15.0),
            speed_mps: None,
        },
        Profile::Px4,
        &ctx(GotoMethod::Offboard),
    )
    .unwrap();
    let Step::Stream {
        setpoint: MavMessage::SET_POSITION_TARGET_LOCAL_NED(sp),
        warmup_ms,
    } = &procedure.steps[0]
    else {
        panic!("{:?}", procedure.steps)
    };
    assert_eq!(*warmup_ms, 1000);
    // Home is at (1, -2, -0.5) in the autopilot's local frame.
    assert_eq!((sp.x, sp.y, sp.z), (21.0, 8.0, -15.5));
    assert_eq!(sp.type_mask.bits(), 0x0DF8);
    assert_eq!(sp.coordinate_frame, MavFrame::MAV_FRAME_LOCAL_NED);
    let (cmd, p, _) = long(&procedure.steps[1]);
    assert_eq!(
        (cmd, &p[..3]),
        (MavCmd::MAV_CMD_DO_SET_MODE, &[1.0, 6.0, 0.0][..])
    );
}

fn ardupilot(c: &Command, ctx: &Context) -> Procedure {
    translate(c, Profile::ArduPilot, ctx).unwrap()
}

#[test]
fn ardupilot_arms_and_takes_off_in_guided_with_a_relative_altitude() {
    let c = ctx(GotoMethod::Reposition);
    let arm = ardupilot(&Command::Arm, &c);
    assert_eq!(long(&arm.steps[0]).1[1], 4.0, "GUIDED before arming");
    assert_eq!(long(&arm.steps[2]).0, MavCmd::MAV_CMD_COMPONENT_ARM_DISARM);
    let takeoff = ardupilot(&Command::Takeoff { altitude_m: 12.5 }, &c);
    let (cmd, p, _) = long(&takeoff.steps[0]);
    assert_eq!(
        (cmd, p[1]),
        (MavCmd::MAV_CMD_DO_SET_MODE, 4.0),
        "GUIDED first"
    );
    assert!(matches!(
        takeoff.steps[1],
        Step::Await {
            until: Confirm::Mode(FlightMode::Offboard),
            ..
        }
    ));
    let (cmd, p, _) = long(&takeoff.steps[2]);
    assert_eq!(
        (cmd, p[6]),
        (MavCmd::MAV_CMD_NAV_TAKEOFF, 12.5),
        "above home"
    );
    // The frame's origin is not home: heights are still above ArduPilot's home.
    let mut high_home = c;
    high_home.snapshot.home.alt_amsl_m = HOME.alt_amsl_m + 2.0;
    let takeoff = ardupilot(&Command::Takeoff { altitude_m: 12.5 }, &high_home);
    assert_eq!(long(&takeoff.steps[2]).1[6], 10.5);
}

#[test]
fn ardupilot_goes_to_with_do_reposition_as_command_int_relative_to_home() {
    let mut c = ctx(GotoMethod::Reposition);
    c.cruise_speed_mps = Some(8.0);
    let target = Enu::new(100.0, 50.0, 20.0);
    let go = ardupilot(
        &Command::GoTo {
            target,
            speed_mps: None,
        },
        &c,
    );
    let Step::Command(spec) = &go.steps[0] else {
        panic!("{:?}", go.steps)
    };
    let CommandForm::Int {
        frame,
        params,
        x,
        y,
        z,
    } = spec.form
    else {
        panic!("DO_REPOSITION must be COMMAND_INT: {spec:?}")
    };
    let g = LocalFrame::new(HOME).to_geo(target);
    assert_eq!(spec.command, MavCmd::MAV_CMD_DO_REPOSITION);
    assert_eq!(frame, MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT);
    assert_eq!(params[1], 1.0, "change mode: GUIDED from any mode");
    assert_eq!(
        (x, y),
        (
            (g.lat_deg * 1e7).round() as i32,
            (g.lon_deg * 1e7).round() as i32
        )
    );
    assert_eq!(z, 20.0);
    // DO_REPOSITION's own speed is ignored: the gate's cruise speed follows.
    let (cmd, p, _) = long(&go.steps[1]);
    assert_eq!((cmd, p[1]), (MavCmd::MAV_CMD_DO_CHANGE_SPEED, 8.0));
    assert_eq!(go.confirm, Confirm::approaching(target, &c.snapshot));

    let mut guided = ctx(GotoMethod::Offboard);
    guided.snapshot.mode = FlightMode::Offboard;
    let go = ardupilot(
        &Command::GoTo {
            target,
            speed_mps: None,
        },
        &guided,
    );
    assert_eq!(go.steps.len(), 1, "already GUIDED, no speed to set");
    let Step::Send(MavMessage::SET_POSITION_TARGET_GLOBAL_INT(sp)) = &go.steps[0] else {
        panic!("{:?}", go.steps)
    };
    assert_eq!(sp.alt, 20.0);
    assert_eq!(sp.coordinate_frame, MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT);
    assert_eq!(sp.type_mask.bits(), 0x0DF8, "a position, never a velocity");
}

#[test]
fn ardupilot_holds_in_brake_returns_in_rtl_and_lands_in_land() {
    let c = ctx(GotoMethod::Reposition);
    let hold = ardupilot(&Command::Hold, &c);
    assert_eq!(
        long(&hold.steps[0]).1[1],
        17.0,
        "BRAKE: no RC sticks to follow"
    );
    assert_eq!(hold.confirm, Confirm::Mode(FlightMode::Hold));
    let rtl = ardupilot(&Command::ReturnToHome, &c);
    assert_eq!(long(&rtl.steps[0]).1[1], 6.0);
    let land = ardupilot(&Command::Land { site: None }, &c);
    assert_eq!(long(&land.steps[0]).1[1], 9.0, "LAND");
    let speed = ardupilot(&Command::SetSpeed { speed_mps: 5.0 }, &c);
    assert!(
        speed.steps.is_empty(),
        "outside GUIDED it waits for the next move"
    );
    let mut guided = c;
    guided.snapshot.mode = FlightMode::Offboard;
    let speed = ardupilot(&Command::SetSpeed { speed_mps: 5.0 }, &guided);
    assert_eq!(long(&speed.steps[0]).1[1], 5.0);
}

#[test]
fn non_finite_numbers_are_refused() {
    let e = translate(
        &Command::SetAltitude {
            altitude_m: f64::NAN,
        },
        Profile::Px4,
        &ctx(GotoMethod::Reposition),
    );
    assert!(matches!(
        e,
        Err(HilError::Translate {
            command: "set_altitude",
            ..
        })
    ));
}

/// Real PX4 SITL flew on at 4 m/s for 4 s after DO_SET_MODE(AUTO.LOITER) during a
/// DO_REPOSITION (the mode it was in already); PX4's pause (a reposition to nowhere) stops it.
#[test]
fn px4_holds_in_the_air_by_its_pause_then_the_mode() {
    let mut c = ctx(GotoMethod::Reposition);
    c.snapshot.landed = alpha3_core::snapshot::LandedState::InAir;
    c.snapshot.position = Enu::new(120.0, -40.0, 35.0);
    let hold = translate(&Command::Hold, Profile::Px4, &c).unwrap();
    assert_eq!(hold.confirm, Confirm::Mode(FlightMode::Hold));
    let Step::Command(pause) = &hold.steps[0] else {
        panic!("{hold:?}")
    };
    assert_eq!(pause.command, MavCmd::MAV_CMD_DO_REPOSITION);
    let CommandForm::Int {
        frame,
        params,
        x,
        y,
        z,
    } = pause.form
    else {
        panic!("not COMMAND_INT: {pause:?}")
    };
    assert_eq!(frame, MavFrame::MAV_FRAME_GLOBAL);
    assert_eq!(params[1], 1.0, "change mode");
    assert!(
        params[3].is_nan(),
        "no yaw: a finite yaw keeps the old target"
    );
    assert_eq!((x, y), (i32::MAX, i32::MAX), "no position");
    assert!(z.is_nan(), "no altitude: a finite one keeps the old target");
    let (cmd, p, _) = long(&hold.steps[1]);
    assert_eq!(
        (cmd, &p[..3]),
        (MavCmd::MAV_CMD_DO_SET_MODE, &[1.0, 4.0, 3.0][..])
    );
    assert_eq!(hold.steps[2], Step::StopStream);
}
