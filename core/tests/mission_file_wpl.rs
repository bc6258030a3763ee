//! `QGC WPL 110` files as Mission Planner (missions, with a home line) and MAVProxy (fence
//! and rally lists) write them (`tests/data/mission_file/*.waypoints`): read into the same types
//! as a `.plan`, terrain refused or resolved, and written back equal.

use alpha3_core::mission_file::frame::{self, AltitudeRef};
use alpha3_core::mission_file::{
    At, MissionFileError, MissionItem, ReadOptions, WplFile, read_plan, read_wpl, write_wpl,
};

fn data(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/data/mission_file/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn wpl(name: &str) -> WplFile {
    read_wpl(&data(name), &ReadOptions::default()).expect("reads")
}

fn commands(items: &[MissionItem]) -> Vec<u16> {
    items.iter().map(|item| item.command).collect()
}

#[test]
fn a_mission_planner_wpl_reads_with_its_home_line() {
    let WplFile::Mission(mission) = wpl("mission.waypoints") else {
        panic!("a mission")
    };
    let home = mission.home.expect("home line");
    assert_eq!(
        (home.frame, home.command, home.x, home.z),
        (0, 16, -353_632_621, 584.09)
    );
    assert_eq!(commands(&mission.items), [22, 16, 178, 16, 203, 21]);
    assert_eq!(
        mission
            .items
            .iter()
            .map(|item| item.seq)
            .collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5]
    );
    assert!(mission.items[3].param4.is_nan(), "NaN accepted");
    assert_eq!(
        mission.items[3]
            .altitude()
            .map(|altitude| altitude.reference),
        Some(AltitudeRef::Amsl)
    );
    assert_eq!(
        (mission.items[1].x, mission.items[1].y),
        (-353_641_000, 1_491_658_000)
    );
}

#[test]
fn a_wpl_fence_list_reads_into_the_fence_type() {
    let WplFile::Fence(fence) = wpl("fence.waypoints") else {
        panic!("a fence")
    };
    let shapes: Vec<(bool, usize)> = fence
        .polygons
        .iter()
        .map(|polygon| (polygon.inclusion, polygon.vertices.len()))
        .collect();
    assert_eq!(shapes, [(true, 4), (false, 3)]);
    assert_eq!(fence.polygons[0].vertices[1].lon_deg, 149.17);
    assert_eq!(
        (
            fence.circles.len(),
            fence.circles[0].inclusion,
            fence.circles[0].radius_m
        ),
        (1, false, 30.0)
    );
    let point = fence.breach_return.expect("return point");
    assert_eq!(
        (point.alt_m, point.reference),
        (25.0, AltitudeRef::AboveHome)
    );
}

#[test]
fn a_wpl_rally_list_reads_with_each_points_reference() {
    let WplFile::Rally(points) = wpl("rally.waypoints") else {
        panic!("rally points")
    };
    let read: Vec<(f64, AltitudeRef)> = points
        .iter()
        .map(|point| (point.alt_m, point.reference))
        .collect();
    assert_eq!(
        read,
        [(40.0, AltitudeRef::AboveHome), (620.0, AltitudeRef::Amsl)]
    );
}

#[test]
fn wpl_files_round_trip_by_value_and_our_own_by_byte() {
    for name in ["mission.waypoints", "fence.waypoints", "rally.waypoints"] {
        let first = wpl(name);
        let written = write_wpl(&first).expect("writes");
        let again = read_wpl(written.as_bytes(), &ReadOptions::default()).expect("reads back");
        assert_eq!(again, first, "{name}");
        assert_eq!(write_wpl(&again).expect("writes again"), written, "{name}");
    }
}

#[test]
fn a_plans_fence_survives_a_wpl_list_to_mavlinks_precision() {
    let plan = read_plan(&data("qgc_mission.plan"), &ReadOptions::default()).expect("reads");
    let text = write_wpl(&WplFile::Fence(plan.fence.clone())).expect("writes");
    let WplFile::Fence(fence) = read_wpl(text.as_bytes(), &ReadOptions::default()).expect("reads")
    else {
        panic!("a fence");
    };
    assert_eq!(
        fence, plan.fence,
        "the fixture's coordinates have at most 7 decimals"
    );
}

#[test]
fn a_terrain_frame_is_refused_without_heights_and_made_amsl_with_them() {
    let error = read_wpl(&data("terrain.waypoints"), &ReadOptions::default()).expect_err("refused");
    let at = At::Line {
        line: 4,
        field: None,
    };
    assert_eq!(error, MissionFileError::TerrainFrame { at, frame: 10 });

    let ground = |_lat: f64, _lon: f64| Some(600.0);
    let options = ReadOptions::with_terrain(&ground);
    let WplFile::Mission(mission) = read_wpl(&data("terrain.waypoints"), &options).expect("reads")
    else {
        panic!("a mission");
    };
    let item = mission.items[1];
    assert_eq!((item.frame, item.z), (frame::GLOBAL, 630.0));
}
