//! One plan item, field for field what MAVLink's `MISSION_ITEM_INT` carries, so what a file
//! says reaches the autopilot without a second interpretation in between.

use super::frame::{AltitudeRef, FrameKind};

/// Which of the three lists of the mission protocol an item belongs to (`MAV_MISSION_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MissionType {
    Mission = 0,
    Fence = 1,
    Rally = 2,
}

/// A `MISSION_ITEM_INT` without its target ids.
///
/// `seq` is the item's place in its own list from 0, home not counted (PX4's numbering and
/// MAVSDK's import for PX4; ArduPilot's upload puts home at 0 and shifts every item by one).
/// Writers number items by their place and ignore `seq`. `param1..4` and `z` may be NaN ("unset":
/// `null` in a `.plan`, `NaN` in a WPL file); infinities are refused by readers and writers.
/// `x`/`y` are lat/lon degrees ×1e7 for global frames and plain integers for frame 2
/// ([`super::frame::MISSION`]).
#[derive(Debug, Clone, Copy)]
pub struct MissionItem {
    pub seq: u16,
    /// `MAV_FRAME` ([`super::frame`]).
    pub frame: u8,
    /// `MAV_CMD` ([`super::mav_cmd`]).
    pub command: u16,
    /// The item the autopilot starts from.
    pub current: bool,
    pub autocontinue: bool,
    pub param1: f32,
    pub param2: f32,
    pub param3: f32,
    pub param4: f32,
    pub x: i32,
    pub y: i32,
    pub z: f32,
    pub mission_type: MissionType,
}

/// Equal when every field holds the same value, NaN included: a file's NaN means "unset", and
/// two unset parameters are the same plan.
impl PartialEq for MissionItem {
    fn eq(&self, other: &Self) -> bool {
        fn same(a: f32, b: f32) -> bool {
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
        }
        self.seq == other.seq
            && self.frame == other.frame
            && self.command == other.command
            && self.current == other.current
            && self.autocontinue == other.autocontinue
            && same(self.param1, other.param1)
            && same(self.param2, other.param2)
            && same(self.param3, other.param3)
            && same(self.param4, other.param4)
            && self.x == other.x
            && self.y == other.y
            && same(self.z, other.z)
            && self.mission_type == other.mission_type
    }
}

/// An item's altitude with what it is measured from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Altitude {
    pub metres: f32,
    pub reference: AltitudeRef,
}

impl MissionItem {
    /// A mission item with every parameter zero, `autocontinue` set, at `seq`.
    pub fn new(seq: u16, frame: u8, command: u16) -> Self {
        MissionItem {
            seq,
            frame,
            command,
            current: false,
            autocontinue: true,
            param1: 0.0,
            param2: 0.0,
            param3: 0.0,
            param4: 0.0,
            x: 0,
            y: 0,
            z: 0.0,
            mission_type: MissionType::Mission,
        }
    }

    /// The four parameters in order.
    pub fn params(&self) -> [f32; 4] {
        [self.param1, self.param2, self.param3, self.param4]
    }

    /// Latitude and longitude in degrees, for a global frame only.
    pub fn lat_lon_deg(&self) -> Option<(f64, f64)> {
        match FrameKind::of(self.frame) {
            Some(FrameKind::Global(_)) => Some((e7_to_deg(self.x), e7_to_deg(self.y))),
            _ => None,
        }
    }

    /// `z` with its reference, for a global frame only (a frame-2 `z` is no altitude).
    pub fn altitude(&self) -> Option<Altitude> {
        match FrameKind::of(self.frame) {
            Some(FrameKind::Global(reference)) => Some(Altitude {
                metres: self.z,
                reference,
            }),
            _ => None,
        }
    }
}

/// Degrees from the ×1e7 integer MAVLink carries (exact to the last digit of the integer).
pub fn e7_to_deg(value: i32) -> f64 {
    f64::from(value) / 1e7
}

/// The ×1e7 integer nearest to `deg`, `None` when it is not finite or does not fit an `i32`.
pub fn deg_to_e7(deg: f64) -> Option<i32> {
    let scaled = (deg * 1e7).round();
    // `as` saturates; the range test keeps a saturated value from passing as a real one.
    (scaled.is_finite() && scaled >= f64::from(i32::MIN) && scaled <= f64::from(i32::MAX))
        .then_some(scaled as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_round_trip_through_e7() {
        for value in [0, 1, -1, 473_977_507, -1_799_999_999, i32::MAX, i32::MIN] {
            assert_eq!(deg_to_e7(e7_to_deg(value)), Some(value));
        }
        assert_eq!(deg_to_e7(f64::NAN), None);
        assert_eq!(deg_to_e7(215.0), None);
    }

    #[test]
    fn nan_parameters_compare_equal() {
        let mut a = MissionItem::new(0, 3, 16);
        a.param4 = f32::NAN;
        let b = a;
        assert_eq!(a, b);
        let mut c = a;
        c.param4 = 0.0;
        assert_ne!(a, c);
    }
}
