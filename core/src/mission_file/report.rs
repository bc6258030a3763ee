//! What we do with each mission item, by name. We fly five commands; everything else in a plan
//! (camera triggers, gripper, yaw, jumps, speed changes, …) is kept in order for the autopilot
//! or the engineer, and said out loud, never dropped without a word.

use std::fmt;

use super::frame::{AltitudeRef, FrameKind};
use super::item::{MissionItem, MissionType};
use super::mav_cmd;

/// A command we fly, as the runtime's own command of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flight {
    /// `NAV_TAKEOFF` (22).
    Takeoff,
    /// `NAV_WAYPOINT` (16).
    Waypoint,
    /// `NAV_LAND` (21).
    Land,
    /// `NAV_RETURN_TO_LAUNCH` (20).
    ReturnToLaunch,
    /// `NAV_LOITER_TIME` (19): a hold for param1 seconds.
    Hold,
}

/// Why an item cannot be part of a mission we fly beside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A fence (5000–5004) or rally (5100) command in a mission list: both autopilots refuse
    /// it there (PX4 ACKs 1, MISSION-FACTS §1).
    WrongList,
    /// An item whose `mission_type` is not MISSION.
    NotAMissionItem,
    /// A number neither dialect names: nobody can say what it would do.
    UnknownCommand,
    /// A position we would fly given in frame 2: PX4 flies its `z` above home, ArduPilot AMSL
    /// (MISSION-FACTS §2), so the altitude means two different things.
    NoAltitudeFrame,
    /// A position we would fly above terrain: the readers turn these into AMSL or refuse
    /// them, so only an item built in code gets here.
    TerrainAltitude,
}

/// What we do with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// We fly it.
    Flown(Flight),
    /// We do not fly it; it stays in the plan, in order, and is reported.
    Kept,
    /// It cannot stay in a mission we fly; the plan needs changing.
    Refused(Refusal),
}

impl Handling {
    /// `flown`, `kept` or `refused`.
    pub fn word(self) -> &'static str {
        match self {
            Handling::Flown(_) => "flown",
            Handling::Kept => "kept",
            Handling::Refused(_) => "refused",
        }
    }
}

/// One line of [`report`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemReport {
    pub seq: u16,
    pub command: u16,
    /// `MAV_CMD_*`, `None` for a number no dialect names (then refused).
    pub name: Option<&'static str>,
    pub handling: Handling,
}

impl fmt::Display for ItemReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name {
            Some(name) => write!(f, "item {}: {name}: {}", self.seq, self.handling.word())?,
            None => write!(
                f,
                "item {}: MAV_CMD {} (unknown): {}",
                self.seq,
                self.command,
                self.handling.word()
            )?,
        }
        match self.handling {
            Handling::Flown(Flight::Hold) => write!(f, " as hold"),
            Handling::Refused(Refusal::WrongList) => {
                write!(f, " (a fence or rally command in a mission)")
            }
            Handling::Refused(Refusal::NotAMissionItem) => write!(f, " (not a mission item)"),
            Handling::Refused(Refusal::UnknownCommand) => write!(f, " (no dialect names it)"),
            Handling::Refused(Refusal::NoAltitudeFrame) => {
                write!(f, " (a position in frame 2 has no agreed altitude)")
            }
            Handling::Refused(Refusal::TerrainAltitude) => {
                write!(f, " (an altitude above terrain)")
            }
            _ => Ok(()),
        }
    }
}

/// Every item of a mission with what we do with it, in order.
pub fn report(items: &[MissionItem]) -> Vec<ItemReport> {
    items
        .iter()
        .map(|item| ItemReport {
            seq: item.seq,
            command: item.command,
            name: mav_cmd::name(item.command),
            handling: handling(item),
        })
        .collect()
}

/// What we do with one item.
pub fn handling(item: &MissionItem) -> Handling {
    if item.mission_type != MissionType::Mission {
        return Handling::Refused(Refusal::NotAMissionItem);
    }
    if mav_cmd::is_fence(item.command) || item.command == mav_cmd::NAV_RALLY_POINT {
        return Handling::Refused(Refusal::WrongList);
    }
    if mav_cmd::name(item.command).is_none() {
        return Handling::Refused(Refusal::UnknownCommand);
    }
    let flight = match item.command {
        mav_cmd::NAV_TAKEOFF => Flight::Takeoff,
        mav_cmd::NAV_WAYPOINT => Flight::Waypoint,
        mav_cmd::NAV_LAND => Flight::Land,
        mav_cmd::NAV_LOITER_TIME => Flight::Hold,
        // Return needs no position, so its frame does not matter.
        mav_cmd::NAV_RETURN_TO_LAUNCH => return Handling::Flown(Flight::ReturnToLaunch),
        _ => return Handling::Kept,
    };
    match FrameKind::of(item.frame) {
        Some(FrameKind::Global(AltitudeRef::AboveTerrain)) => {
            Handling::Refused(Refusal::TerrainAltitude)
        }
        Some(FrameKind::Global(_)) => Handling::Flown(flight),
        _ => Handling::Refused(Refusal::NoAltitudeFrame),
    }
}
