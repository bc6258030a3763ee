//! Entering, moving and re-planning the mission, as both autopilots share it, and PX4's
//! commands: Mission mode (DO_SET_MODE 1/4/4), MISSION_START (300: first item in param1,
//! Mission mode and arming in one), DO_SET_MISSION_CURRENT (224); a peer's
//! MISSION_SET_CURRENT and a new plan come through the machine (MISSION-FACTS §5).

use crate::endpoint::codec::mav::{MavResult, MavSeverity};
use crate::endpoint::commands::CommandIn;
use crate::endpoint::mission::{Item as PlanItem, Progress};
use crate::endpoint::modes::Px4Mode;
use crate::endpoint::options::Autopilot;
use crate::endpoint::state::MissionEvent;
use crate::endpoint::vehicle::Px4Vehicle;

impl Px4Vehicle {
    /// Entering PX4's Mission mode; `Err` is why not (the commander then refuses the switch).
    pub(in crate::endpoint) fn enter_mission(&mut self) -> Result<(), String> {
        if self.mission.items.is_empty() {
            return Err("no valid mission".into());
        }
        self.start_or_resume();
        self.nav.rtl = None;
        self.nav.mode = Px4Mode::MISSION;
        Ok(())
    }

    /// Starts the mission again or resumes it at its current item. PX4 resumes, restarting
    /// from item 0 only once it finished and was disarmed since (MB:201-252,748-761);
    /// ArduCopter with MIS_RESTART 0 resumes, and restarts a completed mission (APM:130-136).
    pub(super) fn start_or_resume(&mut self) {
        let restart = match self.identity.autopilot {
            Autopilot::Px4 => {
                self.mission.progress == Progress::Complete && self.mission.disarmed_since_complete
            }
            Autopilot::ArduCopter => {
                self.mission.progress == Progress::Complete || self.mission.seq == 0
            }
        };
        if restart {
            let first = self.item_seq(0);
            self.move_current(first);
        }
        self.mission.progress = Progress::Active;
        self.mission.leg = None;
        self.mission.paused = false;
    }

    /// The current item is `seq` now: the mission server hears of it, and a running mission
    /// flies it at once.
    pub(super) fn move_current(&mut self, seq: u16) {
        self.go_to_item(seq);
        self.mission.events.push(MissionEvent::Current(seq));
    }

    fn go_to_item(&mut self, seq: u16) {
        self.mission.seq = seq;
        self.mission.leg = None;
        // A finished mission given a current item again is no longer finished.
        if self.mission.progress == Progress::Complete {
            self.mission.progress = Progress::Paused;
        }
    }

    /// MAV_CMD_MISSION_START on PX4 (CMD:1105-1131): the mission must be valid and param1 a
    /// first item in −1…count−1; then Mission mode, and arming.
    pub(in crate::endpoint) fn px4_mission_start(&mut self, c: &CommandIn) -> MavResult {
        let count = self.mission.items.len();
        if count == 0 {
            self.say(
                MavSeverity::MAV_SEVERITY_CRITICAL,
                "Mission start denied! No valid mission",
            );
            return MavResult::MAV_RESULT_DENIED;
        }
        let first = c.p[0];
        let valid = first.is_finite() && first >= -1.0 && (first as f64) < count as f64;
        if valid && first >= 0.0 {
            self.move_current(first as u16);
        }
        let started = valid
            && self.set_mode(Px4Mode::MISSION) == MavResult::MAV_RESULT_ACCEPTED
            && (self.arming.armed || self.arm_command() == MavResult::MAV_RESULT_ACCEPTED);
        if !started {
            self.say(MavSeverity::MAV_SEVERITY_CRITICAL, "Mission start denied");
            return MavResult::MAV_RESULT_DENIED;
        }
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// MAV_CMD_DO_SET_MISSION_CURRENT: param1 the item (PX4: −1 keeps it; ArduPilot: a seq
    /// counting home); out of range → DENIED (GCSC:4929-4959).
    pub(in crate::endpoint) fn set_mission_current(&mut self, c: &CommandIn) -> MavResult {
        let p = c.p[0];
        let wire_count = match self.identity.autopilot {
            Autopilot::Px4 => self.mission.items.len(),
            Autopilot::ArduCopter => self.mission.items.len() + 1,
        };
        if self.mission.items.is_empty() || !p.is_finite() || p < -1.0 {
            return MavResult::MAV_RESULT_DENIED;
        }
        if p < 0.0 {
            return if self.identity.autopilot == Autopilot::Px4 {
                MavResult::MAV_RESULT_ACCEPTED
            } else {
                MavResult::MAV_RESULT_DENIED
            };
        }
        if p as f64 >= wire_count as f64 {
            return MavResult::MAV_RESULT_DENIED;
        }
        let seq = p as u16;
        // ArduPilot's seq 0 is home: its first item is flown instead.
        let seq = if self.identity.autopilot == Autopilot::ArduCopter {
            seq.max(1)
        } else {
            seq
        };
        self.move_current(seq);
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// A peer moved the current item (MISSION_SET_CURRENT, an upload's `current` flag): the
    /// mission server knows already.
    pub(in crate::endpoint) fn mission_current_from_peer(&mut self, seq: u16) {
        if seq != self.mission.seq {
            self.go_to_item(seq);
        }
    }

    /// A new MISSION plan was stored. A running mission flies its current item anew (PX4
    /// applies it at once, ArduCopter restarts the command: MISSION-FACTS §5); otherwise the
    /// new plan has not been started.
    pub(in crate::endpoint) fn set_plan_mission(&mut self, items: Vec<PlanItem>) {
        self.mission.items = items;
        self.mission.leg = None;
        if self.mission.items.is_empty() || self.mission.progress != Progress::Active {
            self.mission.progress = Progress::Idle;
        }
    }

    /// The mission's current item as the mission server numbers it.
    pub(in crate::endpoint) fn mission_seq(&self) -> u16 {
        self.mission.seq
    }

    /// How far the mission is flown (MISSION_CURRENT's state).
    pub(in crate::endpoint) fn mission_progress(&self) -> Progress {
        self.mission.progress
    }

    /// What the mission server must hear, oldest first.
    pub(in crate::endpoint) fn take_mission_events(&mut self) -> Vec<MissionEvent> {
        std::mem::take(&mut self.mission.events)
    }
}
