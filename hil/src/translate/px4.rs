//! PX4: arm with retry until ready, take-off to an AMSL altitude, DO_REPOSITION (COMMAND_INT,
//! AMSL z) or offboard setpoints, hold/return/land, mode changes as DO_SET_MODE(1, main, sub);
//! the handed-over mission by MISSION_START on the ground and Mission mode in the air.

use super::{
    Context, GotoMethod, Procedure, Step, arrival_budget_ms, here_at, hold_if_lost, scaled, single,
};
use crate::command::CommandSpec;
use crate::confirm::{ARRIVED_M, Confirm};
use crate::dialect::{MavMessage, mav};
use crate::error::HilError;
use crate::profile::px4 as modes;
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::snapshot::FlightMode;
use mav::{MavCmd, MavFrame};

const NAN: f32 = f32::NAN;
/// `MAV_DO_REPOSITION_FLAGS_CHANGE_MODE`: switch to Hold and fly there.
const CHANGE_MODE: f32 = 1.0;
/// Position only: velocities, accelerations, yaw and yaw rate ignored.
pub(crate) const POSITION_ONLY: u16 = 0x0DF8;
/// PX4 wants about a second of setpoints before it accepts OFFBOARD.
const OFFBOARD_WARMUP_MS: u64 = 1000;

pub(super) fn translate(command: &Command, ctx: &Context) -> Result<Procedure, HilError> {
    let s = &ctx.snapshot;
    Ok(match *command {
        Command::Arm => single(
            command,
            arm(1.0).until_ready(ctx.arm_ready_ms, ctx.arm_interval_ms),
            Confirm::Armed(true),
        ),
        Command::Disarm => single(command, arm(0.0), Confirm::Armed(false)),
        Command::Takeoff { altitude_m } => {
            let amsl = ctx.frame.home().alt_amsl_m + altitude_m;
            let p = [0.0, 0.0, 0.0, NAN, NAN, NAN, amsl as f32];
            single(
                command,
                CommandSpec::long(MavCmd::MAV_CMD_NAV_TAKEOFF, p),
                Confirm::TakingOff {
                    from_z_m: s.position.z,
                },
            )
        }
        Command::GoTo { target, speed_mps } => go_to(command, ctx, target, speed_mps, NAN),
        Command::SetAltitude { altitude_m } => {
            go_to(command, ctx, here_at(ctx, altitude_m), None, NAN)
        }
        Command::SetYaw { yaw_deg } => {
            let mut procedure = go_to(command, ctx, s.position, None, yaw_deg.to_radians() as f32);
            procedure.confirm = Confirm::yaw(yaw_deg, s);
            procedure
        }
        Command::SetSpeed { speed_mps } => single(
            command,
            CommandSpec::long(
                MavCmd::MAV_CMD_DO_CHANGE_SPEED,
                [1.0, speed_mps as f32, -1.0, 0.0, 0.0, 0.0, 0.0],
            ),
            Confirm::Ack,
        ),
        // In the air, PX4's pause (a DO_REPOSITION with no position, altitude or yaw: it
        // stops at its own braking point), then Hold. PX4 flies a DO_REPOSITION in Hold
        // (AUTO.LOITER) already, and a DO_SET_MODE to the mode it is in changes nothing: the
        // vehicle flew on to the reposition's target (real PX4 SITL: 3.8 → 4.1 m/s over 4 s
        // after such a "hold"). A reposition to where it was stopped it, then flew it back
        // 15 m to that point; the pause does not. The mode change after it leaves Offboard
        // or Mission, and holds where PX4 refused the pause.
        Command::Hold if s.is_airborne() => {
            let mut procedure = mode_change(
                command,
                modes::MAIN_AUTO,
                modes::SUB_LOITER,
                FlightMode::Hold,
            );
            procedure.steps.insert(0, Step::Command(pause()));
            procedure
        }
        Command::Hold => mode_change(
            command,
            modes::MAIN_AUTO,
            modes::SUB_LOITER,
            FlightMode::Hold,
        ),
        // On the ground MISSION_START (from the first item; PX4 takes off by the mission's
        // take-off item); in the air Mission mode, which goes on from the current item.
        Command::FlyMission if !s.is_airborne() => stop_stream_after(single(
            command,
            CommandSpec::long(
                MavCmd::MAV_CMD_MISSION_START,
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ),
            Confirm::Mode(FlightMode::Mission),
        )),
        Command::FlyMission => mode_change(
            command,
            modes::MAIN_AUTO,
            modes::SUB_MISSION,
            FlightMode::Mission,
        ),
        Command::ReturnToHome => stop_stream_after(single(
            command,
            CommandSpec::long(MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH, [0.0; 7]),
            Confirm::Mode(FlightMode::Return),
        )),
        Command::Land { site } => {
            let land = CommandSpec::long(
                MavCmd::MAV_CMD_NAV_LAND,
                [0.0, 0.0, 0.0, NAN, NAN, NAN, NAN],
            );
            let mut steps = Vec::new();
            if let Some([x, y]) = site {
                let over = Enu::new(x, y, s.position.z);
                steps.push(Step::Command(reposition(ctx, over, None, NAN)));
                steps.push(Step::Await {
                    until: Confirm::Arrived {
                        target: over,
                        radius_m: ARRIVED_M * 1.5,
                    },
                    within_ms: arrival_budget_ms(ctx, s.position.horizontal_distance(over)),
                });
            }
            steps.push(Step::Command(land));
            steps.push(Step::StopStream);
            Procedure {
                command: command.name(),
                steps,
                confirm: Confirm::Landing,
                hold_if_lost: hold_if_lost(command),
            }
        }
    })
}

fn arm(param1: f32) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        [param1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    )
}

/// DO_SET_MODE with the custom-mode flag, PX4 main and sub mode.
pub(crate) fn set_mode(main: u8, sub: u8) -> CommandSpec {
    CommandSpec::long(
        MavCmd::MAV_CMD_DO_SET_MODE,
        [1.0, f32::from(main), f32::from(sub), 0.0, 0.0, 0.0, 0.0],
    )
}

fn mode_change(command: &Command, main: u8, sub: u8, mode: FlightMode) -> Procedure {
    stop_stream_after(single(command, set_mode(main, sub), Confirm::Mode(mode)))
}

/// Ends the offboard stream once the autopilot has left OFFBOARD (never before: PX4 would
/// take the stream's end for a lost companion).
fn stop_stream_after(mut procedure: Procedure) -> Procedure {
    procedure.steps.push(Step::StopStream);
    procedure
}

/// DO_REPOSITION with x and y INT32_MAX (no position: PX4's MAVLink receiver makes them NaN)
/// and NaN altitude and yaw: PX4's navigator then pauses a multicopter at its braking stop
/// point at the current altitude ("All three set to NaN - pause vehicle", navigator_main.cpp).
fn pause() -> CommandSpec {
    CommandSpec::int(
        MavCmd::MAV_CMD_DO_REPOSITION,
        MavFrame::MAV_FRAME_GLOBAL,
        [-1.0, CHANGE_MODE, 0.0, NAN],
        i32::MAX,
        i32::MAX,
        NAN,
    )
}

fn reposition(ctx: &Context, target: Enu, speed_mps: Option<f64>, yaw_rad: f32) -> CommandSpec {
    let geo = ctx.frame.to_geo(target);
    let (lat, lon) = scaled(geo);
    let speed = speed_mps.map_or(-1.0, |v| v as f32);
    CommandSpec::int(
        MavCmd::MAV_CMD_DO_REPOSITION,
        MavFrame::MAV_FRAME_GLOBAL,
        [speed, CHANGE_MODE, 0.0, yaw_rad],
        lat,
        lon,
        // PX4 reads z as AMSL whatever the frame says.
        geo.alt_amsl_m as f32,
    )
}

fn go_to(
    command: &Command,
    ctx: &Context,
    target: Enu,
    speed_mps: Option<f64>,
    yaw_rad: f32,
) -> Procedure {
    let confirm = Confirm::approaching(target, &ctx.snapshot);
    match ctx.goto {
        GotoMethod::Reposition => stop_stream_after(single(
            command,
            reposition(ctx, target, speed_mps, yaw_rad),
            confirm,
        )),
        GotoMethod::Offboard => {
            let setpoint = local_setpoint(ctx, target);
            let mut steps = Vec::new();
            if let Some(v) = speed_mps {
                steps.push(Step::Command(CommandSpec::long(
                    MavCmd::MAV_CMD_DO_CHANGE_SPEED,
                    [1.0, v as f32, -1.0, 0.0, 0.0, 0.0, 0.0],
                )));
            }
            let in_offboard = ctx.streaming && ctx.snapshot.mode == FlightMode::Offboard;
            steps.push(Step::Stream {
                setpoint,
                warmup_ms: if in_offboard { 0 } else { OFFBOARD_WARMUP_MS },
            });
            if !in_offboard {
                steps.push(Step::Command(set_mode(modes::MAIN_OFFBOARD, 0)));
            }
            Procedure {
                command: command.name(),
                steps,
                confirm,
                hold_if_lost: hold_if_lost(command),
            }
        }
    }
}

/// SET_POSITION_TARGET_LOCAL_NED for a point relative to home (PX4's local origin is the EKF
/// origin, not home: add home's local position).
pub(crate) fn local_setpoint(ctx: &Context, target: Enu) -> MavMessage {
    // Positions are relative to the frame's origin: home, or a fixed mission origin.
    let o = ctx.frame.to_enu(ctx.snapshot.home);
    let n = Enu::new(target.x - o.x, target.y - o.y, target.z - o.z).to_ned();
    let h = ctx.home_local;
    MavMessage::SET_POSITION_TARGET_LOCAL_NED(mav::SET_POSITION_TARGET_LOCAL_NED_DATA {
        time_boot_ms: 0,
        x: (h.north + n.north) as f32,
        y: (h.east + n.east) as f32,
        z: (h.down + n.down) as f32,
        target_system: ctx.target.system,
        target_component: ctx.target.component,
        coordinate_frame: MavFrame::MAV_FRAME_LOCAL_NED,
        type_mask: mav::PositionTargetTypemask::from_bits_retain(POSITION_ONLY),
        ..Default::default()
    })
}
