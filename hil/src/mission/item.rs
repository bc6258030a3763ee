//! One plan item as MISSION_ITEM_INT carries it.
//!
//! Self-contained on purpose: the plan-file reader in `core` has its own item type (core has no
//! MAVLink), and the two are joined by a conversion at the edge. `command` and `frame` are the
//! dialect's enums, so an item held here is always one the wire can carry.

use super::kind::MissionKind;
use crate::command::Target;
use crate::dialect::mav::{self, MavCmd, MavFrame};

/// A mission, fence or rally item. `x`/`y` are lat/lon in degrees × 1e7 for global frames and
/// unscaled integers for frame 2 (MISSION), as MISSION_ITEM_INT defines them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissionItem {
    pub seq: u16,
    pub frame: MavFrame,
    pub command: MavCmd,
    pub current: bool,
    pub autocontinue: bool,
    pub param1: f32,
    pub param2: f32,
    pub param3: f32,
    pub param4: f32,
    pub x: i32,
    pub y: i32,
    pub z: f32,
    pub mission_type: MissionKind,
}

impl MissionItem {
    /// A NAV_WAYPOINT at (`x`, `y`, `z`) in `frame`: the common case, and ArduPilot's home.
    pub fn waypoint(kind: MissionKind, frame: MavFrame, x: i32, y: i32, z: f32) -> Self {
        Self {
            seq: 0,
            frame,
            command: MavCmd::MAV_CMD_NAV_WAYPOINT,
            current: false,
            autocontinue: true,
            param1: 0.0,
            param2: 0.0,
            param3: 0.0,
            param4: 0.0,
            x,
            y,
            z,
            mission_type: kind,
        }
    }

    /// The MISSION_ITEM_INT that sends this item to `to`.
    pub fn to_wire(&self, to: Target) -> mav::MISSION_ITEM_INT_DATA {
        mav::MISSION_ITEM_INT_DATA {
            param1: self.param1,
            param2: self.param2,
            param3: self.param3,
            param4: self.param4,
            x: self.x,
            y: self.y,
            z: self.z,
            seq: self.seq,
            command: self.command,
            target_system: to.system,
            target_component: to.component,
            frame: self.frame,
            current: u8::from(self.current),
            autocontinue: u8::from(self.autocontinue),
            mission_type: self.mission_type.to_mav(),
        }
    }

    /// The item a MISSION_ITEM_INT carries; `None` for mission_type ALL, which no plan holds.
    pub fn from_wire(d: &mav::MISSION_ITEM_INT_DATA) -> Option<Self> {
        Some(Self {
            seq: d.seq,
            frame: d.frame,
            command: d.command,
            current: d.current != 0,
            autocontinue: d.autocontinue != 0,
            param1: d.param1,
            param2: d.param2,
            param3: d.param3,
            param4: d.param4,
            x: d.x,
            y: d.y,
            z: d.z,
            mission_type: MissionKind::from_mav(d.mission_type)?,
        })
    }
}
