//! The plan's route as the autopilot's own mission: the items uploaded for it, the check that
//! the autopilot still holds those items, and where the autopilot is along the route.
//!
//! The items are a take-off above where the vehicle stands, DO_CHANGE_SPEED to the cruise
//! speed the gate judged the route at (the autopilot's own default may be faster, and the
//! gate's margins grow with speed), one NAV_WAYPOINT per route point
//! (2 m acceptance, heights above the autopilot's home), then NAV_RETURN_TO_LAUNCH or NAV_LAND
//! at the last point for the plan's end. ArduPilot numbers its home as item 0 (the client sends
//! it), so the autopilot's current item is one further along there than on PX4.

use alpha3_core::frames::{Enu, LocalFrame};
use alpha3_core::gate::{Route, RouteEnd};
use alpha3_hil::Profile;
use alpha3_hil::dialect::mav::{MavCmd, MavFrame};
use alpha3_hil::mission::{MissionItem, MissionKind};

/// The route a plan episode may hand over, in the mission's frame.
#[derive(Debug, Clone, PartialEq)]
pub struct HandedRoute {
    pub route: Route,
    /// The mission's frame: its origin is the scenario's (0, 0, 0).
    pub frame: LocalFrame,
}

/// Acceptance radius of each uploaded waypoint, metres (ArduCopter's WPNAV_RADIUS default).
const ACCEPT_M: f32 = 2.0;

/// The mission items for `route`, the vehicle at `from` (local), the autopilot's home at
/// `home_amsl_m`, flown at `cruise_mps`.
pub fn route_items(
    h: &HandedRoute,
    from: Enu,
    home_amsl_m: f64,
    cruise_mps: f64,
) -> Vec<MissionItem> {
    let global = |p: Enu, z: f64, command: MavCmd| {
        let g = h.frame.to_geo(Enu::new(p.x, p.y, z));
        let mut item = MissionItem::waypoint(
            MissionKind::Mission,
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            (g.lat_deg * 1e7).round() as i32,
            (g.lon_deg * 1e7).round() as i32,
            (g.alt_amsl_m - home_amsl_m) as f32,
        );
        item.command = command;
        item
    };
    let mut speed =
        MissionItem::waypoint(MissionKind::Mission, MavFrame::MAV_FRAME_MISSION, 0, 0, 0.0);
    speed.command = MavCmd::MAV_CMD_DO_CHANGE_SPEED;
    // Ground speed, the gate's cruise, throttle unchanged.
    (speed.param1, speed.param2, speed.param3) = (1.0, cruise_mps as f32, -1.0);
    let mut items = vec![
        global(from, h.route.takeoff_m, MavCmd::MAV_CMD_NAV_TAKEOFF),
        speed,
    ];
    for p in &h.route.points {
        let mut w = global(p.at, p.at.z, MavCmd::MAV_CMD_NAV_WAYPOINT);
        w.param2 = ACCEPT_M;
        items.push(w);
    }
    match h.route.end {
        RouteEnd::Return => {
            let mut rtl =
                MissionItem::waypoint(MissionKind::Mission, MavFrame::MAV_FRAME_MISSION, 0, 0, 0.0);
            rtl.command = MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH;
            items.push(rtl);
        }
        RouteEnd::Land => {
            if let Some(last) = h.route.points.last() {
                // On the ground under the last point: the height is the ground's, 0 above home.
                let g = h.frame.to_geo(last.at);
                let mut land = global(last.at, 0.0, MavCmd::MAV_CMD_NAV_LAND);
                land.z = 0.0;
                land.x = (g.lat_deg * 1e7).round() as i32;
                land.y = (g.lon_deg * 1e7).round() as i32;
                items.push(land);
            }
        }
        RouteEnd::Stay => {}
    }
    items
}

/// Whether the autopilot's mission `held` is the one uploaded: the same commands at the same
/// places (within 1e-7°, 1 cm of height), in order.
pub fn same_mission(uploaded: &[MissionItem], held: &[MissionItem]) -> bool {
    uploaded.len() == held.len()
        && uploaded.iter().zip(held).all(|(a, b)| {
            a.command == b.command
                && (a.x - b.x).abs() <= 1
                && (a.y - b.y).abs() <= 1
                && (a.z - b.z).abs() <= 0.01
        })
}

/// The route point the autopilot flies to when its current item is `seq`: the take-off, the
/// speed item and everything before them is point 0; past the last point, the number of
/// points.
pub fn next_point(profile: Profile, seq: u16, points: usize) -> usize {
    // The take-off's own number: PX4 counts from 0, ArduPilot's item 0 is home.
    let takeoff = match profile {
        Profile::Px4 => 0,
        Profile::ArduPilot => 1,
    };
    usize::from(seq.saturating_sub(takeoff + 2)).min(points)
}

/// The autopilot's number for the last item of the uploaded mission (`items` long).
pub fn last_item(profile: Profile, items: usize) -> u16 {
    let home = u16::from(profile == Profile::ArduPilot);
    (items as u16).saturating_sub(1) + home
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::frames::Geo;
    use alpha3_core::gate::RoutePoint;

    fn handed(end: RouteEnd) -> HandedRoute {
        HandedRoute {
            route: Route {
                takeoff_m: 20.0,
                points: vec![
                    RoutePoint {
                        at: Enu::new(100.0, 0.0, 20.0),
                        item: Some(1),
                    },
                    RoutePoint {
                        at: Enu::new(100.0, 100.0, 30.0),
                        item: Some(2),
                    },
                ],
                end,
            },
            frame: LocalFrame::new(Geo {
                lat_deg: 47.397742,
                lon_deg: 8.545594,
                alt_amsl_m: 488.0,
            }),
        }
    }

    #[test]
    fn the_items_are_take_off_points_and_the_plans_end_above_the_autopilots_home() {
        let items = route_items(&handed(RouteEnd::Return), Enu::default(), 490.0, 5.0);
        let commands: Vec<MavCmd> = items.iter().map(|i| i.command).collect();
        assert_eq!(
            commands,
            [
                MavCmd::MAV_CMD_NAV_TAKEOFF,
                MavCmd::MAV_CMD_DO_CHANGE_SPEED,
                MavCmd::MAV_CMD_NAV_WAYPOINT,
                MavCmd::MAV_CMD_NAV_WAYPOINT,
                MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH
            ]
        );
        // The frame's origin is 2 m below the autopilot's home: 20 m up is 18 m above home.
        assert_eq!(items[1].param2, 5.0);
        assert!((items[2].z - 18.0).abs() < 1e-3, "{}", items[2].z);
        assert!((items[3].z - 28.0).abs() < 1e-3);
        assert!(items[3].x > items[2].x, "north is further north");
        let land = route_items(&handed(RouteEnd::Land), Enu::default(), 488.0, 5.0);
        assert_eq!(land.last().unwrap().command, MavCmd::MAV_CMD_NAV_LAND);
        assert_eq!(land.last().unwrap().x, land[3].x);
        assert_eq!(
            route_items(&handed(RouteEnd::Stay), Enu::default(), 488.0, 5.0).len(),
            4
        );
    }

    #[test]
    fn a_changed_item_is_another_mission() {
        let a = route_items(&handed(RouteEnd::Return), Enu::default(), 488.0, 5.0);
        assert!(same_mission(&a, &a.clone()));
        let mut b = a.clone();
        b[3].x += 10;
        assert!(!same_mission(&a, &b));
        assert!(!same_mission(&a, &a[..4]));
    }

    #[test]
    fn progress_counts_from_each_autopilots_take_off() {
        assert_eq!(next_point(Profile::Px4, 0, 2), 0);
        assert_eq!(next_point(Profile::Px4, 2, 2), 0);
        assert_eq!(next_point(Profile::Px4, 3, 2), 1);
        assert_eq!(next_point(Profile::Px4, 4, 2), 2);
        assert_eq!(next_point(Profile::ArduPilot, 1, 2), 0);
        assert_eq!(next_point(Profile::ArduPilot, 3, 2), 0);
        assert_eq!(next_point(Profile::ArduPilot, 4, 2), 1);
        assert_eq!(last_item(Profile::Px4, 4), 3);
        assert_eq!(last_item(Profile::ArduPilot, 4), 4);
    }
}
