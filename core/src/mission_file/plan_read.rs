//! Reading a `.plan`. Strict where a guess could fly the wrong plan (versions, missing parts,
//! complex items we cannot expand, terrain altitudes), lenient only where QGroundControl itself
//! is (`16.0` for `16`, `0`/`1` for booleans).

use serde_json::{Map, Value};

use super::check::{check_finite, check_item, check_lat_lon};
use super::error::{At, MissionFileError};
use super::fence::{Fence, FenceCircle, FencePolygon, GeoPoint, LatLon};
use super::frame::{AltitudeRef, FrameKind};
use super::item::{MissionItem, MissionType, deg_to_e7};
use super::json::{
    array, boolean, field, number, number_or_null, numbers, object, param, unsigned,
    value_count_bound, version,
};
use super::limits::{MAX_ITEMS, MAX_PLAN_BYTES, MAX_PLAN_VALUES};
use super::plan::{PlanFile, PlanItem, PlanMission};
use super::terrain::ReadOptions;
use crate::frames::Geo;

/// Keys of a `SimpleItem` that become the MAVLink item; every other key is kept as metadata.
pub(crate) const SIMPLE_ITEM_KEYS: [&str; 6] = [
    "autoContinue",
    "command",
    "doJumpId",
    "frame",
    "params",
    "type",
];
/// Keys of `mission` read into [`PlanMission`].
pub(crate) const MISSION_KEYS: [&str; 7] = [
    "cruiseSpeed",
    "firmwareType",
    "hoverSpeed",
    "items",
    "plannedHomePosition",
    "vehicleType",
    "version",
];
/// Top-level keys read into [`PlanFile`].
pub(crate) const TOP_KEYS: [&str; 5] =
    ["fileType", "geoFence", "mission", "rallyPoints", "version"];

/// The only complex item we expand, and the version MAVSDK expands (MISSION-FACTS §6).
const SURVEY: &str = "survey";
const SURVEY_VERSION: u64 = 5;

/// Reads a `.plan` from its bytes (at most [`MAX_PLAN_BYTES`]).
pub fn read_plan(bytes: &[u8], options: &ReadOptions) -> Result<PlanFile, MissionFileError> {
    if bytes.len() > MAX_PLAN_BYTES {
        return Err(MissionFileError::TooLarge {
            bytes: bytes.len(),
            max: MAX_PLAN_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let valid = bytes.get(..error.valid_up_to()).unwrap_or_default();
        MissionFileError::NotUtf8 {
            at: At::Line {
                line: 1 + valid.iter().filter(|&&byte| byte == b'\n').count(),
                field: None,
            },
        }
    })?;
    let values = value_count_bound(text);
    if values > MAX_PLAN_VALUES {
        return Err(MissionFileError::TooComplex {
            values,
            max: MAX_PLAN_VALUES,
        });
    }
    let root: Value = serde_json::from_str(text).map_err(|error| {
        let message = error.to_string();
        let suffix = format!(" at line {} column {}", error.line(), error.column());
        MissionFileError::JsonSyntax {
            line: error.line(),
            column: error.column(),
            message: message
                .strip_suffix(&suffix)
                .unwrap_or(&message)
                .to_string(),
        }
    })?;

    let top = At::Json(String::new());
    let root = object(&root, &top)?;
    let file_type = field(root, "fileType", &top)?;
    if file_type.as_str() != Some("Plan") {
        return Err(MissionFileError::Version {
            at: top.key("fileType"),
            found: file_type.to_string(),
            expected: "\"Plan\"".to_string(),
        });
    }
    version(root, "version", 1, &top)?;
    let mission = read_mission(field(root, "mission", &top)?, &top.key("mission"), options)?;
    let fence = read_fence(field(root, "geoFence", &top)?, &top.key("geoFence"))?;
    let rally = read_rally(field(root, "rallyPoints", &top)?, &top.key("rallyPoints"))?;
    Ok(PlanFile {
        mission,
        fence,
        rally,
        extra: rest(root, &TOP_KEYS),
    })
}

fn read_mission(
    value: &Value,
    at: &At,
    options: &ReadOptions,
) -> Result<PlanMission, MissionFileError> {
    let mission = object(value, at)?;
    version(mission, "version", 2, at)?;
    let optional_speed = |key: &str| -> Result<Option<f64>, MissionFileError> {
        match mission.get(key) {
            None => Ok(None),
            Some(value) => number_or_null(value, &at.key(key)),
        }
    };
    let [lat_deg, lon_deg, alt_amsl_m] = numbers::<3>(
        field(mission, "plannedHomePosition", at)?,
        &at.key("plannedHomePosition"),
    )?;
    check_lat_lon(lat_deg, lon_deg, &at.key("plannedHomePosition"))?;
    Ok(PlanMission {
        firmware_type: unsigned(field(mission, "firmwareType", at)?, &at.key("firmwareType"))?,
        vehicle_type: match mission.get("vehicleType") {
            None | Some(Value::Null) => None,
            Some(value) => Some(unsigned(value, &at.key("vehicleType"))?),
        },
        cruise_speed_mps: optional_speed("cruiseSpeed")?,
        hover_speed_mps: optional_speed("hoverSpeed")?,
        planned_home: Geo {
            lat_deg,
            lon_deg,
            alt_amsl_m,
        },
        items: read_items(field(mission, "items", at)?, &at.key("items"), options)?,
        extra: rest(mission, &MISSION_KEYS),
    })
}

/// The items in order, a survey replaced by its `TransectStyleComplexItem.Items`; `seq` by
/// place, the first `current` (MAVSDK's import).
fn read_items(
    value: &Value,
    at: &At,
    options: &ReadOptions,
) -> Result<Vec<PlanItem>, MissionFileError> {
    let mut items = Vec::new();
    for (index, value) in array(value, at)?.iter().enumerate() {
        let item_at = at.index(index);
        let item = object(value, &item_at)?;
        let item_type = field(item, "type", &item_at)?;
        match item_type.as_str() {
            Some("SimpleItem") => {
                push(&mut items, read_simple(item, &item_at, options)?, &item_at)?
            }
            Some("ComplexItem") => {
                for (inner, inner_at) in survey_items(item, &item_at)? {
                    push(
                        &mut items,
                        read_simple(inner, &inner_at, options)?,
                        &inner_at,
                    )?;
                }
            }
            _ => {
                return Err(MissionFileError::invalid(
                    item_at.key("type"),
                    format!("item type {item_type}, expected \"SimpleItem\" or \"ComplexItem\""),
                ));
            }
        }
    }
    for (seq, plan_item) in items.iter_mut().enumerate() {
        plan_item.item.seq = u16::try_from(seq).unwrap_or(u16::MAX);
        plan_item.item.current = seq == 0;
    }
    Ok(items)
}

/// Appends unless the list is full.
fn push(items: &mut Vec<PlanItem>, item: PlanItem, at: &At) -> Result<(), MissionFileError> {
    if items.len() >= MAX_ITEMS {
        return Err(MissionFileError::TooManyItems {
            at: at.clone(),
            list: "mission",
            max: MAX_ITEMS,
        });
    }
    items.push(item);
    Ok(())
}

type JsonObject = Map<String, Value>;

/// A complex item's simple items, with their paths: only a version-5 survey, whose items QGC
/// precomputed into the file (MAVSDK does the same); any other type is refused by name.
fn survey_items<'a>(
    item: &'a Map<String, Value>,
    at: &At,
) -> Result<Vec<(&'a JsonObject, At)>, MissionFileError> {
    let kind = field(item, "complexItemType", at)?;
    if kind.as_str() != Some(SURVEY) {
        return Err(MissionFileError::UnsupportedComplexItem {
            at: at.clone(),
            kind: kind
                .as_str()
                .map_or_else(|| kind.to_string(), str::to_string),
        });
    }
    version(item, "version", SURVEY_VERSION, at)?;
    let transect_at = at.key("TransectStyleComplexItem");
    let transect = object(field(item, "TransectStyleComplexItem", at)?, &transect_at)?;
    let items_at = transect_at.key("Items");
    let mut inner = Vec::new();
    for (index, value) in array(field(transect, "Items", &transect_at)?, &items_at)?
        .iter()
        .enumerate()
    {
        let inner_at = items_at.index(index);
        let object = object(value, &inner_at)?;
        let item_type = field(object, "type", &inner_at)?;
        if item_type.as_str() != Some("SimpleItem") {
            return Err(MissionFileError::invalid(
                inner_at.key("type"),
                format!("item type {item_type} inside a survey, expected \"SimpleItem\""),
            ));
        }
        inner.push((object, inner_at));
    }
    Ok(inner)
}

/// A `SimpleItem` as MAVSDK's import makes it (MISSION-FACTS §6): params[0..3] → param1..4,
/// params[4..5] → x, y (×1e7 in a global frame, rounded integers in frame 2, `null` → 0),
/// params[6] → z, `null` → NaN.
fn read_simple(
    item: &Map<String, Value>,
    at: &At,
    options: &ReadOptions,
) -> Result<PlanItem, MissionFileError> {
    let frame: u8 = unsigned(field(item, "frame", at)?, &at.key("frame"))?;
    let kind = FrameKind::of(frame).ok_or_else(|| MissionFileError::UnsupportedFrame {
        at: at.key("frame"),
        frame,
    })?;
    let params_at = at.key("params");
    let params = array(field(item, "params", at)?, &params_at)?;
    if params.len() != 7 {
        return Err(MissionFileError::invalid(
            params_at,
            format!("{} params, a SimpleItem has 7", params.len()),
        ));
    }
    let mut p = [0.0_f32; 4];
    for (index, (slot, value)) in p.iter_mut().zip(params).enumerate() {
        *slot = param(value, &params_at.index(index))?;
    }
    let [x, y] = [4, 5].map(|index| coordinate(params.get(index), kind, &params_at.index(index)));
    let z = param(params.get(6).unwrap_or(&Value::Null), &params_at.index(6))?;
    let mission_item = MissionItem {
        seq: 0,
        frame,
        command: unsigned(field(item, "command", at)?, &at.key("command"))?,
        current: false,
        autocontinue: boolean(field(item, "autoContinue", at)?, &at.key("autoContinue"))?,
        param1: p[0],
        param2: p[1],
        param3: p[2],
        param4: p[3],
        x: x?,
        y: y?,
        z,
        mission_type: MissionType::Mission,
    };
    check_item(&mission_item, at)?;
    Ok(PlanItem {
        item: options.resolve(mission_item, at)?,
        do_jump_id: match item.get("doJumpId") {
            None | Some(Value::Null) => None,
            Some(value) => Some(unsigned(value, &at.key("doJumpId"))?),
        },
        extra: rest(item, &SIMPLE_ITEM_KEYS),
    })
}

/// `x` or `y` of a `SimpleItem` from degrees (global frame) or a plain number (frame 2).
fn coordinate(value: Option<&Value>, kind: FrameKind, at: &At) -> Result<i32, MissionFileError> {
    let Some(number) = number_or_null(value.unwrap_or(&Value::Null), at)? else {
        return Ok(0);
    };
    let converted = if kind.is_global() {
        deg_to_e7(number)
    } else {
        let rounded = number.round();
        (rounded >= f64::from(i32::MIN) && rounded <= f64::from(i32::MAX)).then_some(rounded as i32)
    };
    converted.ok_or_else(|| {
        MissionFileError::invalid(
            at.clone(),
            format!("{number} does not fit a MAVLink coordinate"),
        )
    })
}

/// `geoFence`, version 2 (QGC silently ignores any other; we refuse it).
fn read_fence(value: &Value, at: &At) -> Result<Fence, MissionFileError> {
    let fence_object = object(value, at)?;
    version(fence_object, "version", 2, at)?;
    let mut fence = Fence::default();
    let polygons_at = at.key("polygons");
    for (index, value) in array(field(fence_object, "polygons", at)?, &polygons_at)?
        .iter()
        .enumerate()
    {
        let polygon_at = polygons_at.index(index);
        let polygon = shape(value, &polygon_at)?;
        let vertices_at = polygon_at.key("polygon");
        let vertices = array(field(polygon, "polygon", &polygon_at)?, &vertices_at)?;
        if vertices.len() < 3 {
            return Err(MissionFileError::invalid(
                vertices_at,
                format!("{} vertices, a polygon needs 3", vertices.len()),
            ));
        }
        let mut read = Vec::with_capacity(vertices.len().min(MAX_ITEMS));
        for (vertex_index, vertex) in vertices.iter().enumerate() {
            read.push(lat_lon(vertex, &vertices_at.index(vertex_index))?);
        }
        fence.polygons.push(FencePolygon {
            inclusion: boolean(
                field(polygon, "inclusion", &polygon_at)?,
                &polygon_at.key("inclusion"),
            )?,
            vertices: read,
        });
    }
    let circles_at = at.key("circles");
    for (index, value) in array(field(fence_object, "circles", at)?, &circles_at)?
        .iter()
        .enumerate()
    {
        let circle_at = circles_at.index(index);
        let circle_object = shape(value, &circle_at)?;
        let geometry_at = circle_at.key("circle");
        let geometry = object(field(circle_object, "circle", &circle_at)?, &geometry_at)?;
        let radius_at = geometry_at.key("radius");
        let radius_m = number(field(geometry, "radius", &geometry_at)?, &radius_at)?;
        if radius_m <= 0.0 {
            return Err(MissionFileError::invalid(
                radius_at,
                format!("radius {radius_m} must be positive"),
            ));
        }
        fence.circles.push(FenceCircle {
            inclusion: boolean(
                field(circle_object, "inclusion", &circle_at)?,
                &circle_at.key("inclusion"),
            )?,
            center: lat_lon(
                field(geometry, "center", &geometry_at)?,
                &geometry_at.key("center"),
            )?,
            radius_m,
        });
    }
    fence.breach_return = match fence_object.get("breachReturn") {
        None | Some(Value::Null) => None,
        Some(value) => Some(point_above_home(value, &at.key("breachReturn"))?),
    };
    if fence.item_count() > MAX_ITEMS {
        return Err(MissionFileError::TooManyItems {
            at: at.clone(),
            list: "fence",
            max: MAX_ITEMS,
        });
    }
    Ok(fence)
}

/// A fence polygon or circle object; its own `version`, when given, must be 1. `inclusion` is
/// required: MAVSDK defaults it one way for polygons and the other for circles, and a fence
/// facing the wrong way is worse than none.
fn shape<'a>(value: &'a Value, at: &At) -> Result<&'a Map<String, Value>, MissionFileError> {
    let shape = object(value, at)?;
    if shape.contains_key("version") {
        version(shape, "version", 1, at)?;
    }
    Ok(shape)
}

/// `rallyPoints`, version 2: `[lat, lon, alt above home]` each.
fn read_rally(value: &Value, at: &At) -> Result<Vec<GeoPoint>, MissionFileError> {
    let rally = object(value, at)?;
    version(rally, "version", 2, at)?;
    let points_at = at.key("points");
    let points = array(field(rally, "points", at)?, &points_at)?;
    if points.len() > MAX_ITEMS {
        return Err(MissionFileError::TooManyItems {
            at: points_at,
            list: "rally",
            max: MAX_ITEMS,
        });
    }
    points
        .iter()
        .enumerate()
        .map(|(index, point)| point_above_home(point, &points_at.index(index)))
        .collect()
}

/// `[lat, lon]` on the globe.
fn lat_lon(value: &Value, at: &At) -> Result<LatLon, MissionFileError> {
    let [lat_deg, lon_deg] = numbers::<2>(value, at)?;
    check_lat_lon(lat_deg, lon_deg, at)?;
    Ok(LatLon { lat_deg, lon_deg })
}

/// `[lat, lon, alt]` with the altitude above home, as QGroundControl keeps rally points (and,
/// we take it, the breach return point, which its editor shows the same way).
fn point_above_home(value: &Value, at: &At) -> Result<GeoPoint, MissionFileError> {
    let [lat_deg, lon_deg, alt_m] = numbers::<3>(value, at)?;
    check_lat_lon(lat_deg, lon_deg, at)?;
    Ok(GeoPoint {
        lat_deg,
        lon_deg,
        alt_m: check_finite(alt_m, "altitude", at)?,
        reference: AltitudeRef::AboveHome,
    })
}

/// The keys of `object` other than `known`, in their order.
fn rest(object: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    object
        .iter()
        .filter(|(key, _)| !known.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}
