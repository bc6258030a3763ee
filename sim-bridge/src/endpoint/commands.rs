//! The vehicle's answer to COMMAND_LONG / COMMAND_INT, with PX4's quirks (`PX4-FACTS.md`):
//! arming denied until the autopilot is ready and while it is outside its geofence, take-off
//! altitude AMSL in param7, DO_REPOSITION with z AMSL whatever the frame (and ACKed, yet
//! ignored, outside the fence: GF_MAX_* or the FENCE plan, `geofence`),
//! OFFBOARD only with a live setpoint stream, an injected battery failure (and its clearing),
//! the texts PX4's commander says on Return and Land, the mission's commands
//! (`mission_flight`). [`CommandIn`] is a command as the vehicle
//! takes it, whether COMMAND_LONG or COMMAND_INT carried it.

use super::codec::mav::{self, MavCmd, MavFrame, MavResult, MavSeverity};
use super::modes::{MAIN_ACRO, MAIN_ALTCTL, MAIN_MANUAL, MAIN_POSCTL, MAIN_STABILIZED, Px4Mode};
use super::options::Autopilot;
use super::vehicle::Px4Vehicle;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo};

/// DO_SET_MODE param1 flag: the custom (PX4) mode is in param2/param3.
const CUSTOM_MODE_ENABLED: u32 = 1;
/// ARM_DISARM param2 that forces a disarm in the air.
const FORCE_DISARM: f32 = 21196.0;

/// A command, whichever message carried it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommandIn {
    pub command: MavCmd,
    /// param1..param7; for COMMAND_INT, param5/param6 are unused and param7 is z.
    pub p: [f32; 7],
    /// COMMAND_INT's frame and x, y (degrees × 1e7 in global frames).
    pub int: Option<(MavFrame, i32, i32)>,
}

impl CommandIn {
    pub fn long(c: &mav::COMMAND_LONG_DATA) -> Self {
        Self {
            command: c.command,
            p: [
                c.param1, c.param2, c.param3, c.param4, c.param5, c.param6, c.param7,
            ],
            int: None,
        }
    }

    pub fn int(c: &mav::COMMAND_INT_DATA) -> Self {
        Self {
            command: c.command,
            p: [c.param1, c.param2, c.param3, c.param4, 0.0, 0.0, c.z],
            int: Some((c.frame, c.x, c.y)),
        }
    }
}

impl Px4Vehicle {
    /// Runs a flight command; the result goes into the COMMAND_ACK. Link-level commands
    /// (message intervals and requests) are the link's business, not this.
    pub fn command(&mut self, c: &CommandIn) -> MavResult {
        use MavResult::*;
        if self.identity.autopilot == Autopilot::ArduCopter {
            return self.copter_command(c);
        }
        let p = c.p;
        match c.command {
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM if p[0] == 1.0 => self.arm_command(),
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM if p[0] == 0.0 => {
                if self.airborne() && p[1] != FORCE_DISARM {
                    self.say(
                        MavSeverity::MAV_SEVERITY_CRITICAL,
                        "Disarming denied: not landed",
                    );
                    return MAV_RESULT_DENIED;
                }
                if self.airborne() {
                    // The world cannot drop a flying vehicle's motors on command.
                    return MAV_RESULT_DENIED;
                }
                self.disarm("Disarmed by external command");
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM => MAV_RESULT_DENIED,
            MavCmd::MAV_CMD_NAV_TAKEOFF => {
                let Some(home) = self.home_geo() else {
                    return MAV_RESULT_DENIED;
                };
                // param7 is AMSL; NaN asks for MIS_TAKEOFF_ALT.
                let above = if p[6].is_finite() {
                    f64::from(p[6]) - home.alt_amsl_m
                } else {
                    self.params.number("MIS_TAKEOFF_ALT")
                };
                if above.is_nan() || above <= 0.0 {
                    return MAV_RESULT_DENIED;
                }
                let r = self.take_off(above);
                if r.is_ok() {
                    self.chose(Px4Mode::TAKEOFF);
                }
                self.result(r, "Takeoff denied")
            }
            MavCmd::MAV_CMD_DO_REPOSITION => self.reposition(c),
            MavCmd::MAV_CMD_DO_SET_MODE => {
                if (p[0].max(0.0) as u32) & CUSTOM_MODE_ENABLED == 0 {
                    return MAV_RESULT_DENIED;
                }
                match Px4Mode::from_params(p[1], p[2]) {
                    Some(mode) => self.set_mode(mode),
                    None => MAV_RESULT_DENIED,
                }
            }
            MavCmd::MAV_CMD_NAV_LAND => {
                let r = self.set_mode(Px4Mode::LAND);
                if r == MavResult::MAV_RESULT_ACCEPTED {
                    self.say(
                        MavSeverity::MAV_SEVERITY_INFO,
                        "Landing at current position",
                    );
                }
                r
            }
            MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH => {
                // Said by the commander before the return itself speaks.
                let mark = self.texts_said();
                let r = self.set_mode(Px4Mode::RTL);
                if r == MavResult::MAV_RESULT_ACCEPTED {
                    self.say_at(mark, MavSeverity::MAV_SEVERITY_INFO, "Returning to launch");
                }
                r
            }
            MavCmd::MAV_CMD_NAV_LOITER_UNLIM => self.set_mode(Px4Mode::HOLD),
            MavCmd::MAV_CMD_MISSION_START => self.px4_mission_start(c),
            MavCmd::MAV_CMD_DO_SET_MISSION_CURRENT => self.set_mission_current(c),
            // DO_PAUSE_CONTINUE is not PX4's: it pauses by Hold (CMD:1521-1525), UNSUPPORTED below.
            MavCmd::MAV_CMD_DO_CHANGE_SPEED => {
                if p[1] > 0.0 && p[1].is_finite() {
                    let _ = self.fly(Command::SetSpeed {
                        speed_mps: f64::from(p[1]),
                    });
                }
                MAV_RESULT_ACCEPTED
            }
            // FAILURE_UNIT_SYSTEM_BATTERY (100), FAILURE_TYPE_OFF (1).
            MavCmd::MAV_CMD_INJECT_FAILURE if p[0] == 100.0 && p[1] == 1.0 => {
                self.inject_battery_failure();
                MAV_RESULT_ACCEPTED
            }
            // FAILURE_TYPE_OK: the battery is back.
            MavCmd::MAV_CMD_INJECT_FAILURE if p[0] == 100.0 && p[1] == 0.0 => {
                self.clear_battery_failure();
                MAV_RESULT_ACCEPTED
            }
            _ => MAV_RESULT_UNSUPPORTED,
        }
    }

    fn result(&mut self, r: Result<(), String>, denied: &str) -> MavResult {
        match r {
            Ok(()) => MavResult::MAV_RESULT_ACCEPTED,
            Err(why) => {
                self.say(
                    MavSeverity::MAV_SEVERITY_CRITICAL,
                    format!("{denied}: {why}"),
                );
                MavResult::MAV_RESULT_DENIED
            }
        }
    }

    pub(super) fn arm_command(&mut self) -> MavResult {
        if self.time.now_us < self.time.boot.arm_ready_ms * 1000 || self.frames.home.is_none() {
            self.say(
                MavSeverity::MAV_SEVERITY_CRITICAL,
                "Arming denied: Resolve system health failures first",
            );
            // Not yet, rather than no: PX4's answer while its checks are still failing.
            return MavResult::MAV_RESULT_TEMPORARILY_REJECTED;
        }
        if !self.arming.armed && self.fence_enforced() {
            let breaches = self.fence_breaches(self.snap.position);
            if breaches != (false, false, false) {
                // PX4's geofence health check fails, and the commander will not arm.
                self.say_breaches(breaches);
                self.say(
                    MavSeverity::MAV_SEVERITY_CRITICAL,
                    "Arming denied: Resolve system health failures first",
                );
                return MavResult::MAV_RESULT_TEMPORARILY_REJECTED;
            }
        }
        let r = self.arm();
        self.result(r, "Arming denied")
    }

    pub(super) fn set_mode(&mut self, mode: Px4Mode) -> MavResult {
        // Manual-control modes need RC, which SITL has not got.
        let manual = matches!(
            mode.main,
            MAIN_MANUAL | MAIN_ACRO | MAIN_STABILIZED | MAIN_ALTCTL | MAIN_POSCTL
        );
        if !manual && self.enter(mode).is_ok() {
            self.chose(mode);
            return MavResult::MAV_RESULT_ACCEPTED;
        }
        // PX4's commander: not now, rather than no.
        self.say(
            MavSeverity::MAV_SEVERITY_CRITICAL,
            format!("Switching to {} is currently not available", mode.name()),
        );
        MavResult::MAV_RESULT_TEMPORARILY_REJECTED
    }

    /// The user chose `mode`: a failsafe still waiting to act is dropped, and the mode is the
    /// one PX4 returns to when it disarms, unless it forbids arming (Return, Land).
    fn chose(&mut self, mode: Px4Mode) {
        self.cancel_delayed_failsafe();
        if mode != Px4Mode::RTL && mode != Px4Mode::LAND {
            self.nav.mode_after_disarm = mode;
        }
    }

    /// DO_REPOSITION: z is AMSL whatever the frame; outside the fence it is ACKed and ignored.
    fn reposition(&mut self, c: &CommandIn) -> MavResult {
        let here = self.snap.position;
        let (lat, lon) = match c.int {
            Some((_, x, y)) if (x, y) != (0, 0) && x != i32::MAX && y != i32::MAX => {
                (f64::from(x) * 1e-7, f64::from(y) * 1e-7)
            }
            Some(_) => {
                let g = self.frames.local.to_geo(here);
                (g.lat_deg, g.lon_deg)
            }
            None if c.p[4].is_finite() && c.p[5].is_finite() => {
                (f64::from(c.p[4]), f64::from(c.p[5]))
            }
            None => {
                let g = self.frames.local.to_geo(here);
                (g.lat_deg, g.lon_deg)
            }
        };
        let alt_amsl = if c.p[6].is_finite() {
            f64::from(c.p[6])
        } else {
            self.frames.local.to_geo(here).alt_amsl_m
        };
        let target = self.frames.local.to_enu(Geo {
            lat_deg: lat,
            lon_deg: lon,
            alt_amsl_m: alt_amsl,
        });
        if !self.airborne() {
            return MavResult::MAV_RESULT_DENIED;
        }
        if self.outside_fence(target) {
            // ACKed, then ignored: only the text says so.
            self.say(
                MavSeverity::MAV_SEVERITY_CRITICAL,
                "Reposition is outside geofence",
            );
            return MavResult::MAV_RESULT_ACCEPTED;
        }
        let speed = (c.p[0] > 0.0 && c.p[0].is_finite()).then_some(f64::from(c.p[0]));
        if let Err(why) = self.fly(Command::GoTo {
            target,
            speed_mps: speed,
        }) {
            return self.result(Err(why), "Reposition denied");
        }
        if c.p[3].is_finite() {
            let _ = self.fly(Command::SetYaw {
                yaw_deg: f64::from(c.p[3]).to_degrees(),
            });
        }
        self.nav.mode = Px4Mode::HOLD;
        self.nav.rtl = None;
        self.chose(Px4Mode::HOLD);
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// PX4's navigator checks a reposition against every fence only when GF_ACTION is hold or
    /// worse (`geofence_allows_position`, NAV:1570-1581).
    fn outside_fence(&self, target: Enu) -> bool {
        let action = self.params.number("GF_ACTION");
        action != 0.0 && action != 1.0 && self.outside_any_fence(target)
    }
}
