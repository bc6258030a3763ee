//! ArduPilot Copter (4.7), as the real firmware takes commands from a companion:
//! - everything that moves happens in GUIDED (mode changes while disarmed are not checked, so
//!   arming goes through GUIDED too, and the take-off can follow the ARM ACK at once — ArduCopter
//!   disarms by itself 10 s after arming without one);
//! - NAV_TAKEOFF's param7 is metres above home (PX4's is AMSL);
//! - a go-to is DO_REPOSITION, which ArduCopter takes only as COMMAND_INT (as COMMAND_LONG it
//!   is UNSUPPORTED), with frame GLOBAL_RELATIVE_ALT and the change-mode flag (outside GUIDED it
//!   is DENIED without it); or, with [`GotoMethod::Offboard`], a position target in GUIDED.
//!   Position targets only: velocity targets stop after GUID_TIMEOUT (3 s);
//! - DO_REPOSITION ignores its speed field and GUIDED flies at WPNAV_SPEED (10 m/s) unless told
//!   otherwise, so every move is followed by DO_CHANGE_SPEED with the speed the gate planned;
//! - hold is BRAKE, not LOITER: LOITER follows the RC sticks, and a companion has none (SITL
//!   fakes a throttle at its minimum, which LOITER reads as "descend"); return and land are
//!   RTL and LAND;
//! - the handed-over mission is AUTO (and MISSION_START on the ground, once armed).

use super::{
    Context, GotoMethod, Procedure, Step, arrival_budget_ms, here_at, hold_if_lost, scaled,
};
use crate::command::CommandSpec;
use crate::confirm::{ARRIVED_M, Confirm};
use crate::dialect::{MavMessage, mav};
use crate::error::HilError;
use crate::profile::ardupilot as modes;
use crate::translate::px4::POSITION_ONLY;
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::FlightMode;
use mav::{MavCmd, MavFrame};

/// `MAV_DO_REPOSITION_FLAGS_CHANGE_MODE`: switch to GUIDED and fly there.
const CHANGE_MODE: f32 = 1.0;
/// How long a mode change may take to show in the heartbeat.
const MODE_WAIT_MS: u64 = 3000;

pub(super) fn translate(command: &Command, ctx: &Context) -> Result<Procedure, HilError> {
    let s = &ctx.snapshot;
    Ok(match *command {
        Command::Arm => guided_then(
            command,
            ctx,
            vec![Step::Command(
                arm(1.0).until_ready(ctx.arm_ready_ms, ctx.arm_interval_ms),
            )],
            Confirm::Armed(true),
        ),
        Command::Disarm => procedure(
            command,
            vec![Step::Command(arm(0.0))],
            Confirm::Armed(false),
        ),
        Command::Takeoff { altitude_m } => guided_then(
            command,
            ctx,
            vec![Step::Command(CommandSpec::long(
                MavCmd::MAV_CMD_NAV_TAKEOFF,
                [
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    above_home(ctx, altitude_m) as f32,
                ],
            ))],
            Confirm::TakingOff {
                from_z_m: s.position.z,
            },
        ),
        Command::GoTo { target, speed_mps } => {
            let steps = move_to(ctx, target, speed_mps.or(ctx.cruise_speed_mps));
            procedure(command, steps, Confirm::approaching(target, s))
        }
        Command::SetAltitude { altitude_m } => {
            let target = here_at(ctx, altitude_m);
            let steps = move_to(ctx, target, ctx.cruise_speed_mps);
            procedure(command, steps, Confirm::approaching(target, s))
        }
        Command::SetYaw { yaw_deg } => {
            let heading = yaw_deg.rem_euclid(360.0) as f32;
            let spec = CommandSpec::long(
                MavCmd::MAV_CMD_CONDITION_YAW,
                [heading, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            );
            guided_then(
                command,
                ctx,
                vec![Step::Command(spec)],
                Confirm::yaw(yaw_deg, s),
            )
        }
        // GUIDED takes a new speed at once; other modes refuse it (FAILED), and the session
        // sends it with the next move anyway.
        Command::SetSpeed { speed_mps } => {
            let steps = if s.mode == FlightMode::Offboard {
                vec![Step::Command(change_speed(speed_mps))]
            } else {
                Vec::new()
            };
            procedure(command, steps, Confirm::Ack)
        }
        Command::Hold => procedure(
            command,
            vec![Step::Command(set_mode(modes::BRAKE))],
            Confirm::Mode(FlightMode::Hold),
        ),
        // AUTO flies the uploaded mission from its current item; on the ground it waits for
        // the throttle, which MISSION_START gives (it does not arm: arming came first).
        Command::FlyMission => {
            let mut steps = vec![Step::Command(set_mode(modes::AUTO))];
            if !s.is_airborne() {
                steps.push(Step::Command(CommandSpec::long(
                    MavCmd::MAV_CMD_MISSION_START,
                    [0.0; 7],
                )));
            }
            procedure(command, steps, Confirm::Mode(FlightMode::Mission))
        }
        Command::ReturnToHome => procedure(
            command,
            vec![Step::Command(set_mode(modes::RTL))],
            Confirm::Mode(FlightMode::Return),
        ),
        Command::Land { site } => {
            let mut steps = Vec::new();
            if let Some([x, y]) = site {
                let over = Enu::new(x, y, s.position.z);
                steps.extend(move_to(ctx, over, ctx.cruise_speed_mps));
                steps.push(Step::Await {
                    until: Confirm::Arrived {
                        target: over,
                        radius_m: ARRIVED_M * 1.5,
                    },
                    within_ms: arrival_budget_ms(ctx, s.position.horizontal_distance(over)),
                });
            }
            steps.push(Step::Command(set_mode(modes::LAND)));
            procedure(command, steps, Confirm::Landing)
        }
    })
}

fn procedure(command: &Command, steps: Vec<Step>, confirm: Confirm) -> Procedure {
    Procedure {
        command: command.name(),
        steps,
        confirm,
        hold_if_lost: hold_if_lost(command),
    }
}

fn arm(param1: f32) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        [param1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
}

/// DO_CHANGE_SPEED, ground speed (ArduCopter treats airspeed the same).
fn change_speed(speed_mps: f64) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_DO_CHANGE_SPEED,
        [1.0, speed_mps as f32, -1.0, 0.0, 0.0, 0.0, 0.0],
    )
}

/// DO_SET_MODE with the custom-mode flag and a Copter mode number.
pub(crate) fn set_mode(mode: u32) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_DO_SET_MODE,
        [1.0, mode as f32, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
}

/// Height of the frame's `z` above the autopilot's home, which is what ArduPilot's relative
/// altitudes mean (the frame's origin need not be home).
fn above_home(ctx: &Context, z: f64) -> f64 {
    ctx.frame.home().alt_amsl_m + z - ctx.snapshot.home.alt_amsl_m
}

/// Switches to GUIDED first unless already there.
fn guided_first(ctx: &Context, steps: &mut Vec<Step>) {
    if ctx.snapshot.mode != FlightMode::Offboard {
        steps.push(Step::Command(set_mode(modes::GUIDED)));
        steps.push(Step::Await {
            until: Confirm::Mode(FlightMode::Offboard),
            within_ms: MODE_WAIT_MS,
        });
    }
}

/// GUIDED first, then `steps`.
fn guided_then(command: &Command, ctx: &Context, steps: Vec<Step>, confirm: Confirm) -> Procedure {
    let mut all = Vec::with_capacity(steps.len() + 2);
    guided_first(ctx, &mut all);
    all.extend(steps);
    procedure(command, all, confirm)
}

/// The steps that fly to `target` in GUIDED at `speed_mps` (when known).
fn move_to(ctx: &Context, target: Enu, speed_mps: Option<f64>) -> Vec<Step> {
    let mut steps = Vec::with_capacity(4);
    match ctx.goto {
        GotoMethod::Reposition => steps.push(Step::Command(reposition(ctx, target))),
        GotoMethod::Offboard => {
            guided_first(ctx, &mut steps);
            steps.push(Step::Send(position_target(ctx, target)));
        }
    }
    if let Some(v) = speed_mps {
        steps.push(Step::Command(change_speed(v)));
    }
    steps
}

/// DO_REPOSITION as COMMAND_INT, altitude above home, switching to GUIDED if needed.
fn reposition(ctx: &Context, target: Enu) -> CommandSpec {
    let (x, y) = scaled(ctx.frame.to_geo(target));
    CommandSpec::int(
        MavCmd::MAV_CMD_DO_REPOSITION,
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        [-1.0, CHANGE_MODE, 0.0, f32::NAN],
        x,
        y,
        above_home(ctx, target.z) as f32,
    )
}

/// A GUIDED position target, altitude above home.
fn position_target(ctx: &Context, target: Enu) -> MavMessage {
    let (lat_int, lon_int) = scaled(ctx.frame.to_geo(target));
    MavMessage::SET_POSITION_TARGET_GLOBAL_INT(mav::SET_POSITION_TARGET_GLOBAL_INT_DATA {
        time_boot_ms: 0,
        lat_int,
        lon_int,
        alt: above_home(ctx, target.z) as f32,
        target_system: ctx.target.system,
        target_component: ctx.target.component,
        coordinate_frame: MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        type_mask: mav::PositionTargetTypemask::from_bits_retain(POSITION_ONLY),
        ..Default::default()
    })
}
