//! What one stored mission item asks of the vehicle, read as PX4 and ArduCopter read it
//! (MISSION-FACTS §2, §5): take off, fly to a point (and wait there), land, return, change the
//! cruise speed, or nothing the world flies (skipped). Pure: positions stay in the item's
//! terms until `fly` places them over home.

use crate::endpoint::codec::mav::{MavCmd, MavFrame};
use crate::endpoint::mission::Item as PlanItem;
use crate::endpoint::options::Autopilot;

/// An item's altitude, as its frame means it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Alt {
    /// Metres above home (frames 3/6, ArduPilot's terrain frames 10/11 over flat ground, PX4's
    /// frame 2 for a position item).
    AboveHome(f64),
    /// Metres above mean sea level (frames 0/5, ArduPilot's frame 2 for a position item).
    Amsl(f64),
    /// No usable altitude: where it is.
    Here,
}

/// Where an item points: latitude and longitude in degrees (`None`: where the vehicle is,
/// as for lat/lon 0), and its altitude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Point {
    pub lat_lon: Option<(f64, f64)>,
    pub alt: Alt,
}

/// What the item asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Step {
    /// Straight up to the altitude (both autopilots take off vertically).
    Takeoff(Alt),
    /// To the point; then wait `hold_s` (`None`: for ever).
    Fly {
        to: Point,
        hold_s: Option<f64>,
    },
    Land(Point),
    Return,
    /// DO_CHANGE_SPEED: the new cruise speed, m/s (`None`: unchanged).
    Speed(Option<f64>),
    /// Nothing the world flies (other DO_ and CONDITION_ items, unknown commands).
    Skip,
}

/// What `item` asks of `autopilot`.
pub(super) fn step(item: &PlanItem, autopilot: Autopilot) -> Step {
    let p = item.params;
    let hold = |s: f32| {
        Some(if s.is_finite() {
            f64::from(s.max(0.0))
        } else {
            0.0
        })
    };
    match item.command {
        MavCmd::MAV_CMD_NAV_TAKEOFF => Step::Takeoff(altitude(item, autopilot)),
        // param1: hold time at the waypoint, s.
        MavCmd::MAV_CMD_NAV_WAYPOINT => Step::Fly {
            to: point(item, autopilot),
            hold_s: hold(p[0]),
        },
        // Neither autopilot ever completes LOITER_UNLIM on its own.
        MavCmd::MAV_CMD_NAV_LOITER_UNLIM => Step::Fly {
            to: point(item, autopilot),
            hold_s: None,
        },
        MavCmd::MAV_CMD_NAV_LOITER_TIME => Step::Fly {
            to: point(item, autopilot),
            hold_s: hold(p[0]),
        },
        // ArduCopter's circles are not flown: the centre stands for them (PX4 refuses the item
        // at upload).
        MavCmd::MAV_CMD_NAV_LOITER_TURNS => Step::Fly {
            to: point(item, autopilot),
            hold_s: Some(0.0),
        },
        MavCmd::MAV_CMD_NAV_LAND => Step::Land(point(item, autopilot)),
        MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH => Step::Return,
        // param2: the speed, m/s; -1 or less means unchanged.
        MavCmd::MAV_CMD_DO_CHANGE_SPEED => {
            Step::Speed((p[1].is_finite() && p[1] > 0.0).then_some(f64::from(p[1])))
        }
        _ => Step::Skip,
    }
}

/// Whether the item is a NAV_TAKEOFF (ArduCopter's `is_takeoff_next`).
pub(super) fn is_takeoff(item: &PlanItem) -> bool {
    item.command == MavCmd::MAV_CMD_NAV_TAKEOFF
}

/// Whether the item is something `fly` moves the vehicle for (a navigation command).
pub(super) fn is_nav(item: &PlanItem, autopilot: Autopilot) -> bool {
    !matches!(step(item, autopilot), Step::Speed(_) | Step::Skip)
}

fn point(item: &PlanItem, autopilot: Autopilot) -> Point {
    let (lat, lon) = (f64::from(item.x) * 1e-7, f64::from(item.y) * 1e-7);
    let sane = (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon);
    Point {
        lat_lon: ((item.x, item.y) != (0, 0) && sane).then_some((lat, lon)),
        alt: altitude(item, autopilot),
    }
}

#[allow(deprecated)] // the *_INT frames are deprecated synonyms senders still use
fn altitude(item: &PlanItem, autopilot: Autopilot) -> Alt {
    use MavFrame as F;
    let z = f64::from(item.z);
    if !z.is_finite() {
        return Alt::Here;
    }
    match (item.frame, autopilot) {
        (F::MAV_FRAME_GLOBAL | F::MAV_FRAME_GLOBAL_INT, _) => Alt::Amsl(z),
        (F::MAV_FRAME_GLOBAL_RELATIVE_ALT | F::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, _) => {
            Alt::AboveHome(z)
        }
        (F::MAV_FRAME_GLOBAL_TERRAIN_ALT | F::MAV_FRAME_GLOBAL_TERRAIN_ALT_INT, _) => {
            Alt::AboveHome(z)
        }
        // MISSION-FACTS §2: a position item in frame 2 is relative on PX4, AMSL on ArduPilot.
        (F::MAV_FRAME_MISSION, Autopilot::Px4) => Alt::AboveHome(z),
        (F::MAV_FRAME_MISSION, Autopilot::ArduCopter) => Alt::Amsl(z),
        _ => Alt::Here,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(command: MavCmd, frame: MavFrame, params: [f32; 4], z: f32) -> PlanItem {
        PlanItem {
            frame,
            command,
            current: false,
            autocontinue: 1,
            params,
            x: 473_977_420,
            y: 85_455_940,
            z,
        }
    }

    #[test]
    fn items_read_as_each_autopilot_reads_them() {
        let rel = MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT;
        let wp = item(
            MavCmd::MAV_CMD_NAV_WAYPOINT,
            rel,
            [3.0, 0.0, 0.0, 0.0],
            20.0,
        );
        let Step::Fly { to, hold_s } = step(&wp, Autopilot::Px4) else {
            panic!()
        };
        assert_eq!((to.alt, hold_s), (Alt::AboveHome(20.0), Some(3.0)));
        assert!((to.lat_lon.unwrap().0 - 47.397742).abs() < 1e-9);
        let amsl = item(
            MavCmd::MAV_CMD_NAV_TAKEOFF,
            MavFrame::MAV_FRAME_GLOBAL,
            [0.0; 4],
            500.0,
        );
        assert_eq!(step(&amsl, Autopilot::Px4), Step::Takeoff(Alt::Amsl(500.0)));
        let frame2 = item(
            MavCmd::MAV_CMD_NAV_WAYPOINT,
            MavFrame::MAV_FRAME_MISSION,
            [0.0; 4],
            9.0,
        );
        assert!(
            matches!(step(&frame2, Autopilot::ArduCopter), Step::Fly { to, .. } if to.alt == Alt::Amsl(9.0))
        );
        let mut land = item(MavCmd::MAV_CMD_NAV_LAND, rel, [0.0; 4], 0.0);
        (land.x, land.y) = (0, 0);
        assert_eq!(
            step(&land, Autopilot::Px4),
            Step::Land(Point {
                lat_lon: None,
                alt: Alt::AboveHome(0.0)
            })
        );
        let unlim = item(MavCmd::MAV_CMD_NAV_LOITER_UNLIM, rel, [0.0; 4], 10.0);
        assert!(matches!(
            step(&unlim, Autopilot::Px4),
            Step::Fly { hold_s: None, .. }
        ));
        let speed = item(
            MavCmd::MAV_CMD_DO_CHANGE_SPEED,
            MavFrame::MAV_FRAME_MISSION,
            [1.0, 7.5, -1.0, 0.0],
            0.0,
        );
        assert_eq!(step(&speed, Autopilot::Px4), Step::Speed(Some(7.5)));
        let jump = item(
            MavCmd::MAV_CMD_DO_JUMP,
            MavFrame::MAV_FRAME_MISSION,
            [1.0, 2.0, 0.0, 0.0],
            0.0,
        );
        assert_eq!(step(&jump, Autopilot::Px4), Step::Skip);
        assert!(!is_nav(&jump, Autopilot::Px4) && is_nav(&land, Autopilot::ArduCopter));
    }
}
