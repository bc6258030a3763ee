//! One stored plan item: what MISSION_ITEM_INT carries, less its seq and target ids, plus the
//! conversions to and from the wire (the float MISSION_ITEM too, which both autopilots still
//! take) and to `core`'s plan-file item, whose geometry the fence check uses.

use super::crc::CrcFields;
use super::kind::PlanKind;
use super::peer::Peer;
use crate::endpoint::codec::mav::{self, MavCmd, MavFrame};
use alpha3_core::mission_file::{self, FrameKind};

/// An item as the autopilot keeps it. `x`/`y` are lat/lon degrees × 1e7 in global frames and
/// plain integers in frame 2 (MISSION), as MISSION_ITEM_INT defines them.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    pub frame: MavFrame,
    pub command: MavCmd,
    /// The uploader flagged it as the item to start from.
    pub current: bool,
    /// As the wire carried it (PX4's CRC takes the byte).
    pub autocontinue: u8,
    pub params: [f32; 4],
    pub x: i32,
    pub y: i32,
    pub z: f32,
}

/// Equal when every field holds the same value, NaN included (a NaN parameter is "unset", and
/// two unset parameters are the same item).
impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        self.frame == other.frame
            && self.command == other.command
            && self.current == other.current
            && self.autocontinue == other.autocontinue
            && self
                .params
                .iter()
                .zip(&other.params)
                .all(|(a, b)| same(*a, *b))
            && self.x == other.x
            && self.y == other.y
            && same(self.z, other.z)
    }
}

/// An item as it came off the wire, with the bytes PX4's CRC covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Received {
    pub seq: u16,
    pub mission_type: mav::MavMissionType,
    pub target: Peer,
    pub item: Item,
    pub crc: CrcFields,
    /// It came as the deprecated float MISSION_ITEM.
    pub float: bool,
}

impl Received {
    pub fn int(d: &mav::MISSION_ITEM_INT_DATA) -> Self {
        let item = Item {
            frame: d.frame,
            command: d.command,
            current: d.current != 0,
            autocontinue: d.autocontinue,
            params: [d.param1, d.param2, d.param3, d.param4],
            x: d.x,
            y: d.y,
            z: d.z,
        };
        Self {
            seq: d.seq,
            mission_type: d.mission_type,
            target: Peer::new(d.target_system, d.target_component),
            crc: item.crc_fields(d.x.to_le_bytes(), d.y.to_le_bytes()),
            item,
            float: false,
        }
    }

    #[allow(deprecated)] // MISSION_ITEM is deprecated, and still taken by both autopilots
    /// MISSION_ITEM: x/y are degrees in global frames (kept here ×1e7, rounded), plain numbers
    /// otherwise (rounded, as PX4 sends them back).
    pub fn float(d: &mav::MISSION_ITEM_DATA) -> Self {
        let scale = if is_global(d.frame) { 1e7 } else { 1.0 };
        // `as` saturates and takes NaN to 0: a hostile float cannot panic here.
        let fixed = |v: f32| (f64::from(v) * scale).round() as i32;
        let item = Item {
            frame: d.frame,
            command: d.command,
            current: d.current != 0,
            autocontinue: d.autocontinue,
            params: [d.param1, d.param2, d.param3, d.param4],
            x: fixed(d.x),
            y: fixed(d.y),
            z: d.z,
        };
        Self {
            seq: d.seq,
            mission_type: d.mission_type,
            target: Peer::new(d.target_system, d.target_component),
            crc: item.crc_fields(d.x.to_le_bytes(), d.y.to_le_bytes()),
            item,
            float: true,
        }
    }
}

impl Item {
    fn crc_fields(&self, x: [u8; 4], y: [u8; 4]) -> CrcFields {
        CrcFields {
            frame: self.frame as u8,
            command: self.command as u16,
            autocontinue: self.autocontinue,
            params: self.params,
            x,
            y,
            z: self.z,
        }
    }

    /// The CRC fields of this item as MISSION_ITEM_INT carries it.
    pub fn int_crc_fields(&self) -> CrcFields {
        self.crc_fields(self.x.to_le_bytes(), self.y.to_le_bytes())
    }

    /// MISSION_ITEM_INT for `to`, as item `seq` of `kind` in `frame`.
    pub fn to_int(
        &self,
        seq: u16,
        kind: PlanKind,
        to: Peer,
        frame: MavFrame,
        current: bool,
    ) -> mav::MISSION_ITEM_INT_DATA {
        mav::MISSION_ITEM_INT_DATA {
            param1: self.params[0],
            param2: self.params[1],
            param3: self.params[2],
            param4: self.params[3],
            x: self.x,
            y: self.y,
            z: self.z,
            seq,
            command: self.command,
            target_system: to.system,
            target_component: to.component,
            frame,
            current: u8::from(current),
            autocontinue: self.autocontinue,
            mission_type: kind.to_mav(),
        }
    }

    /// MISSION_ITEM (float) for a peer that asked with MISSION_REQUEST.
    #[allow(deprecated)] // MISSION_ITEM is deprecated, and still answers MISSION_REQUEST
    pub fn to_float(
        &self,
        seq: u16,
        kind: PlanKind,
        to: Peer,
        frame: MavFrame,
        current: bool,
    ) -> mav::MISSION_ITEM_DATA {
        let scale = if is_global(frame) { 1e-7 } else { 1.0 };
        mav::MISSION_ITEM_DATA {
            param1: self.params[0],
            param2: self.params[1],
            param3: self.params[2],
            param4: self.params[3],
            x: (f64::from(self.x) * scale) as f32,
            y: (f64::from(self.y) * scale) as f32,
            z: self.z,
            seq,
            command: self.command,
            target_system: to.system,
            target_component: to.component,
            frame,
            current: u8::from(current),
            autocontinue: self.autocontinue,
            mission_type: kind.to_mav(),
        }
    }

    /// The same item as `core`'s plan-file item, number `seq` of `kind`.
    pub fn to_file(&self, seq: u16, kind: PlanKind) -> mission_file::MissionItem {
        mission_file::MissionItem {
            seq,
            frame: self.frame as u8,
            command: self.command as u16,
            current: self.current,
            autocontinue: self.autocontinue != 0,
            param1: self.params[0],
            param2: self.params[1],
            param3: self.params[2],
            param4: self.params[3],
            x: self.x,
            y: self.y,
            z: self.z,
            mission_type: match kind {
                PlanKind::Mission => mission_file::MissionType::Mission,
                PlanKind::Fence => mission_file::MissionType::Fence,
                PlanKind::Rally => mission_file::MissionType::Rally,
            },
        }
    }
}

/// Whether `frame` carries lat/lon (0, 3, 5, 6, 10, 11).
pub fn is_global(frame: MavFrame) -> bool {
    FrameKind::of(frame as u8).is_some_and(FrameKind::is_global)
}
