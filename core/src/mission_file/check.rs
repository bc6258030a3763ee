//! The rules every item obeys whichever file it came from or goes to, so a reader and a writer
//! can never disagree about what a valid item is (and a written file always reads back).

use super::error::{At, MissionFileError};
use super::frame::FrameKind;
use super::item::{MissionItem, e7_to_deg};

/// The frame is one we read, no parameter is infinite (NaN is "unset" and allowed), and a
/// global item's lat/lon are on the globe.
pub(crate) fn check_item(item: &MissionItem, at: &At) -> Result<FrameKind, MissionFileError> {
    let kind = FrameKind::of(item.frame).ok_or_else(|| MissionFileError::UnsupportedFrame {
        at: at.clone(),
        frame: item.frame,
    })?;
    for (name, value) in [
        ("param1", item.param1),
        ("param2", item.param2),
        ("param3", item.param3),
        ("param4", item.param4),
        ("z", item.z),
    ] {
        if value.is_infinite() {
            return Err(MissionFileError::invalid(
                at.clone(),
                format!("{name} is infinite"),
            ));
        }
    }
    if kind.is_global() {
        check_lat_lon(e7_to_deg(item.x), e7_to_deg(item.y), at)?;
    }
    Ok(kind)
}

/// Latitude within ±90°, longitude within ±180°, both finite.
pub(crate) fn check_lat_lon(lat_deg: f64, lon_deg: f64, at: &At) -> Result<(), MissionFileError> {
    if !(lat_deg.is_finite() && lat_deg.abs() <= 90.0) {
        return Err(MissionFileError::invalid(
            at.clone(),
            format!("latitude {lat_deg} is outside ±90°"),
        ));
    }
    if !(lon_deg.is_finite() && lon_deg.abs() <= 180.0) {
        return Err(MissionFileError::invalid(
            at.clone(),
            format!("longitude {lon_deg} is outside ±180°"),
        ));
    }
    Ok(())
}

/// A finite number, for altitudes and radii that have no "unset".
pub(crate) fn check_finite(value: f64, what: &str, at: &At) -> Result<f64, MissionFileError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(MissionFileError::invalid(
            at.clone(),
            format!("{what} is not a finite number"),
        ))
    }
}
