//! PX4's armed state, and arming and disarming as PX4 does them: arming moves home, the landing
//! and idle-arming timers disarm on their own, and disarming drops the timers and any waiting
//! failsafe. The armed state itself is in `state`.

use super::codec::mav::MavSeverity;
use super::options::Autopilot;
use super::vehicle::Px4Vehicle;
use crate::flight_controller::Mode as FcMode;
use alpha3_core::command::Command;

impl Px4Vehicle {
    pub(super) fn watch_disarm_timers(&mut self) {
        if let Some(t) = self.arming.disarm_at_us
            && self.time.now_us >= t
        {
            self.arming.disarm_at_us = None;
            if !self.airborne() {
                self.disarm("Disarmed by landing");
            }
        }
        if let Some(since) = self.arming.idle_since_us {
            let limit_s = self.disarm_delays_s().1;
            if limit_s > 0.0
                && self.time.now_us >= since + (limit_s * 1e6) as u64
                && !self.airborne()
                && self.world.flight_controller().mode == FcMode::Idle
            {
                self.disarm("Disarmed by auto preflight disarming");
            }
        }
        if self.arming.armed
            && !self.world.flight_controller().armed
            && self.arming.disarm_at_us.is_none()
        {
            // The world disarmed without a landing delay pending (nothing else does that).
            self.disarmed();
        }
    }

    /// Seconds to auto-disarm after landing and after arming without taking off.
    pub(super) fn disarm_delays_s(&self) -> (f64, f64) {
        match self.identity.autopilot {
            Autopilot::Px4 => (
                self.params.number("COM_DISARM_LAND"),
                self.params.number("COM_DISARM_PRFLT"),
            ),
            Autopilot::ArduCopter => self.copter_disarm_delays_s(),
        }
    }

    pub(super) fn disarm(&mut self, why: &str) {
        if self.world.flight_controller().armed {
            let _ = self.fly(Command::Disarm);
        }
        self.disarmed();
        self.say(MavSeverity::MAV_SEVERITY_INFO, why);
    }

    /// PX4 on disarming: timers and waiting failsafes dropped, and back to the last mode the
    /// user chose that allows arming (after a Return or a Land: Hold).
    fn disarmed(&mut self) {
        self.arming.armed = false;
        self.arming.disarm_at_us = None;
        self.arming.idle_since_us = None;
        self.nav.rtl = None;
        self.cancel_delayed_failsafe();
        self.nav.mode = self.nav.mode_after_disarm;
    }

    pub(super) fn arm(&mut self) -> Result<(), String> {
        if !self.arming.armed || !self.world.flight_controller().armed {
            self.fly(Command::Arm)?;
        }
        if !self.arming.armed {
            let text = match self.identity.autopilot {
                Autopilot::Px4 => "Armed by external command",
                Autopilot::ArduCopter => "Arming motors",
            };
            self.say(MavSeverity::MAV_SEVERITY_INFO, text);
            // PX4 sets home where it arms.
            self.set_home();
            if !self.airborne() {
                self.arming.idle_since_us = Some(self.time.now_us);
            }
        }
        self.arming.armed = true;
        self.arming.disarm_at_us = None;
        Ok(())
    }

    /// Re-arms the world inside PX4's landing-disarm delay (PX4 is still armed then).
    pub(super) fn ensure_world_armed(&mut self) {
        if self.arming.armed && !self.world.flight_controller().armed {
            let _ = self.fly(Command::Arm);
        }
    }
}
