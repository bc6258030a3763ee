//! [`translate`]: a [`Command`] becomes a [`Procedure`] of MAVLink steps for one autopilot profile.
//!
//! Pure and table-tested: the same command and context always give the same messages. Every
//! procedure names the telemetry that confirms it ([`Confirm`]), because an ACK is not proof.

mod ardupilot;
mod px4;

use crate::command::{CommandSpec, Target};
use crate::confirm::Confirm;
use crate::dialect::MavMessage;
use crate::error::HilError;
use crate::profile::Profile;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo, LocalFrame, Ned};
use alpha3_core::snapshot::VehicleSnapshot;

/// How a go-to is flown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GotoMethod {
    /// `DO_REPOSITION` (PX4 Hold mode, ArduPilot GUIDED flies there and holds).
    Reposition,
    /// Position setpoints from the companion (PX4 OFFBOARD, streamed; ArduPilot GUIDED).
    Offboard,
}

/// What translation needs to know about now.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    pub target: Target,
    pub snapshot: VehicleSnapshot,
    /// The local frame around the autopilot's home.
    pub frame: LocalFrame,
    /// Home in the autopilot's local (EKF-origin) NED frame, for LOCAL_NED setpoints.
    pub home_local: Ned,
    pub goto: GotoMethod,
    /// Whether our offboard setpoint stream is running now.
    pub streaming: bool,
    /// How long arming may be refused while the autopilot gets ready.
    pub arm_ready_ms: u64,
    /// Re-send interval while arming is refused.
    pub arm_interval_ms: u64,
    /// How long to wait for arrival before landing at a site.
    pub arrive_timeout_ms: u64,
    /// The speed a move without its own flies at, as the gate planned it (the last approved
    /// `set_speed`, else the vehicle's cruise speed), for autopilots whose own default
    /// differs (ArduPilot's WPNAV_SPEED); `None` leaves the autopilot's.
    pub cruise_speed_mps: Option<f64>,
}

/// One step of a procedure, run in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A command through the command protocol (ACK, retries, timeouts).
    Command(CommandSpec),
    /// A message with no acknowledgement in the protocol (e.g. a GUIDED position target).
    Send(MavMessage),
    /// Start or retarget the setpoint stream with this message, then stream for `warmup_ms`
    /// before the next step (PX4 needs setpoints before it accepts OFFBOARD).
    Stream {
        setpoint: MavMessage,
        warmup_ms: u64,
    },
    /// Stop the setpoint stream.
    StopStream,
    /// Wait until telemetry shows `until`; fail the procedure after `within_ms`.
    Await { until: Confirm, within_ms: u64 },
}

/// How one command is sent to an autopilot: its MAVLink steps in order, and the telemetry that
/// confirms it ([`crate::procedure::ProcedureRunner`] runs it).
#[derive(Debug, Clone, PartialEq)]
pub struct Procedure {
    /// The command's stable name ([`Command::name`]).
    pub command: &'static str,
    pub steps: Vec<Step>,
    /// Telemetry that shows the command took effect, checked after the last step.
    pub confirm: Confirm,
    /// If it times out or goes unconfirmed while airborne, a hold cancels whatever part of it
    /// the autopilot may still act on. Not for land and return: those are the safe actions.
    pub hold_if_lost: bool,
}

/// Translates `command` for `profile` in the situation `ctx`.
pub fn translate(
    command: &Command,
    profile: Profile,
    ctx: &Context,
) -> Result<Procedure, HilError> {
    check_finite(command)?;
    match profile {
        Profile::Px4 => px4::translate(command, ctx),
        Profile::ArduPilot => ardupilot::translate(command, ctx),
    }
}

fn check_finite(command: &Command) -> Result<(), HilError> {
    let numbers: Vec<f64> = match *command {
        Command::Takeoff { altitude_m } | Command::SetAltitude { altitude_m } => vec![altitude_m],
        Command::GoTo { target, speed_mps } => {
            vec![target.x, target.y, target.z, speed_mps.unwrap_or(0.0)]
        }
        Command::SetSpeed { speed_mps } => vec![speed_mps],
        Command::SetYaw { yaw_deg } => vec![yaw_deg],
        Command::Land { site: Some([x, y]) } => vec![x, y],
        _ => vec![],
    };
    if numbers.iter().all(|n| n.is_finite()) {
        Ok(())
    } else {
        Err(HilError::Translate {
            command: command.name(),
            reason: "a number is not finite".into(),
        })
    }
}

/// Latitude/longitude as MAVLink's degrees × 1e7.
pub(crate) fn scaled(g: Geo) -> (i32, i32) {
    // Rounded, not truncated: 1e-7° is ~1 cm, so the error stays under half of that.
    (
        (g.lat_deg * 1e7).round() as i32,
        (g.lon_deg * 1e7).round() as i32,
    )
}

/// The vehicle's current position with a new height above home.
pub(crate) fn here_at(ctx: &Context, altitude_m: f64) -> Enu {
    let p = ctx.snapshot.position;
    Enu::new(p.x, p.y, altitude_m)
}

/// A procedure of one command step.
pub(crate) fn single(command: &Command, spec: CommandSpec, confirm: Confirm) -> Procedure {
    Procedure {
        command: command.name(),
        steps: vec![Step::Command(spec)],
        confirm,
        hold_if_lost: hold_if_lost(command),
    }
}

/// Commands whose lost remainder a hold may cancel.
pub(crate) fn hold_if_lost(command: &Command) -> bool {
    matches!(
        command,
        Command::Takeoff { .. }
            | Command::GoTo { .. }
            | Command::SetAltitude { .. }
            | Command::SetYaw { .. }
            | Command::Land { site: Some(_) }
            | Command::FlyMission
    )
}

/// Time to fly `distance_m` at a cautious 2 m/s, plus slack, for arrival waits. Saturating: a
/// non-finite position in telemetry makes the distance infinite.
pub(crate) fn arrival_budget_ms(ctx: &Context, distance_m: f64) -> u64 {
    ctx.arrive_timeout_ms
        .saturating_add((distance_m / 2.0 * 1000.0) as u64)
}

#[cfg(test)]
mod tests;
