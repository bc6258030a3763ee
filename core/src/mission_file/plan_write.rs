//! Writing a `.plan` in QGroundControl's own layout (keys sorted, four-space indent, whole
//! numbers without a fraction), so QGC opens it unchanged and writing what we read back gives
//! the same bytes.

use serde_json::{Map, Value, json};

use super::check::{check_finite, check_item, check_lat_lon};
use super::error::{At, MissionFileError};
use super::fence::{Fence, GeoPoint};
use super::frame::{AltitudeRef, FrameKind};
use super::item::e7_to_deg;
use super::json::{f32_value, f64_value};
use super::plan::{PlanFile, PlanItem, PlanMission};
use super::plan_read::{MISSION_KEYS, SIMPLE_ITEM_KEYS, TOP_KEYS};
use super::rally::rally_to_items;

/// The plan as `.plan` text. Refuses what would not read back: an invalid item, a fence or
/// rally point off the globe, an `extra` key that shadows a field.
pub fn write_plan(plan: &PlanFile) -> Result<String, MissionFileError> {
    // Checks every vertex, circle and point as the upload will need them.
    plan.fence.to_items()?;
    rally_to_items(&plan.rally)?;

    let mut root = with_extra(&plan.extra, &TOP_KEYS, &At::File)?;
    root.insert("fileType".into(), json!("Plan"));
    root.insert("geoFence".into(), fence_value(&plan.fence, &plan.mission)?);
    root.insert("mission".into(), mission_value(&plan.mission)?);
    let rally = plan
        .rally
        .iter()
        .enumerate()
        .map(|(index, point)| {
            point_value(
                point,
                &plan.mission,
                &At::Entry {
                    list: "rally point",
                    index,
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    root.insert(
        "rallyPoints".into(),
        json!({ "points": rally, "version": 2 }),
    );
    root.insert("version".into(), json!(1));

    let mut root = Value::Object(root);
    root.sort_all_objects();
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&root, &mut serializer)
        .map_err(|error| MissionFileError::invalid(At::File, error.to_string()))?;
    let mut text = String::from_utf8(out)
        .map_err(|error| MissionFileError::invalid(At::File, error.to_string()))?;
    text.push('\n');
    Ok(text)
}

fn mission_value(mission: &PlanMission) -> Result<Value, MissionFileError> {
    let home = &mission.planned_home;
    let home_at = At::Entry {
        list: "planned home",
        index: 0,
    };
    check_lat_lon(home.lat_deg, home.lon_deg, &home_at)?;
    check_finite(home.alt_amsl_m, "home altitude", &home_at)?;

    let mut object = with_extra(&mission.extra, &MISSION_KEYS, &At::Json("mission".into()))?;
    for (key, speed) in [
        ("cruiseSpeed", mission.cruise_speed_mps),
        ("hoverSpeed", mission.hover_speed_mps),
    ] {
        if let Some(speed) = speed {
            check_finite(speed, key, &At::Json(format!("mission.{key}")))?;
            object.insert(key.into(), f64_value(speed));
        }
    }
    object.insert("firmwareType".into(), json!(mission.firmware_type));
    let items = mission
        .items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item_value(
                item,
                &At::Entry {
                    list: "mission item",
                    index,
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    object.insert("items".into(), Value::Array(items));
    object.insert(
        "plannedHomePosition".into(),
        json!([
            f64_value(home.lat_deg),
            f64_value(home.lon_deg),
            f64_value(home.alt_amsl_m)
        ]),
    );
    if let Some(vehicle_type) = mission.vehicle_type {
        object.insert("vehicleType".into(), json!(vehicle_type));
    }
    object.insert("version".into(), json!(2));
    Ok(Value::Object(object))
}

/// A `SimpleItem` (the inverse of the reader: x/y back to degrees in a global frame).
fn item_value(plan_item: &PlanItem, at: &At) -> Result<Value, MissionFileError> {
    let item = &plan_item.item;
    let kind = check_item(item, at)?;
    let coordinate = |value: i32| {
        if kind == FrameKind::Mission {
            json!(value)
        } else {
            f64_value(e7_to_deg(value))
        }
    };
    let mut object = with_extra(&plan_item.extra, &SIMPLE_ITEM_KEYS, at)?;
    object.insert("autoContinue".into(), json!(item.autocontinue));
    object.insert("command".into(), json!(item.command));
    if let Some(id) = plan_item.do_jump_id {
        object.insert("doJumpId".into(), json!(id));
    }
    object.insert("frame".into(), json!(item.frame));
    object.insert(
        "params".into(),
        json!([
            f32_value(item.param1),
            f32_value(item.param2),
            f32_value(item.param3),
            f32_value(item.param4),
            coordinate(item.x),
            coordinate(item.y),
            f32_value(item.z),
        ]),
    );
    object.insert("type".into(), json!("SimpleItem"));
    Ok(Value::Object(object))
}

/// `geoFence`, version 2, in QGroundControl's shape.
fn fence_value(fence: &Fence, mission: &PlanMission) -> Result<Value, MissionFileError> {
    let polygons: Vec<Value> = fence
        .polygons
        .iter()
        .map(|polygon| {
            let vertices: Vec<Value> = polygon
                .vertices
                .iter()
                .map(|vertex| json!([f64_value(vertex.lat_deg), f64_value(vertex.lon_deg)]))
                .collect();
            json!({ "inclusion": polygon.inclusion, "polygon": vertices, "version": 1 })
        })
        .collect();
    let circles: Vec<Value> = fence
        .circles
        .iter()
        .map(|circle| {
            json!({
                "circle": {
                    "center": [f64_value(circle.center.lat_deg), f64_value(circle.center.lon_deg)],
                    "radius": f64_value(circle.radius_m),
                },
                "inclusion": circle.inclusion,
                "version": 1,
            })
        })
        .collect();
    let mut object = Map::new();
    if let Some(point) = &fence.breach_return {
        let at = At::Entry {
            list: "fence return point",
            index: 0,
        };
        object.insert("breachReturn".into(), point_value(point, mission, &at)?);
    }
    object.insert("circles".into(), Value::Array(circles));
    object.insert("polygons".into(), Value::Array(polygons));
    object.insert("version".into(), json!(2));
    Ok(Value::Object(object))
}

/// `[lat, lon, alt above home]`; an AMSL point is put above `planned_home`, a terrain one
/// refused (a `.plan` has no way to say it).
fn point_value(
    point: &GeoPoint,
    mission: &PlanMission,
    at: &At,
) -> Result<Value, MissionFileError> {
    let alt_m = match point.reference {
        AltitudeRef::AboveHome => point.alt_m,
        AltitudeRef::Amsl => point.alt_m - mission.planned_home.alt_amsl_m,
        AltitudeRef::AboveTerrain => {
            return Err(MissionFileError::invalid(
                at.clone(),
                "a .plan holds no altitude above terrain",
            ));
        }
    };
    let alt_m = check_finite(alt_m, "altitude", at)?;
    Ok(json!([
        f64_value(point.lat_deg),
        f64_value(point.lon_deg),
        f64_value(alt_m)
    ]))
}

/// A new object holding `extra`, refused when a key would shadow one of `known`.
fn with_extra(
    extra: &Map<String, Value>,
    known: &[&str],
    at: &At,
) -> Result<Map<String, Value>, MissionFileError> {
    if let Some(key) = extra.keys().find(|key| known.contains(&key.as_str())) {
        return Err(MissionFileError::invalid(
            at.clone(),
            format!("extra key {key:?} shadows a field of the plan"),
        ));
    }
    Ok(extra.clone())
}
