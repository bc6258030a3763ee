//! The endpoint as ArduCopter 4.7 SITL (the ArduPilot SITL source bundle in the shared folder,
//! `ardupilot/README.md` there), where that matters to a companion: it boots in STABILIZE on
//! the ground and needs ~40 s before it may arm (FAILED with `Arm: …` / `PreArm: …` texts
//! until then, SYS_STATUS's pre-arm bit and
//! EKF_STATUS_REPORT tell when); GUIDED for everything the companion flies; NAV_TAKEOFF's
//! param7 above home, only armed, in GUIDED, on the ground (as COMMAND_INT only in frame
//! GLOBAL_RELATIVE_ALT); DO_REPOSITION only as COMMAND_INT (outside GUIDED only with the
//! change-mode flag); position targets only in GUIDED; DO_CHANGE_SPEED only in GUIDED, AUTO and
//! RTL; BRAKE, LOITER, RTL (climb to `RTL_ALT` cm), LAND and AUTO (`mission_flight`); auto-disarm `DISARM_DELAY` s after
//! an idle arming and ~2 s after landing; its mode numbers and ACK results.
//!
//! LOITER and POSHOLD follow the RC sticks, and SITL's faked throttle sits at its minimum: the
//! real SITL descends at ~2.5 m/s until it hits the ground; here the world lands in place.
//! Approximations, said here:
//! velocity and attitude targets are ignored (ArduPilot would fly them for GUID_TIMEOUT);
//! of the fence (off by default) only DO_REPOSITION's refusal of a destination outside an
//! enabled FENCE plan is simulated, not its breach actions; nor is the GCS failsafe.
//!
//! Its mode numbers are `copter_mode` (shared with `hil`); what it keeps on top of the PX4
//! state (`CopterState`) and the texts it says instead of PX4's are in `state`.

use super::codec::mav::{
    self, MavCmd, MavFrame, MavModeFlag, MavParamType, MavResult, MavSeverity,
};
use super::commands::CommandIn;
use super::copter_mode as mode;
use super::modes::Px4Mode;
use super::params::{Params, Value};
use super::vehicle::Px4Vehicle;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo};

/// ArduCopter repeats a failing pre-arm check this often while disarmed, µs.
const PREARM_TEXT_PERIOD_US: u64 = 30_000_000;
/// `MAV_DO_REPOSITION_FLAGS_CHANGE_MODE`.
const CHANGE_MODE: i32 = 1;
/// ARM_DISARM param2 that forces a disarm.
const FORCE: f32 = 21196.0;
/// ArduCopter disarms this long after landing, s.
const LANDED_DISARM_S: f64 = 2.0;
/// Type-mask bits meaning "ignore x, y, z" (POSITION_TARGET_TYPEMASK).
const IGNORE_POSITION: u16 = 0b111;

use MavParamType::{
    MAV_PARAM_TYPE_INT8 as I8, MAV_PARAM_TYPE_INT16 as I16, MAV_PARAM_TYPE_INT32 as I32,
    MAV_PARAM_TYPE_REAL32 as F32,
};

/// ArduCopter 4.7 SITL defaults (copter.parm) for what the endpoint acts on or `hil` reads
/// (preflight's failsafes, the simulator check's `SIM_SPEEDUP` and `FORMAT_VERSION`).
/// `MAV_SYSID` and `MAV_GCS_SYSID` are 4.7's names; `SYSID_THISMAV` and `SYSID_MYGCS` do not
/// exist any more.
const PARAMS: &[(&str, Value, MavParamType)] = &[
    ("BATT_FS_CRT_ACT", Value::Int(0), I8),
    ("BATT_FS_LOW_ACT", Value::Int(0), I8),
    ("DISARM_DELAY", Value::Int(10), I16),
    ("FENCE_ACTION", Value::Int(1), I8),
    ("FENCE_ALT_MAX", Value::Real(100.0), F32),
    ("FENCE_ENABLE", Value::Int(0), I8),
    ("FENCE_RADIUS", Value::Real(150.0), F32),
    ("FENCE_TYPE", Value::Int(7), I8),
    ("FS_EKF_ACTION", Value::Int(1), I8),
    ("FS_GCS_ENABLE", Value::Int(0), I8),
    ("FS_GCS_TIMEOUT", Value::Real(5.0), F32),
    ("FORMAT_VERSION", Value::Int(120), I16),
    ("FS_THR_ENABLE", Value::Int(1), I8),
    ("GUID_TIMEOUT", Value::Real(3.0), F32),
    ("LAND_SPEED", Value::Int(50), I16),
    ("MAV_GCS_SYSID", Value::Int(255), I16),
    ("MAV_SYSID", Value::Int(1), I16),
    ("RTL_ALT", Value::Int(1500), I32),
    // Only SITL builds have the SIM_ group: what `hil::simulator` asks to tell SITL from a
    // flight controller.
    ("SIM_SPEEDUP", Value::Real(1.0), F32),
    ("WPNAV_SPEED", Value::Real(1000.0), F32),
];

impl Params {
    /// ArduCopter's defaults.
    pub fn copter_defaults() -> Self {
        Params::c_cast(PARAMS)
    }
}

/// Copter modes the endpoint can fly, and the PX4 layer mode that flies the world the same way.
fn px4_equivalent(copter: u32, airborne: bool) -> Option<Px4Mode> {
    Some(match copter {
        mode::GUIDED | mode::BRAKE => Px4Mode::HOLD,
        // Throttle stick at its minimum: down it goes (see the module docs).
        mode::LOITER | mode::POSHOLD => Px4Mode::LAND,
        mode::RTL => Px4Mode::RTL,
        mode::LAND => Px4Mode::LAND,
        // Manual modes: fine on the ground; in the air the world has no pilot to fly them.
        mode::STABILIZE | mode::ALT_HOLD if !airborne => Px4Mode::HOLD,
        _ => return None,
    })
}

impl Px4Vehicle {
    /// HEARTBEAT `base_mode` as ArduCopter fills it: 81 disarmed in STABILIZE, 217 armed in
    /// GUIDED (the guided flag while its position controller runs).
    pub(super) fn copter_base_mode(&self) -> MavModeFlag {
        use MavModeFlag as F;
        let mut f = F::MAV_MODE_FLAG_CUSTOM_MODE_ENABLED
            | F::MAV_MODE_FLAG_STABILIZE_ENABLED
            | F::MAV_MODE_FLAG_MANUAL_INPUT_ENABLED;
        let position_control = matches!(
            self.copter.mode,
            mode::GUIDED | mode::AUTO | mode::RTL | mode::LOITER | mode::BRAKE | mode::POSHOLD
        );
        if position_control && self.arming.armed {
            f |= F::MAV_MODE_FLAG_GUIDED_ENABLED;
        }
        if self.arming.armed {
            f |= F::MAV_MODE_FLAG_SAFETY_ARMED;
        }
        f
    }

    /// Whether ArduCopter would pass its pre-arm checks now (position estimate, home).
    pub(super) fn copter_ready(&self) -> bool {
        self.time.now_us >= self.time.boot.arm_ready_ms * 1000 && self.frames.home.is_some()
    }

    /// EKF_STATUS_REPORT flags as the real SITL sends them: 167 (attitude, velocities,
    /// vertical position, constant-position mode) until its EKF uses GPS, then 831 (absolute
    /// and relative horizontal position, predicted too).
    pub(super) fn copter_ekf_flags(&self) -> mav::EkfStatusFlags {
        use mav::EkfStatusFlags as E;
        let base = E::EKF_ATTITUDE | E::EKF_VELOCITY_HORIZ | E::EKF_VELOCITY_VERT;
        if self.copter_ready() {
            base | E::EKF_POS_HORIZ_REL
                | E::EKF_POS_HORIZ_ABS
                | E::EKF_POS_VERT_ABS
                | E::EKF_PRED_POS_HORIZ_REL
                | E::EKF_PRED_POS_HORIZ_ABS
        } else {
            base | E::EKF_POS_VERT_ABS | E::EKF_CONST_POS_MODE
        }
    }

    /// Why ArduCopter would refuse to arm now, as its texts say it.
    fn copter_prearm_failure(&self) -> Option<&'static str> {
        if self.copter_ready() {
            None
        } else if self.frames.home.is_none() {
            Some("AHRS: waiting for home")
        } else {
            Some("Need Position Estimate")
        }
    }

    /// The pre-arm failure as a `PreArm:` text (every 30 s on its own, and when asked).
    pub(super) fn copter_say_prearm(&mut self) {
        if let Some(why) = self.copter_prearm_failure() {
            self.say(MavSeverity::MAV_SEVERITY_CRITICAL, format!("PreArm: {why}"));
        }
    }

    /// The periodic `PreArm:` text while disarmed and not ready.
    pub(super) fn copter_watch_prearm(&mut self) {
        if self.arming.armed || !self.booted() || self.time.now_us < self.copter.prearm_text_us {
            return;
        }
        self.copter.prearm_text_us = self.time.now_us + PREARM_TEXT_PERIOD_US;
        self.copter_say_prearm();
    }

    /// Runs a command as ArduCopter answers it.
    pub(super) fn copter_command(&mut self, c: &CommandIn) -> MavResult {
        use MavResult::*;
        let p = c.p;
        match c.command {
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM if p[0] == 1.0 => self.copter_arm(),
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM if p[0] == 0.0 => {
                if !self.arming.armed {
                    return MAV_RESULT_ACCEPTED;
                }
                if self.airborne() && p[1] != FORCE {
                    return MAV_RESULT_FAILED;
                }
                if self.airborne() {
                    // The world cannot drop a flying vehicle's motors on command.
                    return MAV_RESULT_FAILED;
                }
                self.disarm("Disarming motors");
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_COMPONENT_ARM_DISARM => MAV_RESULT_DENIED,
            MavCmd::MAV_CMD_NAV_TAKEOFF => {
                if matches!(c.int, Some((f, _, _)) if f != MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT)
                {
                    return MAV_RESULT_DENIED;
                }
                self.copter_takeoff(f64::from(p[6]))
            }
            MavCmd::MAV_CMD_DO_REPOSITION => match c.int {
                // ArduCopter takes DO_REPOSITION only as COMMAND_INT.
                None => MAV_RESULT_UNSUPPORTED,
                Some((frame, x, y)) => self.copter_reposition(c, frame, x, y),
            },
            MavCmd::MAV_CMD_DO_SET_MODE => {
                if (p[0].max(0.0) as u32) & 1 == 0 || !p[1].is_finite() || p[1] < 0.0 {
                    return MAV_RESULT_DENIED;
                }
                self.copter_set_mode(p[1] as u32)
            }
            MavCmd::MAV_CMD_NAV_LAND => self.copter_set_mode(mode::LAND),
            MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH => self.copter_set_mode(mode::RTL),
            MavCmd::MAV_CMD_NAV_LOITER_UNLIM => self.copter_set_mode(mode::LOITER),
            MavCmd::MAV_CMD_DO_CHANGE_SPEED => {
                if !(p[1] > 0.0 && p[1].is_finite()) {
                    return MAV_RESULT_DENIED;
                }
                if !matches!(self.copter.mode, mode::GUIDED | mode::AUTO | mode::RTL) {
                    return MAV_RESULT_FAILED;
                }
                let _ = self.fly(Command::SetSpeed {
                    speed_mps: f64::from(p[1]),
                });
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_CONDITION_YAW => {
                if !((0.0..=360.0).contains(&p[0]) && (p[3] == 0.0 || p[3] == 1.0)) {
                    return MAV_RESULT_FAILED;
                }
                let yaw_deg = if p[3] == 1.0 {
                    self.snap.yaw_deg + f64::from(p[0]) * if p[2] < 0.0 { -1.0 } else { 1.0 }
                } else {
                    f64::from(p[0])
                };
                let _ = self.fly(Command::SetYaw { yaw_deg });
                MAV_RESULT_ACCEPTED
            }
            MavCmd::MAV_CMD_MISSION_START => self.copter_mission_start(c),
            MavCmd::MAV_CMD_DO_PAUSE_CONTINUE => self.copter_pause_continue(c),
            MavCmd::MAV_CMD_DO_SET_MISSION_CURRENT => self.set_mission_current(c),
            MavCmd::MAV_CMD_RUN_PREARM_CHECKS => {
                if self.arming.armed {
                    return MAV_RESULT_TEMPORARILY_REJECTED;
                }
                self.copter_say_prearm();
                MAV_RESULT_ACCEPTED
            }
            _ => MAV_RESULT_UNSUPPORTED,
        }
    }

    fn copter_arm(&mut self) -> MavResult {
        if self.arming.armed {
            return MavResult::MAV_RESULT_ACCEPTED;
        }
        if let Some(why) = self.copter_prearm_failure() {
            self.say(MavSeverity::MAV_SEVERITY_CRITICAL, format!("Arm: {why}"));
            return MavResult::MAV_RESULT_FAILED;
        }
        // MISSION-FACTS §5: arm in GUIDED, then switch to AUTO.
        if self.copter.mode == mode::AUTO {
            self.say(
                MavSeverity::MAV_SEVERITY_CRITICAL,
                "Arm: AUTO mode not armable",
            );
            return MavResult::MAV_RESULT_FAILED;
        }
        match self.arm() {
            Ok(()) => MavResult::MAV_RESULT_ACCEPTED,
            Err(why) => {
                self.say(MavSeverity::MAV_SEVERITY_CRITICAL, format!("Arm: {why}"));
                MavResult::MAV_RESULT_FAILED
            }
        }
    }

    /// NAV_TAKEOFF: `above_home_m` over home; only armed, in GUIDED, on the ground.
    fn copter_takeoff(&mut self, above_home_m: f64) -> MavResult {
        let ok = self.arming.armed
            && self.copter.mode == mode::GUIDED
            && !self.airborne()
            && above_home_m.is_finite()
            && above_home_m > 0.0;
        if !ok || self.take_off(above_home_m).is_err() {
            return MavResult::MAV_RESULT_FAILED;
        }
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// Enters copter mode `number`; FAILED when ArduCopter (or the world) cannot.
    pub(super) fn copter_set_mode(&mut self, number: u32) -> MavResult {
        if number == mode::AUTO {
            return self.copter_enter_auto();
        }
        let Some(px4) = px4_equivalent(number, self.airborne()) else {
            return MavResult::MAV_RESULT_FAILED;
        };
        let needs_position = matches!(
            number,
            mode::GUIDED | mode::BRAKE | mode::LOITER | mode::POSHOLD | mode::RTL
        );
        // Mode changes on the ground while disarmed are not checked (GUIDED before GPS).
        let checked = self.arming.armed || self.airborne();
        if checked && needs_position && !self.copter_ready() {
            return MavResult::MAV_RESULT_FAILED;
        }
        if self.enter(px4).is_err() {
            return MavResult::MAV_RESULT_FAILED;
        }
        self.copter.mode = number;
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// DO_REPOSITION (COMMAND_INT): lat/lon × 1e7, z in the frame's sense; GUIDED or the
    /// change-mode flag.
    fn copter_reposition(&mut self, c: &CommandIn, frame: MavFrame, x: i32, y: i32) -> MavResult {
        let change_mode = (c.p[1].max(0.0) as i32) & CHANGE_MODE == CHANGE_MODE;
        if self.copter.mode != mode::GUIDED && !change_mode {
            return MavResult::MAV_RESULT_DENIED;
        }
        let Some(target) = self.copter_location(frame, x, y, c.p[6]) else {
            return MavResult::MAV_RESULT_DENIED;
        };
        if !self.airborne() || !self.copter_ready() {
            return MavResult::MAV_RESULT_FAILED;
        }
        // GUIDED refuses a destination outside an enabled fence (GUI:337-351).
        if self.fence_enforced() && !self.plan_fence.allows(target) {
            return MavResult::MAV_RESULT_FAILED;
        }
        if self.copter.mode != mode::GUIDED
            && self.copter_set_mode(mode::GUIDED) != MavResult::MAV_RESULT_ACCEPTED
        {
            return MavResult::MAV_RESULT_FAILED;
        }
        match self.fly(Command::GoTo {
            target,
            speed_mps: None,
        }) {
            Ok(()) => MavResult::MAV_RESULT_ACCEPTED,
            Err(_) => MavResult::MAV_RESULT_FAILED,
        }
    }

    /// A global location in the world frame; `None` for a frame or coordinates ArduCopter
    /// would refuse.
    #[allow(deprecated)] // the *_INT frames are deprecated synonyms senders still use
    fn copter_location(&self, frame: MavFrame, x: i32, y: i32, z: f32) -> Option<Enu> {
        use MavFrame as F;
        let lat = f64::from(x) * 1e-7;
        let lon = f64::from(y) * 1e-7;
        let sane = (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon);
        if !(sane && z.is_finite()) {
            return None;
        }
        let home = self.home_geo()?;
        let alt_amsl_m = match frame {
            F::MAV_FRAME_GLOBAL | F::MAV_FRAME_GLOBAL_INT => f64::from(z),
            F::MAV_FRAME_GLOBAL_RELATIVE_ALT
            | F::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
            | F::MAV_FRAME_GLOBAL_TERRAIN_ALT
            | F::MAV_FRAME_GLOBAL_TERRAIN_ALT_INT => home.alt_amsl_m + f64::from(z),
            _ => return None,
        };
        Some(self.frames.local.to_enu(Geo {
            lat_deg: lat,
            lon_deg: lon,
            alt_amsl_m,
        }))
    }

    /// SET_POSITION_TARGET_GLOBAL_INT in GUIDED: a position is flown to and held; anything
    /// else is ignored (see the module docs).
    pub(super) fn copter_target_global(&mut self, sp: &mav::SET_POSITION_TARGET_GLOBAL_INT_DATA) {
        if self.copter.mode != mode::GUIDED
            || !self.airborne()
            || sp.type_mask.bits() & IGNORE_POSITION != 0
        {
            return;
        }
        if let Some(target) =
            self.copter_location(sp.coordinate_frame, sp.lat_int, sp.lon_int, sp.alt)
        {
            let _ = self.fly(Command::GoTo {
                target,
                speed_mps: None,
            });
        }
    }

    /// Seconds to auto-disarm after landing and after an idle arming.
    pub(super) fn copter_disarm_delays_s(&self) -> (f64, f64) {
        (LANDED_DISARM_S, self.params.number("DISARM_DELAY"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copter_parameters_are_4_7_names_sent_as_numbers() {
        let p = Params::copter_defaults();
        let read = |name: &str| {
            p.read(&mav::PARAM_REQUEST_READ_DATA {
                param_index: -1,
                param_id: name.into(),
                ..Default::default()
            })
        };
        let Some(super::super::codec::MavMessage::PARAM_VALUE(v)) = read("RTL_ALT") else {
            panic!()
        };
        assert_eq!((v.param_value, v.param_type), (1500.0, I32), "cm, C cast");
        assert!(read("MAV_SYSID").is_some());
        assert!(read("SYSID_THISMAV").is_none(), "renamed in 4.7");
        assert_eq!(p.number("FS_GCS_ENABLE"), 0.0);
    }

    #[test]
    fn only_modes_the_world_can_fly_are_entered() {
        assert_eq!(px4_equivalent(mode::GUIDED, true), Some(Px4Mode::HOLD));
        assert_eq!(px4_equivalent(mode::STABILIZE, false), Some(Px4Mode::HOLD));
        assert_eq!(px4_equivalent(mode::STABILIZE, true), None);
        assert_eq!(px4_equivalent(mode::AUTO, true), None);
        assert_eq!(px4_equivalent(13, false), None);
    }
}
