//! A QGroundControl `.plan` as types: the mission's items as the autopilot will get them, the
//! fence and the rally points, and what the editor wrote beside them kept (but never trusted) so
//! a plan written back loses nothing.

use serde_json::{Map, Value};

use super::error::MissionFileError;
use super::fence::{Fence, GeoPoint};
use super::item::MissionItem;
use super::rally::rally_to_items;
use crate::frames::Geo;

/// `firmwareType` (MAV_AUTOPILOT) QGroundControl writes for ArduPilot.
pub const FIRMWARE_ARDUPILOT: u8 = 3;
/// `firmwareType` (MAV_AUTOPILOT) QGroundControl writes for PX4.
pub const FIRMWARE_PX4: u8 = 12;

/// A `.plan`: `fileType` "Plan", `version` 1, with all three parts (QGroundControl's loader
/// and MAVSDK's import both require them, MISSION-FACTS §6).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanFile {
    pub mission: PlanMission,
    pub fence: Fence,
    /// Rally points; a `.plan` holds them above home. One given AMSL is written above
    /// `planned_home`.
    pub rally: Vec<GeoPoint>,
    /// Other top-level keys (`groundStation`, QGC's `UUID`, …), written back as read.
    pub extra: Map<String, Value>,
}

/// The `mission` part, version 2.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanMission {
    /// MAV_AUTOPILOT: [`FIRMWARE_PX4`], [`FIRMWARE_ARDUPILOT`], …
    pub firmware_type: u8,
    /// MAV_TYPE (2 quadrotor, 1 fixed wing, …).
    pub vehicle_type: Option<u8>,
    pub cruise_speed_mps: Option<f64>,
    pub hover_speed_mps: Option<f64>,
    /// `plannedHomePosition`: `[lat, lon, alt AMSL]`.
    pub planned_home: Geo,
    /// Simple items in order, a survey already expanded into its own items.
    pub items: Vec<PlanItem>,
    /// Other keys (`globalPlanAltitudeMode`, …), written back as read.
    pub extra: Map<String, Value>,
}

/// One `SimpleItem`: the MAVLink item, and QGroundControl's bookkeeping beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanItem {
    pub item: MissionItem,
    /// QGC's id for `DO_JUMP` targets: the item's QGC seq at save time (home 0, first item 1).
    /// A `DO_JUMP`'s param1 holds one, copied unchanged as MAVSDK does.
    pub do_jump_id: Option<u32>,
    /// The editor's metadata (`AltitudeMode`, `Altitude`, `AMSLAltAboveTerrain`, `groupTag`, …):
    /// kept for the round trip, never read for flight: the numbering of `AltitudeMode` changed
    /// between QGC versions, and `frame` + `params` already say what the autopilot flies.
    pub extra: Map<String, Value>,
}

impl PlanItem {
    /// An item without QGC's bookkeeping.
    pub fn new(item: MissionItem) -> Self {
        PlanItem {
            item,
            do_jump_id: None,
            extra: Map::new(),
        }
    }
}

impl PlanFile {
    /// The mission as MISSION items, `seq` from 0 and the first `current` (PX4's upload;
    /// ArduPilot's adds `planned_home` at 0).
    pub fn mission_items(&self) -> Vec<MissionItem> {
        self.mission
            .items
            .iter()
            .enumerate()
            .map(|(seq, plan_item)| MissionItem {
                seq: u16::try_from(seq).unwrap_or(u16::MAX),
                current: seq == 0,
                ..plan_item.item
            })
            .collect()
    }

    /// The fence as FENCE items ([`Fence::to_items`]).
    pub fn fence_items(&self) -> Result<Vec<MissionItem>, MissionFileError> {
        self.fence.to_items()
    }

    /// The rally points as RALLY items, frame 3 as QGroundControl uploads them.
    pub fn rally_items(&self) -> Result<Vec<MissionItem>, MissionFileError> {
        rally_to_items(&self.rally)
    }
}
