//! Whether an uploaded item is taken, as each autopilot decides it item by item.
//!
//! PX4 (`parse_mavlink_mission_item`, MM:1399-1647, and the per-plan checks, MM:1143-1222):
//! a global frame (0, 3; 5, 6 only when the peer speaks MISSION_ITEM_INT) takes only its list
//! of position commands, frame 2 only its list of the others; anything else is
//! UNSUPPORTED_FRAME (2) or UNSUPPORTED (3); a fence or rally command inside a mission, or a
//! polygon vertex count below 3, is ERROR (1). Nothing else is checked (no NaN, no lat/lon).
//!
//! ArduPilot (`AP_Mission::mavlink_int_to_mission_cmd`, MIPF, MIPR; MISSION-FACTS §1-3):
//! infinite parameters and NaN ones (but where the command allows it) are INVALID_PARAMn,
//! positions off the globe INVALID_PARAM5_X / 6_Y, a NaN or absurd altitude INVALID_PARAM7,
//! a frame it does not know UNSUPPORTED_FRAME, a command of the wrong plan UNSUPPORTED.
//! Whether a mission command exists in ArduCopter is not checked here (it would refuse
//! commands it does not know with 3).

use super::item::{Item, is_global};
use super::kind::PlanKind;
use crate::endpoint::codec::mav::{MavFrame, MavMissionResult};
use alpha3_core::mission_file::mav_cmd;

use MavMissionResult::*;

/// MAV_ROI_NONE, MAV_ROI_WPNEXT, MAV_ROI_WPINDEX, MAV_ROI_LOCATION.
const ROI_NONE: i32 = 0;
const ROI_WPNEXT: i32 = 1;
const ROI_WPINDEX: i32 = 2;
const ROI_LOCATION: i32 = 3;
/// MAV_CMD_NAV_ROI and MAV_CMD_DO_SET_ROI: param1 is the ROI mode.
const ROI_COMMANDS: [u16; 2] = [80, 201];

/// Commands PX4 takes with a global frame (MM:1438-1546), ROI aside.
const PX4_POSITION: &[u16] = &[
    16,   // NAV_WAYPOINT
    17,   // NAV_LOITER_UNLIM
    19,   // NAV_LOITER_TIME
    21,   // NAV_LAND
    22,   // NAV_TAKEOFF
    31,   // NAV_LOITER_TO_ALT
    84,   // NAV_VTOL_TAKEOFF
    85,   // NAV_VTOL_LAND
    195,  // DO_SET_ROI_LOCATION
    400,  // COMPONENT_ARM_DISARM
    4501, // CONDITION_GATE
    5000, // NAV_FENCE_RETURN_POINT
    5001, // NAV_FENCE_POLYGON_VERTEX_INCLUSION
    5002, // NAV_FENCE_POLYGON_VERTEX_EXCLUSION
    5003, // NAV_FENCE_CIRCLE_INCLUSION
    5004, // NAV_FENCE_CIRCLE_EXCLUSION
    5100, // NAV_RALLY_POINT
];

/// Commands PX4 takes with frame 2 (MM:1575-1640), ROI aside.
const PX4_NO_POSITION: &[u16] = &[
    20,    // NAV_RETURN_TO_LAUNCH
    93,    // NAV_DELAY
    112,   // CONDITION_DELAY
    114,   // CONDITION_DISTANCE
    177,   // DO_JUMP
    178,   // DO_CHANGE_SPEED
    179,   // DO_SET_HOME
    187,   // DO_SET_ACTUATOR
    189,   // DO_LAND_START
    196,   // DO_SET_ROI_WPNEXT_OFFSET
    197,   // DO_SET_ROI_NONE
    200,   // DO_CONTROL_VIDEO
    203,   // DO_DIGICAM_CONTROL
    204,   // DO_MOUNT_CONFIGURE
    205,   // DO_MOUNT_CONTROL
    206,   // DO_SET_CAM_TRIGG_DIST
    211,   // DO_GRIPPER
    214,   // DO_SET_CAM_TRIGG_INTERVAL
    260,   // OBLIQUE_SURVEY
    400,   // COMPONENT_ARM_DISARM
    530,   // SET_CAMERA_MODE
    532,   // SET_CAMERA_FOCUS
    534,   // SET_CAMERA_SOURCE
    1000,  // DO_GIMBAL_MANAGER_PITCHYAW
    1001,  // DO_GIMBAL_MANAGER_CONFIGURE
    2000,  // IMAGE_START_CAPTURE
    2001,  // IMAGE_STOP_CAPTURE
    2003,  // DO_TRIGGER_CONTROL
    2500,  // VIDEO_START_CAPTURE
    2501,  // VIDEO_STOP_CAPTURE
    3000,  // DO_VTOL_TRANSITION
    42600, // DO_WINCH
];

/// PX4: the result of parsing one item; `int_mode` when the peer speaks MISSION_ITEM_INT.
#[allow(deprecated)] // the *_INT frames are deprecated synonyms PX4 still takes
pub fn px4_parse(item: &Item, int_mode: bool) -> Result<(), MavMissionResult> {
    let command = item.command as u16;
    let global = matches!(
        item.frame,
        MavFrame::MAV_FRAME_GLOBAL | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT
    ) || (int_mode
        && matches!(
            item.frame,
            MavFrame::MAV_FRAME_GLOBAL_INT | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
        ));
    // `as i32` truncates toward zero, as PX4's `(int)param1`; NaN becomes 0 here (UB in C).
    let roi = item.params[0] as i32;
    if global {
        return match command {
            c if ROI_COMMANDS.contains(&c) => match roi {
                ROI_LOCATION | ROI_NONE => Ok(()),
                _ => Err(MAV_MISSION_INVALID_PARAM1),
            },
            c if PX4_POSITION.contains(&c) => Ok(()),
            _ => Err(MAV_MISSION_UNSUPPORTED),
        };
    }
    if item.frame == MavFrame::MAV_FRAME_MISSION {
        return match command {
            c if ROI_COMMANDS.contains(&c) => match roi {
                ROI_NONE | ROI_WPNEXT | ROI_WPINDEX => Ok(()),
                _ => Err(MAV_MISSION_INVALID_PARAM1),
            },
            c if PX4_NO_POSITION.contains(&c) => Ok(()),
            _ => Err(MAV_MISSION_UNSUPPORTED),
        };
    }
    Err(MAV_MISSION_UNSUPPORTED_FRAME)
}

/// PX4: whether a parsed item may go into `kind` (a fence or rally command in a mission, or
/// a polygon of fewer than 3 vertices, may not).
pub fn px4_fits(kind: PlanKind, item: &Item) -> bool {
    let command = item.command as u16;
    match kind {
        PlanKind::Mission => {
            !(matches!(
                command,
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION..=mav_cmd::NAV_FENCE_CIRCLE_EXCLUSION
            ) || command == mav_cmd::NAV_RALLY_POINT)
        }
        PlanKind::Fence => {
            let polygon = matches!(
                command,
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION
                    | mav_cmd::NAV_FENCE_POLYGON_VERTEX_EXCLUSION
            );
            // PX4: `(uint16_t)(param1 + 0.5f)`; `as` saturates (NaN and negatives to 0).
            !polygon || (item.params[0] + 0.5) as u16 >= 3
        }
        PlanKind::Rally => true,
    }
}

/// Commands whose item NaN may leave param4 unset in ArduPilot (param3 too for VTOL_LAND).
fn ardupilot_nan_allowed(command: u16, param: usize) -> bool {
    match command {
        16 | 17 | 21 | 22 | 84 => param == 3,
        85 => param == 2 || param == 3,
        _ => false,
    }
}

/// Commands ArduPilot stores with a location (a subset of `stored_in_location`).
fn ardupilot_has_location(command: u16) -> bool {
    matches!(
        command,
        16..=19 | 21 | 22 | 30 | 31 | 80 | 82 | 84 | 85 | 92 | 94 | 179 | 189 | 195 | 201
    )
}

/// ArduPilot: the result of one uploaded item of `kind`.
#[allow(deprecated)] // the *_INT frames are deprecated synonyms ArduPilot still takes
pub fn ardupilot(kind: PlanKind, item: &Item) -> Result<(), MavMissionResult> {
    let command = item.command as u16;
    let fence_command = mav_cmd::is_fence(command);
    let lat_ok = (-900_000_000..=900_000_000).contains(&item.x);
    let lon_ok = (-1_800_000_000..=1_800_000_000).contains(&item.y);
    let known_frame = matches!(
        item.frame,
        MavFrame::MAV_FRAME_GLOBAL
            | MavFrame::MAV_FRAME_GLOBAL_INT
            | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT
            | MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
            | MavFrame::MAV_FRAME_GLOBAL_TERRAIN_ALT
            | MavFrame::MAV_FRAME_GLOBAL_TERRAIN_ALT_INT
    );
    match kind {
        PlanKind::Mission => {
            if fence_command || command == mav_cmd::NAV_RALLY_POINT {
                return Err(MAV_MISSION_UNSUPPORTED);
            }
            const CODES: [MavMissionResult; 4] = [
                MAV_MISSION_INVALID_PARAM1,
                MAV_MISSION_INVALID_PARAM2,
                MAV_MISSION_INVALID_PARAM3,
                MAV_MISSION_INVALID_PARAM4,
            ];
            for (i, (p, code)) in item.params.iter().zip(CODES).enumerate() {
                if p.is_infinite() || (p.is_nan() && !ardupilot_nan_allowed(command, i)) {
                    return Err(code);
                }
            }
            if ardupilot_has_location(command) {
                if !lat_ok {
                    return Err(MAV_MISSION_INVALID_PARAM5_X);
                }
                if !lon_ok {
                    return Err(MAV_MISSION_INVALID_PARAM6_Y);
                }
                // LOCATION_ALT_MAX_M: ArduPilot keeps altitudes in cm in an int32.
                if item.z.is_nan() || item.z.abs() >= 83_000.0 {
                    return Err(MAV_MISSION_INVALID_PARAM7);
                }
                if !(known_frame || item.frame == MavFrame::MAV_FRAME_MISSION) {
                    return Err(MAV_MISSION_UNSUPPORTED_FRAME);
                }
            }
            Ok(())
        }
        PlanKind::Fence => {
            if !known_frame {
                return Err(MAV_MISSION_UNSUPPORTED_FRAME);
            }
            if !fence_command {
                return Err(MAV_MISSION_UNSUPPORTED);
            }
            let polygon = matches!(
                command,
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION
                    | mav_cmd::NAV_FENCE_POLYGON_VERTEX_EXCLUSION
            );
            if polygon && item.params[0] > 255.0 {
                return Err(MAV_MISSION_INVALID_PARAM1);
            }
            Ok(())
        }
        PlanKind::Rally => {
            if command != mav_cmd::NAV_RALLY_POINT {
                return Err(MAV_MISSION_UNSUPPORTED);
            }
            if !lat_ok {
                return Err(MAV_MISSION_INVALID_PARAM5_X);
            }
            if !lon_ok {
                return Err(MAV_MISSION_INVALID_PARAM6_Y);
            }
            if !(f32::from(i16::MIN)..=f32::from(i16::MAX)).contains(&item.z) {
                return Err(MAV_MISSION_INVALID_PARAM7);
            }
            if !is_global(item.frame) {
                return Err(MAV_MISSION_UNSUPPORTED_FRAME);
            }
            Ok(())
        }
    }
}
