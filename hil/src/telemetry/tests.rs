use super::*;
use crate::profile::px4::px4_custom_mode;
use alpha3_core::frames::Enu;

const HOME: Geo = Geo {
    lat_deg: 47.397742,
    lon_deg: 8.545594,
    alt_amsl_m: 488.0,
};

fn home_msg(home: Geo, local: [f32; 3]) -> MavMessage {
    MavMessage::HOME_POSITION(mav::HOME_POSITION_DATA {
        latitude: (home.lat_deg * 1e7).round() as i32,
        longitude: (home.lon_deg * 1e7).round() as i32,
        altitude: (home.alt_amsl_m * 1e3) as i32,
        x: local[0],
        y: local[1],
        z: local[2],
        ..Default::default()
    })
}

fn global_at(p: Geo, vel_ned_cms: [i16; 3], hdg_cdeg: u16) -> MavMessage {
    MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
        time_boot_ms: 0,
        lat: (p.lat_deg * 1e7).round() as i32,
        lon: (p.lon_deg * 1e7).round() as i32,
        alt: (p.alt_amsl_m * 1e3).round() as i32,
        relative_alt: 0,
        vx: vel_ned_cms[0],
        vy: vel_ned_cms[1],
        vz: vel_ned_cms[2],
        hdg: hdg_cdeg,
    })
}

#[test]
fn heartbeat_gives_armed_and_mode_through_the_profile() {
    let mut t = TelemetryCache::new();
    let hb = MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
        custom_mode: px4_custom_mode(4, 3),
        mavtype: mav::MavType::MAV_TYPE_QUADROTOR,
        autopilot: mav::MavAutopilot::MAV_AUTOPILOT_PX4,
        base_mode: mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED
            | mav::MavModeFlag::MAV_MODE_FLAG_CUSTOM_MODE_ENABLED,
        system_status: mav::MavState::MAV_STATE_ACTIVE,
        mavlink_version: 3,
    });
    assert!(t.fold(7, &hb, Some(Profile::Px4)));
    let s = t.snapshot();
    assert!(s.armed);
    assert_eq!(s.mode, FlightMode::Hold);
    // The heartbeat says the autopilot lives, not that its estimate is new: no stamp.
    assert_eq!(s.time_ms, 0);
    assert!(t.seen().heartbeat);
}

#[test]
fn positions_are_relative_to_home_and_follow_a_new_home() {
    let mut t = TelemetryCache::new();
    t.fold(1, &home_msg(HOME, [1.0, 2.0, -0.5]), None);
    let frame = LocalFrame::new(HOME);
    let there = frame.to_geo(Enu::new(30.0, 40.0, 12.0));
    t.fold(2, &global_at(there, [100, -200, -50], 9000), None);
    let s = t.snapshot();
    assert!(
        s.position.distance(Enu::new(30.0, 40.0, 12.0)) < 0.05,
        "{:?}",
        s.position
    );
    assert_eq!(s.velocity, Enu::new(-2.0, 1.0, 0.5));
    assert_eq!(s.yaw_deg, 90.0);
    assert_eq!(t.home_local(), Ned::new(1.0, 2.0, -0.5));
    // PX4 moves home when it arms somewhere else: the same point is now elsewhere locally.
    let new_home = frame.to_geo(Enu::new(30.0, 40.0, 0.0));
    t.fold(3, &home_msg(new_home, [0.0; 3]), None);
    let s = t.snapshot();
    assert!(
        s.position.distance(Enu::new(0.0, 0.0, 12.0)) < 0.05,
        "{:?}",
        s.position
    );
    assert!((s.home.lat_deg - new_home.lat_deg).abs() < 1e-7);
}

#[test]
fn battery_landed_state_and_gnss() {
    let mut t = TelemetryCache::new();
    t.fold(
        1,
        &MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
            voltage_battery: 15_800,
            current_battery: 1234,
            battery_remaining: 80,
            ..Default::default()
        }),
        None,
    );
    let s = t.snapshot();
    assert_eq!((s.battery.voltage_v, s.battery.remaining_pct), (15.8, 80.0));
    assert!((s.battery.current_a - 12.34).abs() < 1e-9);
    t.fold(
        2,
        &MavMessage::BATTERY_STATUS(mav::BATTERY_STATUS_DATA {
            battery_remaining: 55,
            current_battery: -1,
            ..Default::default()
        }),
        None,
    );
    t.fold(
        3,
        &MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
            voltage_battery: u16::MAX,
            current_battery: -1,
            battery_remaining: 80,
            ..Default::default()
        }),
        None,
    );
    let s = t.snapshot();
    assert_eq!(
        s.battery.remaining_pct, 55.0,
        "BATTERY_STATUS wins once seen"
    );
    assert_eq!(
        s.battery.voltage_v, 15.8,
        "unknown voltage keeps the last one"
    );
    t.fold(
        4,
        &MavMessage::EXTENDED_SYS_STATE(mav::EXTENDED_SYS_STATE_DATA {
            landed_state: mav::MavLandedState::MAV_LANDED_STATE_IN_AIR,
            ..Default::default()
        }),
        None,
    );
    t.fold(
        5,
        &MavMessage::GPS_RAW_INT(mav::GPS_RAW_INT_DATA {
            fix_type: mav::GpsFixType::GPS_FIX_TYPE_RTK_FIXED,
            satellites_visible: 21,
            eph: 70,
            h_acc: 20,
            ..Default::default()
        }),
        None,
    );
    let s = t.snapshot();
    assert_eq!(s.landed, LandedState::InAir);
    assert_eq!(s.gnss.fix, FixType::RtkFixed);
    assert_eq!(s.gnss.satellites, 21);
    assert!((s.gnss.eph_m - 0.02).abs() < 1e-12);
}

#[test]
fn every_input_stays_unreported_until_its_own_message_comes() {
    let mut t = TelemetryCache::new();
    assert_eq!(t.snapshot().unreported, Unreported::ALL);
    // A battery of unknown charge (-1) is not a report.
    t.fold(
        1,
        &MavMessage::SYS_STATUS(mav::SYS_STATUS_DATA {
            battery_remaining: -1,
            ..Default::default()
        }),
        None,
    );
    assert!(t.snapshot().unreported.battery);
    t.fold(
        2,
        &MavMessage::BATTERY_STATUS(mav::BATTERY_STATUS_DATA {
            battery_remaining: 90,
            ..Default::default()
        }),
        None,
    );
    assert_eq!(
        t.snapshot().unreported.names(),
        ["position", "home", "GNSS fix", "landed state"]
    );
    t.fold(3, &home_msg(HOME, [0.0; 3]), None);
    // ArduPilot's GLOBAL_POSITION_INT before it has a position: all zeros.
    let nowhere = Geo {
        lat_deg: 0.0,
        lon_deg: 0.0,
        alt_amsl_m: 0.0,
    };
    assert!(!t.fold(4, &global_at(nowhere, [0; 3], 0), None));
    assert!(t.snapshot().unreported.position);
    t.fold(4, &global_at(HOME, [0; 3], 0), None);
    t.fold(
        5,
        &MavMessage::GPS_RAW_INT(mav::GPS_RAW_INT_DATA {
            fix_type: mav::GpsFixType::GPS_FIX_TYPE_NO_FIX,
            ..Default::default()
        }),
        None,
    );
    assert_eq!(t.snapshot().unreported.names(), ["landed state"]);
    // UNDEFINED does not say whether it flies.
    let landed = |state| {
        MavMessage::EXTENDED_SYS_STATE(mav::EXTENDED_SYS_STATE_DATA {
            landed_state: state,
            ..Default::default()
        })
    };
    t.fold(
        6,
        &landed(mav::MavLandedState::MAV_LANDED_STATE_UNDEFINED),
        None,
    );
    assert!(t.snapshot().unreported.landed);
    t.fold(
        7,
        &landed(mav::MavLandedState::MAV_LANDED_STATE_ON_GROUND),
        None,
    );
    assert!(t.snapshot().unreported.is_empty());
    assert_eq!(t.snapshot().gnss.fix, FixType::None, "reported: no fix");
}

#[test]
fn a_new_origin_re_anchors_the_newest_position_at_once() {
    let mut t = TelemetryCache::new();
    t.fold(1, &home_msg(HOME, [0.0, 0.0, 0.0]), None);
    let at_home = HOME;
    t.fold(2, &global_at(at_home, [0, 0, 0], 0), None);
    assert!(
        t.snapshot()
            .position
            .horizontal_distance(Enu::new(0.0, 0.0, 0.0))
            < 1e-6
    );
    // The mission's origin 100 m west and 50 m south of home: home is (100, 50) in it.
    let origin = LocalFrame::new(HOME).to_geo(Enu::new(-100.0, -50.0, 0.0));
    t.set_origin(Some(origin));
    let p = t.snapshot().position;
    assert!(
        p.horizontal_distance(Enu::new(100.0, 50.0, 0.0)) < 0.01,
        "{p:?}"
    );
    assert!(p.z.abs() < 1e-6);
    // A home that moves (PX4 re-homes at every arming) leaves a fixed origin alone.
    let moved = LocalFrame::new(HOME).to_geo(Enu::new(30.0, 0.0, 0.0));
    t.fold(3, &home_msg(moved, [30.0, 0.0, 0.0]), None);
    let p = t.snapshot().position;
    assert!(
        p.horizontal_distance(Enu::new(100.0, 50.0, 0.0)) < 0.01,
        "{p:?}"
    );
    // Back to home-relative.
    t.set_origin(None);
    let p = t.snapshot().position;
    assert!(
        p.horizontal_distance(Enu::new(-30.0, 0.0, 0.0)) < 0.01,
        "{p:?}"
    );
}
