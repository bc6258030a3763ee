//! The plan-file item of `core` and the wire item here are the same `MISSION_ITEM_INT`: joined
//! at this edge, so a plan read from a file is uploaded, and a downloaded plan is written or
//! checked, with no second reading of its fields.

use super::item::MissionItem;
use super::kind::MissionKind;
use crate::dialect::mav::{MavCmd, MavFrame};
use alpha3_core::mission_file::{MissionItem as FileItem, MissionType};
use num_traits::{FromPrimitive, ToPrimitive};

/// A file item the dialect cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("item {seq}: MAV_CMD {command} is not in the MAVLink dialect")]
    UnknownCommand { seq: u16, command: u16 },
    #[error("item {seq}: MAV_FRAME {frame} is not in the MAVLink dialect")]
    UnknownFrame { seq: u16, frame: u8 },
}

fn kind_of(t: MissionType) -> MissionKind {
    match t {
        MissionType::Mission => MissionKind::Mission,
        MissionType::Fence => MissionKind::Fence,
        MissionType::Rally => MissionKind::Rally,
    }
}

fn type_of(k: MissionKind) -> MissionType {
    match k {
        MissionKind::Mission => MissionType::Mission,
        MissionKind::Fence => MissionType::Fence,
        MissionKind::Rally => MissionType::Rally,
    }
}

impl TryFrom<&FileItem> for MissionItem {
    type Error = ConvertError;

    fn try_from(f: &FileItem) -> Result<Self, ConvertError> {
        let command = MavCmd::from_u16(f.command).ok_or(ConvertError::UnknownCommand {
            seq: f.seq,
            command: f.command,
        })?;
        let frame = MavFrame::from_u8(f.frame).ok_or(ConvertError::UnknownFrame {
            seq: f.seq,
            frame: f.frame,
        })?;
        Ok(MissionItem {
            seq: f.seq,
            frame,
            command,
            current: f.current,
            autocontinue: f.autocontinue,
            param1: f.param1,
            param2: f.param2,
            param3: f.param3,
            param4: f.param4,
            x: f.x,
            y: f.y,
            z: f.z,
            mission_type: kind_of(f.mission_type),
        })
    }
}

impl From<&MissionItem> for FileItem {
    fn from(w: &MissionItem) -> Self {
        FileItem {
            seq: w.seq,
            // Every dialect value fits: MAV_FRAME < 256 and MAV_CMD < 65536 by definition.
            frame: w.frame.to_u8().unwrap_or(u8::MAX),
            command: w.command.to_u16().unwrap_or(u16::MAX),
            current: w.current,
            autocontinue: w.autocontinue,
            param1: w.param1,
            param2: w.param2,
            param3: w.param3,
            param4: w.param4,
            x: w.x,
            y: w.y,
            z: w.z,
            mission_type: type_of(w.mission_type),
        }
    }
}

/// File items as wire items, in order.
pub fn to_wire(items: &[FileItem]) -> Result<Vec<MissionItem>, ConvertError> {
    items.iter().map(MissionItem::try_from).collect()
}

/// Wire items as file items, in order, renumbered from 0 (ArduPilot's plan items start at 1
/// on the wire, after its home).
pub fn to_file(items: &[MissionItem]) -> Vec<FileItem> {
    items
        .iter()
        .enumerate()
        .map(|(i, w)| FileItem {
            seq: u16::try_from(i).unwrap_or(u16::MAX),
            ..FileItem::from(w)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::mission_file::{ReadOptions, read_plan};

    #[test]
    fn a_plan_read_from_a_file_crosses_to_the_wire_and_back_unchanged() {
        let text = include_str!("../../../core/tests/data/mission_file/px4_mission_geofence.plan");
        let plan = read_plan(text.as_bytes(), &ReadOptions::default()).unwrap();
        for items in [
            plan.mission_items(),
            plan.fence_items().unwrap(),
            plan.rally_items().unwrap(),
        ] {
            let wire = to_wire(&items).unwrap();
            assert_eq!(to_file(&wire), items);
        }
    }

    #[test]
    fn a_number_the_dialect_lacks_is_refused_by_name() {
        let item = FileItem::new(4, 3, 65_000);
        assert_eq!(
            MissionItem::try_from(&item),
            Err(ConvertError::UnknownCommand {
                seq: 4,
                command: 65_000
            })
        );
    }
}
