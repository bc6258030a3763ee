//! Plans in and out: QGroundControl `.plan` and `QGC WPL 110` files read, reported and written
//! back, on files in the shapes QGC, Mission Planner, MAVProxy and PX4's own tests write
//! (`tests/data/mission_file/`), and on everything a file could get wrong.

use alpha3_core::mission_file::frame::{self, AltitudeRef};
use alpha3_core::mission_file::limits::{MAX_ITEMS, MAX_PLAN_BYTES, MAX_PLAN_VALUES};
use alpha3_core::mission_file::{
    At, Flight, Handling, MissionFileError, MissionItem, MissionType, PlanFile, PlanItem,
    ReadOptions, Refusal, WplFile, WplMission, mav_cmd, read_plan, read_wpl, report, write_plan,
    write_wpl,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn data(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/data/mission_file/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn plan(name: &str) -> PlanFile {
    read_plan(&data(name), &ReadOptions::default()).expect("reads")
}

/// A `.plan` fixture as JSON, edited by `edit`, read back.
fn edited_plan(name: &str, edit: impl FnOnce(&mut Value)) -> Result<PlanFile, MissionFileError> {
    let mut value: Value = serde_json::from_slice(&data(name)).expect("fixture is JSON");
    edit(&mut value);
    read_plan(
        &serde_json::to_vec(&value).expect("serialises"),
        &ReadOptions::default(),
    )
}

/// Removes `key` from a JSON object.
fn remove(value: &mut Value, key: &str) {
    if let Some(object) = value.as_object_mut() {
        object.remove(key);
    }
}

fn commands(items: &[MissionItem]) -> Vec<u16> {
    items.iter().map(|item| item.command).collect()
}

// ---- .plan ----------------------------------------------------------------------------------

#[test]
fn a_qgc_plan_reads_into_mission_items_fence_and_rally() {
    let plan = plan("qgc_mission.plan");
    let items = plan.mission_items();
    assert_eq!(
        commands(&items),
        [22, 16, 178, 16, 2000, 16, 19, 115, 177, 211, 20]
    );
    assert_eq!(plan.mission.firmware_type, 12);
    assert_eq!(plan.mission.vehicle_type, Some(2));
    assert_eq!(plan.mission.cruise_speed_mps, Some(15.0));
    assert_eq!(plan.mission.planned_home.alt_amsl_m, 488.2);
    // seq by place, the first current, lat/lon ×1e7, null → NaN.
    let takeoff = items[0];
    assert_eq!((takeoff.seq, takeoff.current, takeoff.frame), (0, true, 3));
    assert_eq!(
        (takeoff.x, takeoff.y, takeoff.z),
        (473_977_419, 85_455_938, 15.0)
    );
    assert!(takeoff.param4.is_nan());
    assert!(items[1..].iter().all(|item| !item.current));
    // The DO_JUMP keeps QGC's doJumpId target and repeat count; frame 2 x/y are plain.
    let jump = items[8];
    assert_eq!(
        (jump.param1, jump.param2, jump.frame, jump.x),
        (2.0, 1.0, 2, 0)
    );
    assert_eq!(plan.mission.items[8].do_jump_id, Some(9));
    // Editor metadata kept, not trusted.
    assert_eq!(
        plan.mission.items[0].extra.get("AltitudeMode"),
        Some(&json!(1))
    );
    assert_eq!(
        plan.extra.get("groundStation"),
        Some(&json!("QGroundControl"))
    );
    assert_eq!(
        plan.mission.extra.get("globalPlanAltitudeMode"),
        Some(&json!(1))
    );

    let fence = &plan.fence;
    let shapes: Vec<(bool, usize)> = fence
        .polygons
        .iter()
        .map(|polygon| (polygon.inclusion, polygon.vertices.len()))
        .collect();
    assert_eq!(shapes, [(true, 4), (false, 3)]);
    assert_eq!(fence.circles.len(), 1);
    assert!(!fence.circles[0].inclusion);
    assert_eq!(fence.circles[0].radius_m, 25.5);
    assert_eq!(plan.rally.len(), 2);
    assert!(
        plan.rally
            .iter()
            .all(|point| point.reference == AltitudeRef::AboveHome)
    );
    assert_eq!(plan.rally[1].alt_m, 25.5);
}

#[test]
fn fence_and_rally_become_the_items_qgc_uploads() {
    let plan = plan("qgc_mission.plan");
    let fence = plan.fence_items().expect("fence items");
    assert_eq!(
        commands(&fence),
        [5001, 5001, 5001, 5001, 5002, 5002, 5002, 5004]
    );
    assert!(
        fence
            .iter()
            .all(|item| item.mission_type == MissionType::Fence && item.frame == frame::GLOBAL)
    );
    assert!(fence[..4].iter().all(|item| item.param1 == 4.0));
    assert_eq!(fence[7].param1, 25.5);
    let rally = plan.rally_items().expect("rally items");
    assert_eq!(commands(&rally), [5100, 5100]);
    assert!(
        rally
            .iter()
            .all(|item| item.frame == frame::GLOBAL_RELATIVE_ALT
                && item.mission_type == MissionType::Rally)
    );
}

#[test]
fn px4s_test_plan_shape_gives_5_mission_and_9_fence_items() {
    let plan = plan("px4_mission_geofence.plan");
    assert_eq!(plan.mission_items().len(), 5);
    assert_eq!(plan.fence_items().expect("fence").len(), 9);
    assert!(plan.rally.is_empty());
    // Sub-1e7 digits are rounded to what MAVLink carries.
    assert_eq!(
        (plan.mission_items()[1].x, plan.mission_items()[1].y),
        (473_966_123, 85_445_012)
    );
    assert_eq!(
        plan.extra.get("UUID").and_then(Value::as_str).map(str::len),
        Some(40)
    );
    assert_eq!(plan.mission.items[4].extra.get("groupTag"), Some(&json!(6)));
}

#[test]
fn a_plan_round_trips_by_value_and_our_own_file_by_byte() {
    for name in [
        "qgc_mission.plan",
        "px4_mission_geofence.plan",
        "survey.plan",
    ] {
        let first = plan(name);
        let written = write_plan(&first).expect("writes");
        let again = read_plan(written.as_bytes(), &ReadOptions::default()).expect("reads back");
        assert_eq!(again.mission_items(), first.mission_items(), "{name}");
        assert_eq!(again.fence, first.fence, "{name}");
        assert_eq!(again.rally, first.rally, "{name}");
        assert_eq!(again.mission.items, first.mission.items, "{name}");
        assert_eq!(write_plan(&again).expect("writes again"), written, "{name}");
    }
    // Written in QGC's own layout, a canonical QGC file comes back byte for byte.
    let original = String::from_utf8(data("qgc_mission.plan")).expect("utf-8");
    assert_eq!(
        write_plan(&plan("qgc_mission.plan")).expect("writes"),
        original
    );
}

#[test]
fn a_survey_is_expanded_from_its_precomputed_items() {
    let plan = plan("survey.plan");
    let items = plan.mission_items();
    assert_eq!(
        commands(&items),
        [22, 16, 206, 16, 206, 16, 206, 16, 206, 20]
    );
    assert_eq!(
        items.iter().map(|item| item.seq).collect::<Vec<_>>(),
        (0..10).collect::<Vec<u16>>()
    );
}

#[test]
fn complex_items_other_than_a_survey_are_refused_by_name() {
    for kind in [
        "CorridorScan",
        "StructureScan",
        "fwLandingPattern",
        "vtolLandingPattern",
    ] {
        let error = edited_plan("survey.plan", |plan| {
            plan["mission"]["items"][1]["complexItemType"] = json!(kind)
        })
        .expect_err("refused");
        assert_eq!(
            error,
            MissionFileError::UnsupportedComplexItem {
                at: At::Json("mission.items[1]".into()),
                kind: kind.into()
            }
        );
        assert!(error.to_string().contains(kind), "{error}");
    }
    let error = edited_plan("survey.plan", |plan| {
        plan["mission"]["items"][1]["version"] = json!(4)
    })
    .expect_err("v4");
    assert!(
        matches!(error, MissionFileError::Version { at: At::Json(ref path), .. } if path == "mission.items[1].version")
    );
}

// ---- frames and terrain ---------------------------------------------------------------------

#[test]
fn relative_and_amsl_frames_are_kept_as_such() {
    let items = plan("qgc_mission.plan").mission_items();
    let relative = items[1].altitude().expect("global");
    assert_eq!(
        (relative.metres, relative.reference),
        (20.0, AltitudeRef::AboveHome)
    );
    let amsl = items[5].altitude().expect("global");
    assert_eq!(
        (items[5].frame, amsl.metres, amsl.reference),
        (frame::GLOBAL, 513.5, AltitudeRef::Amsl)
    );
    assert_eq!(items[2].altitude(), None, "frame 2 has no altitude");
    for (frame, reference) in [(5, AltitudeRef::Amsl), (6, AltitudeRef::AboveHome)] {
        let plan = edited_plan("qgc_mission.plan", |plan| {
            plan["mission"]["items"][1]["frame"] = json!(frame)
        })
        .expect("reads");
        let item = plan.mission_items()[1];
        assert_eq!(
            (
                item.frame,
                item.altitude().map(|altitude| altitude.reference)
            ),
            (frame, Some(reference))
        );
    }
}

#[test]
fn a_terrain_frame_is_refused_without_terrain_heights_and_resolved_with_them() {
    let to_terrain =
        |frame: u8| move |plan: &mut Value| plan["mission"]["items"][1]["frame"] = json!(frame);
    let error = edited_plan("qgc_mission.plan", to_terrain(10)).expect_err("refused");
    let at = At::Json("mission.items[1]".into());
    assert_eq!(error, MissionFileError::TerrainFrame { at, frame: 10 });
    assert!(error.to_string().contains("terrain"), "{error}");

    let mut json: Value = serde_json::from_slice(&data("qgc_mission.plan")).expect("json");
    to_terrain(11)(&mut json);
    let bytes = serde_json::to_vec(&json).expect("json");
    let ground = |_lat: f64, _lon: f64| Some(600.0);
    let plan = read_plan(&bytes, &ReadOptions::with_terrain(&ground)).expect("reads");
    let item = plan.mission_items()[1];
    assert_eq!((item.frame, item.z), (frame::GLOBAL_INT, 620.0));
    let nowhere = |_lat: f64, _lon: f64| None;
    let error = read_plan(&bytes, &ReadOptions::with_terrain(&nowhere)).expect_err("unknown");
    assert!(
        matches!(error, MissionFileError::TerrainUnknown { .. }),
        "{error}"
    );
}

// ---- what we fly, keep and refuse -----------------------------------------------------------

#[test]
fn every_item_is_reported_by_name() {
    let lines: Vec<String> = report(&plan("qgc_mission.plan").mission_items())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "item 0: MAV_CMD_NAV_TAKEOFF: flown",
            "item 1: MAV_CMD_NAV_WAYPOINT: flown",
            "item 2: MAV_CMD_DO_CHANGE_SPEED: kept",
            "item 3: MAV_CMD_NAV_WAYPOINT: flown",
            "item 4: MAV_CMD_IMAGE_START_CAPTURE: kept",
            "item 5: MAV_CMD_NAV_WAYPOINT: flown",
            "item 6: MAV_CMD_NAV_LOITER_TIME: flown as hold",
            "item 7: MAV_CMD_CONDITION_YAW: kept",
            "item 8: MAV_CMD_DO_JUMP: kept",
            "item 9: MAV_CMD_DO_GRIPPER: kept",
            "item 10: MAV_CMD_NAV_RETURN_TO_LAUNCH: flown",
        ]
    );
}

#[test]
fn unknown_commands_fence_points_and_frameless_positions_are_refused() {
    let mut unknown = MissionItem::new(0, frame::MISSION, 31_337);
    let mut vertex = MissionItem::new(
        1,
        frame::GLOBAL,
        mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION,
    );
    let frameless = MissionItem::new(2, frame::MISSION, mav_cmd::NAV_WAYPOINT);
    let mut rally = MissionItem::new(3, frame::GLOBAL_RELATIVE_ALT, mav_cmd::NAV_WAYPOINT);
    rally.mission_type = MissionType::Rally;
    let terrain = MissionItem::new(4, frame::GLOBAL_TERRAIN_ALT, mav_cmd::NAV_TAKEOFF);
    let rtl = MissionItem::new(5, frame::GLOBAL_RELATIVE_ALT, mav_cmd::NAV_RETURN_TO_LAUNCH);
    unknown.param1 = 1.0;
    vertex.param1 = 3.0;
    let reports = report(&[unknown, vertex, frameless, rally, terrain, rtl]);
    let handling: Vec<Handling> = reports.iter().map(|line| line.handling).collect();
    assert_eq!(
        handling,
        [
            Handling::Refused(Refusal::UnknownCommand),
            Handling::Refused(Refusal::WrongList),
            Handling::Refused(Refusal::NoAltitudeFrame),
            Handling::Refused(Refusal::NotAMissionItem),
            Handling::Refused(Refusal::TerrainAltitude),
            Handling::Flown(Flight::ReturnToLaunch),
        ]
    );
    assert_eq!(
        reports[0].to_string(),
        "item 0: MAV_CMD 31337 (unknown): refused (no dialect names it)"
    );
    assert_eq!(
        reports[1].name,
        Some("MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION")
    );
}

// ---- malformed input: errors, never panics --------------------------------------------------

/// A change to a `.plan` fixture's JSON.
type Edit = Box<dyn FnOnce(&mut Value)>;

/// The error's variant name (from its `Debug` form) and place, for one-line expectations.
fn variant_at<T: std::fmt::Debug>(result: Result<T, MissionFileError>) -> (String, Option<At>) {
    let error = result.expect_err("an error");
    let debug = format!("{error:?}");
    let name = debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or_default()
        .to_string();
    (name, error.at().cloned())
}

fn json_at(path: &str) -> Option<At> {
    Some(At::Json(path.into()))
}

fn line_at(line: usize, field: Option<&'static str>) -> Option<At> {
    Some(At::Line { line, field })
}

#[test]
fn malformed_plans_give_typed_errors() {
    let full = data("qgc_mission.plan");
    let truncated = read_plan(&full[..full.len() / 2], &ReadOptions::default());
    assert!(matches!(truncated, Err(MissionFileError::JsonSyntax { line, .. }) if line > 1));
    let not_utf8 = read_plan(b"{\"fileType\": \"\xff\"}", &ReadOptions::default());
    assert_eq!(variant_at(not_utf8), ("NotUtf8".into(), line_at(1, None)));

    fn item(plan: &mut Value) -> &mut Value {
        &mut plan["mission"]["items"][3]
    }
    #[rustfmt::skip]
    let cases: Vec<(&str, Edit, &str, Option<At>)> = vec![
        ("plan version", Box::new(|p| p["version"] = json!(2)), "Version", json_at("version")),
        ("file type", Box::new(|p| p["fileType"] = json!("Mission")), "Version", json_at("fileType")),
        ("mission v1", Box::new(|p| p["mission"]["version"] = json!(1)), "Version", json_at("mission.version")),
        ("fence v1", Box::new(|p| p["geoFence"]["version"] = json!(1)), "Version", json_at("geoFence.version")),
        ("rally v1", Box::new(|p| p["rallyPoints"]["version"] = json!(1)), "Version", json_at("rallyPoints.version")),
        ("no geoFence", Box::new(|p| remove(p, "geoFence")), "Missing", json_at("geoFence")),
        ("no rally", Box::new(|p| remove(p, "rallyPoints")), "Missing", json_at("rallyPoints")),
        ("no mission", Box::new(|p| remove(p, "mission")), "Missing", json_at("mission")),
        ("no home", Box::new(|p| remove(&mut p["mission"], "plannedHomePosition")), "Missing", json_at("mission.plannedHomePosition")),
        ("6 params", Box::new(|p| item(p)["params"] = json!([0, 0, 0, 0, 47.0, 8.0])), "Invalid", json_at("mission.items[3].params")),
        ("text param", Box::new(|p| item(p)["params"][2] = json!("x")), "Invalid", json_at("mission.items[3].params[2]")),
        ("huge param", Box::new(|p| item(p)["params"][0] = json!(1e300)), "Invalid", json_at("mission.items[3].params[0]")),
        ("lat 91", Box::new(|p| item(p)["params"][4] = json!(91.0)), "Invalid", json_at("mission.items[3]")),
        ("frame 1", Box::new(|p| item(p)["frame"] = json!(1)), "UnsupportedFrame", json_at("mission.items[3].frame")),
        ("command -1", Box::new(|p| item(p)["command"] = json!(-1)), "Invalid", json_at("mission.items[3].command")),
        ("item type", Box::new(|p| item(p)["type"] = json!("Other")), "Invalid", json_at("mission.items[3].type")),
        ("2 vertices", Box::new(|p| p["geoFence"]["polygons"][1]["polygon"] = json!([[47.0, 8.0], [47.1, 8.0]])), "Invalid", json_at("geoFence.polygons[1].polygon")),
        ("no inclusion", Box::new(|p| remove(&mut p["geoFence"]["circles"][0], "inclusion")), "Missing", json_at("geoFence.circles[0].inclusion")),
        ("radius 0", Box::new(|p| p["geoFence"]["circles"][0]["circle"]["radius"] = json!(0)), "Invalid", json_at("geoFence.circles[0].circle.radius")),
        ("rally pair", Box::new(|p| p["rallyPoints"]["points"][1] = json!([47.0, 8.0])), "Invalid", json_at("rallyPoints.points[1]")),
    ];
    for (what, edit, variant, at) in cases {
        let got = variant_at(edited_plan("qgc_mission.plan", edit));
        assert_eq!(got, (variant.to_string(), at), "{what}");
    }
}

#[test]
fn huge_plans_are_refused_before_they_are_built() {
    let too_large = vec![b' '; MAX_PLAN_BYTES + 1];
    let got = variant_at(read_plan(&too_large, &ReadOptions::default()));
    assert_eq!(got, ("TooLarge".into(), None));
    let many_values = format!("[{}0]", "0,".repeat(MAX_PLAN_VALUES));
    let got = variant_at(read_plan(many_values.as_bytes(), &ReadOptions::default()));
    assert_eq!(got, ("TooComplex".into(), None));
    let too_many = edited_plan("qgc_mission.plan", |plan| {
        let item = plan["mission"]["items"][1].clone();
        plan["mission"]["items"] = Value::Array(vec![item; MAX_ITEMS + 1]);
    });
    let at = json_at(&format!("mission.items[{MAX_ITEMS}]"));
    assert_eq!(variant_at(too_many), ("TooManyItems".into(), at));
}

#[test]
fn malformed_wpl_files_give_typed_errors() {
    let home = "0\t1\t0\t16\t0\t0\t0\t0\t47.39\t8.54\t488\t1\n";
    let with_home = |line: &str| format!("QGC WPL 110\n{home}{line}\n");
    let fence = |lines: &str| format!("QGC WPL 110\n{lines}");
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &str, Option<At>)> = vec![
        ("11 fields", with_home("1\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20"), "FieldCount", line_at(3, None)),
        ("13 fields", with_home("1\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1\t1"), "FieldCount", line_at(3, None)),
        ("spaces", with_home("1 0 3 16 0 0 0 0 47.39 8.54 20 1"), "FieldCount", line_at(3, None)),
        ("WPL 120", "QGC WPL 120\n".into(), "Header", None),
        ("empty", String::new(), "Header", None),
        ("gap", with_home("2\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1"), "Invalid", line_at(3, Some("INDEX"))),
        ("inf", with_home("1\t0\t3\t16\tinf\t0\t0\t0\t47.39\t8.54\t20\t1"), "Invalid", line_at(3, Some("P1"))),
        ("NaN lat", with_home("1\t0\t3\t16\t0\t0\t0\t0\tNaN\t8.54\t20\t1"), "Invalid", line_at(3, Some("X"))),
        ("lat 91", with_home("1\t0\t3\t16\t0\t0\t0\t0\t91\t8.54\t20\t1"), "Invalid", line_at(3, None)),
        ("current 2", with_home("1\t2\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1"), "Invalid", line_at(3, Some("CURRENT"))),
        ("frame 1", with_home("1\t0\t1\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1"), "UnsupportedFrame", line_at(3, Some("FRAME"))),
        ("command 70000", with_home("1\t0\t3\t70000\t0\t0\t0\t0\t47.39\t8.54\t20\t1"), "Invalid", line_at(3, Some("COMMAND"))),
        ("huge index", fence("99999999999\t1\t0\t16\t0\t0\t0\t0\t47.39\t8.54\t488\t1\n"), "Invalid", line_at(2, Some("INDEX"))),
        // A polygon claiming four billion vertices is refused before anything is sized by it.
        ("4e9 vertices", fence("0\t0\t0\t5001\t4e9\t0\t0\t0\t47.39\t8.54\t0\t1\n"), "Invalid", line_at(2, Some("P1"))),
        ("mixed polygon", fence("0\t0\t0\t5001\t3\t0\t0\t0\t47.39\t8.54\t0\t1\n1\t0\t0\t5002\t3\t0\t0\t0\t47.39\t8.55\t0\t1\n2\t0\t0\t5001\t3\t0\t0\t0\t47.38\t8.55\t0\t1\n"), "Invalid", line_at(3, None)),
        ("radius 0", fence("0\t0\t0\t5003\t0\t0\t0\t0\t47.39\t8.54\t0\t1\n"), "Invalid", line_at(2, Some("P1"))),
        ("two returns", fence("0\t0\t3\t5000\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n1\t0\t3\t5000\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n"), "Invalid", line_at(3, None)),
        ("waypoint in fence", fence("0\t0\t0\t5003\t9\t0\t0\t0\t47.39\t8.54\t0\t1\n1\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n"), "Invalid", line_at(3, Some("COMMAND"))),
        ("waypoint in rally", fence("0\t0\t3\t5100\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n1\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n"), "Invalid", line_at(3, Some("COMMAND"))),
        ("not utf-8", with_home("1\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t\u{fffd}"), "Invalid", line_at(3, Some("AUTOCONTINUE"))),
    ];
    for (what, text, variant, at) in cases {
        let got = variant_at(read_wpl(text.as_bytes(), &ReadOptions::default()));
        assert_eq!(got, (variant.to_string(), at), "{what}");
    }
    let not_utf8 = read_wpl(b"QGC WPL 110\n\xff\n", &ReadOptions::default());
    assert_eq!(variant_at(not_utf8), ("NotUtf8".into(), line_at(2, None)));

    let mut long = String::from("QGC WPL 110\n");
    for index in 0..=MAX_ITEMS + 1 {
        long.push_str(&format!(
            "{index}\t0\t3\t16\t0\t0\t0\t0\t47.39\t8.54\t20\t1\n"
        ));
    }
    let got = variant_at(read_wpl(long.as_bytes(), &ReadOptions::default()));
    assert_eq!(got, ("TooManyItems".into(), line_at(MAX_ITEMS + 3, None)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes, and every prefix of a real file, give a value or an error: no panic.
    #[test]
    fn no_input_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512), cut in 0usize..8_000) {
        let _ = read_plan(&bytes, &ReadOptions::default());
        let _ = read_wpl(&bytes, &ReadOptions::default());
        let plan = data("qgc_mission.plan");
        let _ = read_plan(&plan[..cut.min(plan.len())], &ReadOptions::default());
        let fence = data("fence.waypoints");
        let _ = read_wpl(&fence[..cut.min(fence.len())], &ReadOptions::default());
    }

    /// Any item list survives write → read in both formats.
    #[test]
    fn any_item_list_survives_write_then_read(items in proptest::collection::vec(item(), 0..40), home in item()) {
        let items: Vec<MissionItem> = items
            .into_iter()
            .enumerate()
            .map(|(seq, item)| MissionItem { seq: seq as u16, current: seq == 0, ..item })
            .collect();

        let mut plan = plan("qgc_mission.plan");
        plan.mission.items = items.iter().copied().map(PlanItem::new).collect();
        let written = write_plan(&plan).expect("writes");
        let again = read_plan(written.as_bytes(), &ReadOptions::default()).expect("reads back");
        prop_assert_eq!(again.mission_items(), items.clone());
        prop_assert_eq!(write_plan(&again).expect("writes again"), written);

        let home = MissionItem { seq: 0, command: mav_cmd::NAV_WAYPOINT, ..home };
        let file = WplFile::Mission(WplMission { home: Some(home), items });
        let text = write_wpl(&file).expect("writes");
        prop_assert_eq!(read_wpl(text.as_bytes(), &ReadOptions::default()).expect("reads back"), file);
    }
}

/// Any valid mission item: a frame we read (terrain excluded: it is resolved on reading), any
/// command, parameters finite or NaN, lat/lon on the globe.
fn item() -> impl Strategy<Value = MissionItem> {
    let frames = prop::sample::select(vec![0u8, 2, 3, 5, 6]);
    let param = prop_oneof![
        Just(f32::NAN),
        any::<f32>().prop_filter("finite", |value| value.is_finite())
    ];
    (
        frames,
        any::<u16>(),
        any::<bool>(),
        [
            param.clone(),
            param.clone(),
            param.clone(),
            param.clone(),
            param,
        ],
    )
        .prop_flat_map(|(frame, command, autocontinue, params)| {
            let (x, y) = if frame == frame::MISSION {
                (any::<i32>().boxed(), any::<i32>().boxed())
            } else {
                (
                    (-900_000_000..=900_000_000).boxed(),
                    (-1_800_000_000..=1_800_000_000).boxed(),
                )
            };
            (Just((frame, command, autocontinue, params)), x, y)
        })
        .prop_map(
            |((frame, command, autocontinue, [p1, p2, p3, p4, z]), x, y)| MissionItem {
                seq: 0,
                frame,
                command,
                current: false,
                autocontinue,
                param1: p1,
                param2: p2,
                param3: p3,
                param4: p4,
                x,
                y,
                z,
                mission_type: MissionType::Mission,
            },
        )
}
