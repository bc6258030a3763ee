//! ArduCopter's AUTO (MISSION-FACTS §5, AUTO, GMC): entered by DO_SET_MODE 3 or MISSION_START
//! (param1/param2 0 only; it does not arm, and lets an AUTO take-off from the ground go); not
//! armable; armed on the ground it needs a NAV_TAKEOFF as the first navigation command
//! ("Auto: Missing Takeoff Cmd"); DO_PAUSE_CONTINUE 0 stops on the way to a waypoint, 1 goes
//! on; leaving AUTO stops the mission and entering again resumes it.

use super::item;
use crate::endpoint::codec::mav::{MavResult, MavSeverity};
use crate::endpoint::commands::CommandIn;
use crate::endpoint::copter_mode;
use crate::endpoint::mission::Progress;
use crate::endpoint::modes::Px4Mode;
use crate::endpoint::state::Leg;
use crate::endpoint::vehicle::Px4Vehicle;
use alpha3_core::command::Command;

impl Px4Vehicle {
    /// Entering AUTO (`ModeAuto::init`, AUTO:20-75); FAILED when ArduCopter would refuse.
    pub(in crate::endpoint) fn copter_enter_auto(&mut self) -> MavResult {
        if self.copter.mode == copter_mode::AUTO {
            return MavResult::MAV_RESULT_ACCEPTED;
        }
        let checked = self.arming.armed || self.airborne();
        if self.mission.items.is_empty() || (checked && !self.copter_ready()) {
            return MavResult::MAV_RESULT_FAILED;
        }
        if self.arming.armed && !self.airborne() && !self.starts_with_takeoff() {
            self.say(
                MavSeverity::MAV_SEVERITY_CRITICAL,
                "Auto: Missing Takeoff Cmd",
            );
            return MavResult::MAV_RESULT_FAILED;
        }
        self.copter.mode = copter_mode::AUTO;
        // The PX4 layer's mode that flies the world as AUTO does.
        self.nav.rtl = None;
        self.nav.mode = Px4Mode::MISSION;
        self.start_or_resume();
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// Whether the first navigation command from where the mission would go on is a
    /// take-off (`starts_with_takeoff_cmd`, MIS_RESTART 0).
    fn starts_with_takeoff(&self) -> bool {
        let from = if self.mission.progress == Progress::Complete {
            0
        } else {
            self.item_index(self.mission.seq)
        };
        let autopilot = self.identity.autopilot;
        self.mission
            .items
            .iter()
            .skip(from)
            .find(|i| item::is_nav(i, autopilot))
            .is_some_and(item::is_takeoff)
    }

    /// MAV_CMD_MISSION_START (GMC:706-720).
    pub(in crate::endpoint) fn copter_mission_start(&mut self, c: &CommandIn) -> MavResult {
        if c.p[0] != 0.0 || c.p[1] != 0.0 {
            // A first or last item is not supported.
            return MavResult::MAV_RESULT_DENIED;
        }
        if self.copter_enter_auto() != MavResult::MAV_RESULT_ACCEPTED {
            return MavResult::MAV_RESULT_FAILED;
        }
        self.mission.auto_armed = self.arming.armed;
        if self.mission.progress != Progress::Active {
            self.start_or_resume();
        }
        MavResult::MAV_RESULT_ACCEPTED
    }

    /// DO_PAUSE_CONTINUE (GMC:856-876, AUTO:2348-2364): 0 pauses only on the way to a
    /// waypoint, 1 resumes, anything else is DENIED.
    pub(in crate::endpoint) fn copter_pause_continue(&mut self, c: &CommandIn) -> MavResult {
        let in_auto = self.copter.mode == copter_mode::AUTO;
        if c.p[0] == 0.0 {
            let on_the_way = matches!(
                self.mission.leg,
                Some(Leg::Fly {
                    arrived_us: None,
                    ..
                })
            );
            if in_auto && on_the_way && self.mission.progress == Progress::Active {
                self.mission.paused = true;
                let _ = self.fly(Command::Hold);
                return MavResult::MAV_RESULT_ACCEPTED;
            }
            self.say(MavSeverity::MAV_SEVERITY_INFO, "Failed to pause");
            return MavResult::MAV_RESULT_FAILED;
        }
        if c.p[0] == 1.0 {
            if !in_auto {
                self.say(MavSeverity::MAV_SEVERITY_INFO, "Failed to resume");
                return MavResult::MAV_RESULT_FAILED;
            }
            if self.mission.paused {
                // The waypoint is flown to again from where it stopped.
                self.mission.paused = false;
                self.mission.leg = None;
            }
            return MavResult::MAV_RESULT_ACCEPTED;
        }
        MavResult::MAV_RESULT_DENIED
    }
}
