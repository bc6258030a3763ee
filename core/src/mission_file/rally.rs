//! Rally points: where a return may go instead of home. A `.plan` holds them relative to home;
//! a WPL list of `NAV_RALLY_POINT` items may hold them AMSL or above terrain, so each point
//! carries its reference.

use super::check::check_item;
use super::error::{At, MissionFileError};
use super::fence::{GeoPoint, point_item, point_of};
use super::item::{MissionItem, MissionType};
use super::limits::MAX_ITEMS;
use super::mav_cmd;
use super::terrain::ReadOptions;

/// The points as RALLY items (frame 3 above home, 0 AMSL), the first `current`.
pub fn rally_to_items(points: &[GeoPoint]) -> Result<Vec<MissionItem>, MissionFileError> {
    if points.len() > MAX_ITEMS {
        return Err(MissionFileError::TooManyItems {
            at: At::File,
            list: "rally",
            max: MAX_ITEMS,
        });
    }
    let mut items = Vec::with_capacity(points.len());
    for (index, point) in points.iter().enumerate() {
        let at = At::Entry {
            list: "rally point",
            index,
        };
        let mut item = point_item(mav_cmd::NAV_RALLY_POINT, point, &at)?;
        item.mission_type = MissionType::Rally;
        item.seq = u16::try_from(index).unwrap_or(u16::MAX);
        item.current = index == 0;
        items.push(item);
    }
    Ok(items)
}

/// Rally points from RALLY items; every item must be a `NAV_RALLY_POINT` in a global frame.
pub fn rally_from_items(
    items: &[MissionItem],
    options: &ReadOptions,
) -> Result<Vec<GeoPoint>, MissionFileError> {
    rally_from_items_at(items, options, |index| At::Entry {
        list: "rally item",
        index,
    })
}

/// [`rally_from_items`] with errors placed by `at`.
pub(crate) fn rally_from_items_at(
    items: &[MissionItem],
    options: &ReadOptions,
    at: impl Fn(usize) -> At,
) -> Result<Vec<GeoPoint>, MissionFileError> {
    if items.len() > MAX_ITEMS {
        return Err(MissionFileError::TooManyItems {
            at: at(MAX_ITEMS),
            list: "rally",
            max: MAX_ITEMS,
        });
    }
    let mut points = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let here = at(index);
        let kind = check_item(item, &here)?;
        if item.command != mav_cmd::NAV_RALLY_POINT {
            return Err(MissionFileError::invalid(
                here.field("COMMAND"),
                format!(
                    "{} ({}) in a rally list, which holds only MAV_CMD_NAV_RALLY_POINT (5100)",
                    mav_cmd::name(item.command).unwrap_or("an unknown MAV_CMD"),
                    item.command
                ),
            ));
        }
        points.push(point_of(item, kind, options, &here)?);
    }
    Ok(points)
}
