//! ArduPilot Copter: companion control happens in GUIDED; positions go as
//! SET_POSITION_TARGET_GLOBAL_INT with altitude relative to home; take-off altitude is relative
//! too; hold, return and land are mode changes.

use super::{Context, Plan, Step, arrival_budget_ms, here_at, hold_if_lost, scaled, single};
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

pub(super) fn translate(command: &Command, ctx: &Context) -> Result<Plan, HilError> {
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
        Command::Disarm => single(command, arm(0.0), Confirm::Armed(false)),
        Command::Takeoff { altitude_m } => guided_then(
            command,
            ctx,
            vec![Step::Command(CommandSpec::long(
                MavCmd::MAV_CMD_NAV_TAKEOFF,
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, altitude_m as f32],
            ))],
            Confirm::TakingOff {
                from_z_m: s.position.z,
            },
        ),
        Command::GoTo { target, speed_mps } => {
            let mut steps = Vec::new();
            if let Some(v) = speed_mps {
                steps.push(Step::Command(change_speed(v)));
            }
            steps.push(Step::Send(position_target(ctx, target)));
            guided_then(command, ctx, steps, Confirm::approaching(target, s))
        }
        Command::SetAltitude { altitude_m } => {
            let target = here_at(ctx, altitude_m);
            let steps = vec![Step::Send(position_target(ctx, target))];
            guided_then(command, ctx, steps, Confirm::approaching(target, s))
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
        Command::SetSpeed { speed_mps } => single(command, change_speed(speed_mps), Confirm::Ack),
        Command::Hold => single(
            command,
            set_mode(modes::LOITER),
            Confirm::Mode(FlightMode::Hold),
        ),
        Command::ReturnToHome => single(
            command,
            set_mode(modes::RTL),
            Confirm::Mode(FlightMode::Return),
        ),
        Command::Land { site } => {
            let mut steps = Vec::new();
            if let Some([x, y]) = site {
                let over = Enu::new(x, y, s.position.z);
                if s.mode != FlightMode::Offboard {
                    steps.push(Step::Command(set_mode(modes::GUIDED)));
                }
                steps.push(Step::Send(position_target(ctx, over)));
                steps.push(Step::Await {
                    until: Confirm::Arrived {
                        target: over,
                        radius_m: ARRIVED_M * 1.5,
                    },
                    within_ms: arrival_budget_ms(ctx, s.position.horizontal_distance(over)),
                });
            }
            steps.push(Step::Command(set_mode(modes::LAND)));
            Plan {
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

/// Switches to GUIDED first unless already there, then runs `steps`.
fn guided_then(command: &Command, ctx: &Context, steps: Vec<Step>, confirm: Confirm) -> Plan {
    let mut all = Vec::with_capacity(steps.len() + 2);
    if ctx.snapshot.mode != FlightMode::Offboard {
        all.push(Step::Command(set_mode(modes::GUIDED)));
        all.push(Step::Await {
            until: Confirm::Mode(FlightMode::Offboard),
            within_ms: 3000,
        });
    }
    all.extend(steps);
    Plan {
        command: command.name(),
        steps: all,
        confirm,
        hold_if_lost: hold_if_lost(command),
    }
}

/// A GUIDED position target, altitude relative to home.
fn position_target(ctx: &Context, target: Enu) -> MavMessage {
    let (lat_int, lon_int) = scaled(ctx.frame.to_geo(target));
    MavMessage::SET_POSITION_TARGET_GLOBAL_INT(mav::SET_POSITION_TARGET_GLOBAL_INT_DATA {
        time_boot_ms: 0,
        lat_int,
        lon_int,
        alt: target.z as f32,
        target_system: ctx.target.system,
        target_component: ctx.target.component,
        coordinate_frame: MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        type_mask: mav::PositionTargetTypemask::from_bits_retain(POSITION_ONLY),
        ..Default::default()
    })
}
