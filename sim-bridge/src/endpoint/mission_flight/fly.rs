//! Flying the current mission item, stepped with the vehicle: each item begins as a command to
//! the world's flight controller (take-off, go-to, land, or PX4's Return mode), counts as
//! reached when the world is there (and has waited out its hold time), and hands on to the
//! next; DO_ items are done the moment they are current. At the end PX4 says so and holds
//! (or, landed, lets the landing disarm it); ArduCopter stays in AUTO, loitering, or disarms
//! on the ground (MISSION-FACTS §5).

use super::item::{self, Alt, Point, Step};
use crate::endpoint::codec::mav::{MavCmd, MavSeverity};
use crate::endpoint::mission::Progress;
use crate::endpoint::modes::Px4Mode;
use crate::endpoint::options::Autopilot;
use crate::endpoint::state::{Leg, MissionEvent};
use crate::endpoint::vehicle::Px4Vehicle;
use alpha3_core::command::Command;
use alpha3_core::frames::{Enu, Geo};

/// A point counts as reached within this horizontally, m (ArduCopter's WPNAV_RADIUS 200 cm).
const ACCEPT_H_M: f64 = 2.0;
/// ... and this vertically, m (PX4's NAV_MC_ALT_RAD).
const ACCEPT_V_M: f64 = 0.8;
/// A take-off from the ground climbs at least this high above home, m.
const MIN_TAKEOFF_M: f64 = 1.0;

/// Where the current leg stands.
enum LegState {
    Busy,
    /// A preliminary leg (PX4's climb) is done: begin the item itself.
    Again,
    Done,
}

impl Px4Vehicle {
    /// Whether the vehicle is in the mode that flies the mission (PX4 Mission, ArduCopter AUTO).
    pub(in crate::endpoint) fn in_mission_mode(&self) -> bool {
        match self.identity.autopilot {
            Autopilot::Px4 => self.nav.mode == Px4Mode::MISSION,
            Autopilot::ArduCopter => self.copter.mode == crate::endpoint::copter_mode::AUTO,
        }
    }

    /// The item index of mission seq `seq` (ArduPilot's seq 0 is home: its first item is 1).
    pub(super) fn item_index(&self, seq: u16) -> usize {
        match self.identity.autopilot {
            Autopilot::Px4 => usize::from(seq),
            Autopilot::ArduCopter => usize::from(seq.saturating_sub(1)),
        }
    }

    /// The mission seq of item `index`.
    pub(super) fn item_seq(&self, index: usize) -> u16 {
        let seq = match self.identity.autopilot {
            Autopilot::Px4 => index,
            Autopilot::ArduCopter => index.saturating_add(1),
        };
        u16::try_from(seq).unwrap_or(u16::MAX)
    }

    /// One step of the mission: the mode left (the mission pauses), or the current leg
    /// watched, and as many items as are done begun after it.
    pub(in crate::endpoint) fn fly_mission(&mut self) {
        if !self.arming.armed {
            self.mission.auto_armed = false;
            if self.mission.progress == Progress::Complete {
                self.mission.disarmed_since_complete = true;
            }
        }
        if !self.in_mission_mode() {
            if self.mission.progress == Progress::Active {
                self.mission.progress = Progress::Paused;
            }
            self.mission.leg = None;
            self.mission.paused = false;
            return;
        }
        if self.mission.progress != Progress::Active || self.mission.paused {
            return;
        }
        // Each pass ends a leg or returns; the mission is finite, and so is this.
        for _ in 0..=self.mission.items.len().saturating_mul(2) {
            let leg = match self.mission.leg {
                Some(leg) => leg,
                None => match self.begin_item() {
                    Some(leg) => {
                        self.mission.leg = Some(leg);
                        leg
                    }
                    None => return,
                },
            };
            match self.leg_state(leg) {
                LegState::Busy => return,
                LegState::Again => self.mission.leg = None,
                LegState::Done => self.item_reached(),
            }
        }
    }

    /// Begins the current item: DO_ items done on the spot, then the navigation item's leg.
    /// `None` while it cannot begin (disarmed, no home, an ArduCopter take-off waiting for
    /// MISSION_START) or when the mission ended.
    fn begin_item(&mut self) -> Option<Leg> {
        if !self.arming.armed {
            return None;
        }
        let autopilot = self.identity.autopilot;
        let mut moved = false;
        loop {
            let seq = self.mission.seq;
            let index = self.item_index(seq);
            let Some(current) = self.mission.items.get(index).copied() else {
                self.finish_mission();
                return None;
            };
            match item::step(&current, autopilot) {
                Step::Speed(speed) => {
                    if let Some(speed_mps) = speed {
                        let _ = self.fly(Command::SetSpeed { speed_mps });
                    }
                }
                Step::Skip => {}
                nav => {
                    if moved {
                        self.mission.events.push(MissionEvent::Current(seq));
                    }
                    let leg = self.begin_leg(nav)?;
                    if autopilot == Autopilot::ArduCopter {
                        // AP_Mission says each command it starts (APM:431-435).
                        self.say(
                            MavSeverity::MAV_SEVERITY_INFO,
                            format!("Mission: {seq} {}", copter_name(current.command)),
                        );
                    }
                    return Some(leg);
                }
            }
            // A DO_ item is reached as soon as it is current.
            self.mission.events.push(MissionEvent::Reached(seq));
            if index + 1 >= self.mission.items.len() {
                self.finish_mission();
                return None;
            }
            self.mission.seq = self.item_seq(index + 1);
            moved = true;
        }
    }

    /// The world commands for a navigation item.
    fn begin_leg(&mut self, step: Step) -> Option<Leg> {
        let home = self.frames.home?;
        let here = self.snap.position;
        let airborne = self.airborne();
        let may_lift = self.identity.autopilot == Autopilot::Px4 || self.mission.auto_armed;
        match step {
            Step::Takeoff(alt) => {
                let z = self.mission_point(Point { lat_lon: None, alt })?.z;
                if !airborne {
                    // ArduCopter's AUTO take-off waits for the throttle (auto_armed), which
                    // MISSION_START gives (MISSION-FACTS §5).
                    if !may_lift {
                        return None;
                    }
                    let z = z.max(home.z + MIN_TAKEOFF_M);
                    self.lift_off(z)?;
                    return Some(Leg::Takeoff { z });
                }
                if here.z < z - ACCEPT_V_M {
                    self.fly(Command::GoTo {
                        target: Enu::new(here.x, here.y, z),
                        speed_mps: None,
                    })
                    .ok()?;
                }
                Some(Leg::Takeoff { z })
            }
            Step::Fly { to, hold_s } => {
                let target = self.mission_point(to)?;
                if !airborne {
                    return self.climb_first(home, target, may_lift);
                }
                self.fly(Command::GoTo {
                    target,
                    speed_mps: None,
                })
                .ok()?;
                Some(Leg::Fly {
                    target,
                    hold_s,
                    arrived_us: None,
                })
            }
            Step::Land(to) => {
                if airborne {
                    let site = match to.lat_lon {
                        Some(_) => self.mission_point(to).map(|p| [p.x, p.y]),
                        None => None,
                    };
                    self.fly(Command::Land { site }).ok()?;
                }
                Some(Leg::Land)
            }
            Step::Return => match self.identity.autopilot {
                // PX4's navigator hands the vehicle to Return mode (MISSION-FACTS §5), which
                // the commander announces; the mission pauses at this item.
                Autopilot::Px4 => {
                    let mark = self.texts_said();
                    if self.enter(Px4Mode::RTL).is_ok() {
                        self.say_at(mark, MavSeverity::MAV_SEVERITY_INFO, "Returning to launch");
                    }
                    None
                }
                // ArduCopter flies RTL inside AUTO (`do_RTL`); done once down.
                Autopilot::ArduCopter => {
                    if airborne {
                        self.enter(Px4Mode::RTL).ok()?;
                    }
                    Some(Leg::Return)
                }
            },
            Step::Speed(_) | Step::Skip => None,
        }
    }

    /// On the ground with a position item current: PX4 climbs to the item's altitude (at
    /// least MIS_TAKEOFF_ALT) before flying to it (MIS:291-336).
    fn climb_first(&mut self, home: Enu, target: Enu, may_lift: bool) -> Option<Leg> {
        if !may_lift {
            return None;
        }
        let lowest = match self.identity.autopilot {
            Autopilot::Px4 => self.params.number("MIS_TAKEOFF_ALT").max(MIN_TAKEOFF_M),
            Autopilot::ArduCopter => MIN_TAKEOFF_M,
        };
        let z = target.z.max(home.z + lowest);
        self.lift_off(z)?;
        if self.identity.autopilot == Autopilot::Px4 {
            self.say(
                MavSeverity::MAV_SEVERITY_INFO,
                format!("Climb to {:.1} meters above home", z - home.z),
            );
        }
        Some(Leg::Climb { z })
    }

    /// A take-off from the ground to world height `z`.
    fn lift_off(&mut self, z: f64) -> Option<()> {
        self.ensure_world_armed();
        self.fly(Command::Takeoff { altitude_m: z }).ok()?;
        self.arming.idle_since_us = None;
        Some(())
    }

    /// An item's point in the world frame: lat/lon (or where the vehicle is), its altitude
    /// over home's AMSL altitude or AMSL itself.
    fn mission_point(&self, to: Point) -> Option<Enu> {
        let home = self.home_geo()?;
        let here = self.frames.local.to_geo(self.snap.position);
        let (lat_deg, lon_deg) = to.lat_lon.unwrap_or((here.lat_deg, here.lon_deg));
        let alt_amsl_m = match to.alt {
            Alt::AboveHome(z) => home.alt_amsl_m + z,
            Alt::Amsl(a) => a,
            Alt::Here => here.alt_amsl_m,
        };
        Some(self.frames.local.to_enu(Geo {
            lat_deg,
            lon_deg,
            alt_amsl_m,
        }))
    }

    fn leg_state(&mut self, leg: Leg) -> LegState {
        let here = self.snap.position;
        let up_to = |z: f64| here.z >= z - ACCEPT_V_M;
        match leg {
            Leg::Climb { z } if self.airborne() && up_to(z) => LegState::Again,
            Leg::Takeoff { z } if self.airborne() && up_to(z) => LegState::Done,
            Leg::Climb { .. } | Leg::Takeoff { .. } => LegState::Busy,
            Leg::Fly {
                target,
                hold_s,
                arrived_us,
            } => {
                let near = (here.x - target.x).hypot(here.y - target.y) <= ACCEPT_H_M
                    && (here.z - target.z).abs() <= ACCEPT_V_M;
                let now = self.time.now_us;
                let since = match arrived_us {
                    Some(t) => t,
                    None if near => {
                        self.mission.leg = Some(Leg::Fly {
                            target,
                            hold_s,
                            arrived_us: Some(now),
                        });
                        now
                    }
                    None => return LegState::Busy,
                };
                match hold_s {
                    Some(s) if now.saturating_sub(since) as f64 >= s * 1e6 => LegState::Done,
                    _ => LegState::Busy,
                }
            }
            Leg::Land | Leg::Return if !self.airborne() => LegState::Done,
            Leg::Land | Leg::Return => LegState::Busy,
        }
    }

    /// The current item is reached: MISSION_ITEM_REACHED, and on to the next (or the end).
    fn item_reached(&mut self) {
        let seq = self.mission.seq;
        self.mission.events.push(MissionEvent::Reached(seq));
        if self.identity.autopilot == Autopilot::ArduCopter {
            self.say(
                MavSeverity::MAV_SEVERITY_INFO,
                format!("Reached command #{seq}"),
            );
        }
        self.mission.leg = None;
        let index = self.item_index(seq);
        if index + 1 >= self.mission.items.len() {
            self.finish_mission();
            return;
        }
        self.mission.seq = self.item_seq(index + 1);
        self.mission
            .events
            .push(MissionEvent::Current(self.mission.seq));
    }

    /// The last item is done (MISSION-FACTS §5 "completion").
    fn finish_mission(&mut self) {
        self.mission.progress = Progress::Complete;
        self.mission.leg = None;
        self.mission.disarmed_since_complete = false;
        match self.identity.autopilot {
            Autopilot::Px4 => {
                let text = if self.airborne() {
                    "Mission finished, loitering"
                } else {
                    "Mission finished, landed"
                };
                self.say(MavSeverity::MAV_SEVERITY_INFO, text);
                // The commander switches a finished mission to Hold (CMD:2001-2025); a landed
                // vehicle is disarmed by its landing.
                if self.nav.mode == Px4Mode::MISSION {
                    let _ = self.enter(Px4Mode::HOLD);
                    self.nav.mode_after_disarm = Px4Mode::HOLD;
                }
            }
            // AUTO stays; it loiters where it is, or disarms on the ground (AUTO:809-824).
            Autopilot::ArduCopter => {
                if self.airborne() {
                    let _ = self.fly(Command::Hold);
                } else if self.arming.armed {
                    self.disarm("Disarmed by mission exit");
                }
            }
        }
    }
}

/// AP_Mission's name for a command it starts (`Mission_Command::type`).
fn copter_name(command: MavCmd) -> &'static str {
    match command {
        MavCmd::MAV_CMD_NAV_TAKEOFF => "Takeoff",
        MavCmd::MAV_CMD_NAV_WAYPOINT => "WP",
        MavCmd::MAV_CMD_NAV_LOITER_UNLIM => "LoitUnlim",
        MavCmd::MAV_CMD_NAV_LOITER_TIME => "LoitTime",
        MavCmd::MAV_CMD_NAV_LOITER_TURNS => "LoitTurns",
        MavCmd::MAV_CMD_NAV_LAND => "Land",
        MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH => "RTL",
        _ => "?",
    }
}
