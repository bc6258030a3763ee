//! Entering a PX4 mode, with what it does to the world (used by commands and failsafes): hold,
//! land, return (climb to the return altitude first), take-off, offboard and mission
//! (`mission_flight`).

use super::codec::mav::MavSeverity;
use super::modes::Px4Mode;
use super::options::Autopilot;
use super::state::RtlPhase;
use super::vehicle::Px4Vehicle;
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;

impl Px4Vehicle {
    /// The height above home a return climbs to: PX4's RTL_RETURN_ALT (m), ArduCopter's
    /// RTL_ALT (cm).
    fn return_altitude_m(&self) -> f64 {
        match self.identity.autopilot {
            Autopilot::Px4 => self.params.number("RTL_RETURN_ALT"),
            Autopilot::ArduCopter => self.params.number("RTL_ALT") / 100.0,
        }
    }

    /// Enters `mode` with what it does to the world (used by commands and failsafes).
    /// `Err` is why it cannot.
    pub(super) fn enter(&mut self, mode: Px4Mode) -> Result<(), String> {
        let airborne = self.airborne();
        match mode {
            Px4Mode::HOLD => {
                if airborne {
                    self.fly(Command::Hold)?;
                }
            }
            Px4Mode::LAND => {
                if airborne {
                    self.fly(Command::Land { site: None })?;
                }
            }
            Px4Mode::RTL => {
                let home = self.frames.home.ok_or("no home position")?;
                if airborne {
                    let above = self.return_altitude_m().max(0.0);
                    let altitude_z = (home.z + above).max(self.snap.position.z);
                    let p = self.snap.position;
                    self.fly(Command::GoTo {
                        target: Enu::new(p.x, p.y, altitude_z),
                        speed_mps: None,
                    })?;
                    self.nav.rtl = Some(RtlPhase::Climb { altitude_z });
                    let return_amsl = self.frames.local.to_geo(Enu::new(p.x, p.y, altitude_z));
                    self.say(
                        MavSeverity::MAV_SEVERITY_INFO,
                        format!(
                            "RTL: start return at {} m ({} m above destination)",
                            return_amsl.alt_amsl_m.ceil(),
                            (altitude_z - home.z).ceil()
                        ),
                    );
                }
            }
            Px4Mode::TAKEOFF => {
                let above = self.params.number("MIS_TAKEOFF_ALT");
                return self.take_off(above);
            }
            Px4Mode::OFFBOARD => {
                if !self.setpoint_fresh() {
                    return Err("no offboard signal".into());
                }
            }
            Px4Mode::MISSION => return self.enter_mission(),
            other => return Err(format!("{} is not available", other.name())),
        }
        if mode != Px4Mode::RTL {
            self.nav.rtl = None;
        }
        self.nav.mode = mode;
        Ok(())
    }

    /// Take-off to `above_home_m` over home (PX4's AUTO.TAKEOFF).
    pub(super) fn take_off(&mut self, above_home_m: f64) -> Result<(), String> {
        if !self.arming.armed {
            return Err("not armed".into());
        }
        let home = self.frames.home.ok_or("no home position")?;
        self.ensure_world_armed();
        self.fly(Command::Takeoff {
            altitude_m: home.z + above_home_m,
        })?;
        self.nav.rtl = None;
        self.arming.idle_since_us = None;
        self.nav.mode = Px4Mode::TAKEOFF;
        Ok(())
    }
}
