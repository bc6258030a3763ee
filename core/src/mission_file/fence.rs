//! The geofence of a plan: polygons and circles, each an inclusion or an exclusion, and an
//! optional breach return point. One type whether it came from a `.plan`'s `geoFence` or from a
//! WPL list of `NAV_FENCE_*` items, so the gate sees one shape of fence.

use super::check::{check_finite, check_item, check_lat_lon};
use super::error::{At, MissionFileError};
use super::frame::{self, AltitudeRef, FrameKind};
use super::item::{MissionItem, MissionType, deg_to_e7};
use super::limits::MAX_ITEMS;
use super::mav_cmd;
use super::terrain::ReadOptions;

/// A horizontal position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatLon {
    pub lat_deg: f64,
    pub lon_deg: f64,
}

/// A position with an altitude above home or AMSL (a terrain altitude is resolved to AMSL, or
/// refused, when read).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
    pub reference: AltitudeRef,
}

/// A fence polygon; the vertices in order, the ring closed implicitly.
#[derive(Debug, Clone, PartialEq)]
pub struct FencePolygon {
    /// `true`: the vehicle must stay inside; `false`: it must stay out.
    pub inclusion: bool,
    pub vertices: Vec<LatLon>,
}

/// A fence circle.
#[derive(Debug, Clone, PartialEq)]
pub struct FenceCircle {
    pub inclusion: bool,
    pub center: LatLon,
    pub radius_m: f64,
}

/// Both autopilots AND every area: inside every inclusion, outside every exclusion (ArduPilot
/// unions inclusions only with `FENCE_OPTIONS` bit 1; MISSION-FACTS §3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fence {
    pub polygons: Vec<FencePolygon>,
    pub circles: Vec<FenceCircle>,
    /// Where the vehicle goes on a breach, when the plan names one.
    pub breach_return: Option<GeoPoint>,
}

impl Fence {
    /// Whether the fence has no area and no return point.
    pub fn is_empty(&self) -> bool {
        self.polygons.is_empty() && self.circles.is_empty() && self.breach_return.is_none()
    }

    /// How many items the fence takes on the wire: one per vertex, circle and return point.
    pub fn item_count(&self) -> usize {
        self.polygons
            .iter()
            .map(|polygon| polygon.vertices.len())
            .sum::<usize>()
            + self.circles.len()
            + usize::from(self.breach_return.is_some())
    }

    /// The fence as `mission_type` FENCE items, as QGroundControl uploads it: vertices in frame 0
    /// with param1 = vertex count and z = 0, circles with param1 = radius, then the return point;
    /// the first item is `current`.
    pub fn to_items(&self) -> Result<Vec<MissionItem>, MissionFileError> {
        let count = self.item_count();
        if count > MAX_ITEMS {
            return Err(MissionFileError::TooManyItems {
                at: At::File,
                list: "fence",
                max: MAX_ITEMS,
            });
        }
        let mut items = Vec::with_capacity(count);
        for (index, polygon) in self.polygons.iter().enumerate() {
            let at = At::Entry {
                list: "fence polygon",
                index,
            };
            if polygon.vertices.len() < 3 {
                return Err(MissionFileError::invalid(
                    at,
                    format!("{} vertices, a polygon needs 3", polygon.vertices.len()),
                ));
            }
            let command = if polygon.inclusion {
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION
            } else {
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_EXCLUSION
            };
            for vertex in &polygon.vertices {
                let mut item = fence_item(command, vertex.lat_deg, vertex.lon_deg, &at)?;
                item.param1 = polygon.vertices.len() as f32;
                items.push(item);
            }
        }
        for (index, circle) in self.circles.iter().enumerate() {
            let at = At::Entry {
                list: "fence circle",
                index,
            };
            let radius = check_finite(circle.radius_m, "radius", &at)?;
            if radius <= 0.0 {
                return Err(MissionFileError::invalid(at, "radius must be positive"));
            }
            let command = if circle.inclusion {
                mav_cmd::NAV_FENCE_CIRCLE_INCLUSION
            } else {
                mav_cmd::NAV_FENCE_CIRCLE_EXCLUSION
            };
            let mut item = fence_item(command, circle.center.lat_deg, circle.center.lon_deg, &at)?;
            item.param1 = radius as f32;
            items.push(item);
        }
        if let Some(point) = &self.breach_return {
            let at = At::Entry {
                list: "fence return point",
                index: 0,
            };
            let mut item = point_item(mav_cmd::NAV_FENCE_RETURN_POINT, point, &at)?;
            item.mission_type = MissionType::Fence;
            items.push(item);
        }
        for (seq, item) in items.iter_mut().enumerate() {
            item.seq = u16::try_from(seq).unwrap_or(u16::MAX);
            item.current = seq == 0;
        }
        Ok(items)
    }

    /// A fence from FENCE items, walked as both autopilots do: a polygon is `param1`
    /// consecutive vertices of one command, each repeating the count.
    pub fn from_items(
        items: &[MissionItem],
        options: &ReadOptions,
    ) -> Result<Fence, MissionFileError> {
        Fence::from_items_at(items, options, |index| At::Entry {
            list: "fence item",
            index,
        })
    }

    /// [`Fence::from_items`] with errors placed by `at` (a WPL reader gives line numbers).
    pub(crate) fn from_items_at(
        items: &[MissionItem],
        options: &ReadOptions,
        at: impl Fn(usize) -> At,
    ) -> Result<Fence, MissionFileError> {
        if items.len() > MAX_ITEMS {
            return Err(MissionFileError::TooManyItems {
                at: at(MAX_ITEMS),
                list: "fence",
                max: MAX_ITEMS,
            });
        }
        let mut fence = Fence::default();
        let mut index = 0;
        while let Some(item) = items.get(index) {
            let here = at(index);
            let kind = check_item(item, &here)?;
            match item.command {
                mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION
                | mav_cmd::NAV_FENCE_POLYGON_VERTEX_EXCLUSION => {
                    let count = vertex_count(item.param1, items.len() - index, &here)?;
                    let mut vertices = Vec::with_capacity(count);
                    for (offset, vertex) in items.iter().skip(index).take(count).enumerate() {
                        let vertex_at = at(index + offset);
                        check_item(vertex, &vertex_at)?;
                        if vertex.command != item.command
                            || vertex.param1.to_bits() != item.param1.to_bits()
                        {
                            return Err(MissionFileError::invalid(
                                vertex_at,
                                format!(
                                    "vertex {} of a {count}-vertex polygon is command {} with param1 {}",
                                    offset + 1,
                                    vertex.command,
                                    vertex.param1
                                ),
                            ));
                        }
                        vertices.push(horizontal(vertex, &vertex_at)?);
                    }
                    fence.polygons.push(FencePolygon {
                        inclusion: item.command == mav_cmd::NAV_FENCE_POLYGON_VERTEX_INCLUSION,
                        vertices,
                    });
                    index += count;
                    continue;
                }
                mav_cmd::NAV_FENCE_CIRCLE_INCLUSION | mav_cmd::NAV_FENCE_CIRCLE_EXCLUSION => {
                    if !(item.param1.is_finite() && item.param1 > 0.0) {
                        return Err(MissionFileError::invalid(
                            here.field("P1"),
                            format!("circle radius {} must be positive", item.param1),
                        ));
                    }
                    fence.circles.push(FenceCircle {
                        inclusion: item.command == mav_cmd::NAV_FENCE_CIRCLE_INCLUSION,
                        center: horizontal(item, &here)?,
                        radius_m: f64::from(item.param1),
                    });
                }
                mav_cmd::NAV_FENCE_RETURN_POINT => {
                    if fence.breach_return.is_some() {
                        return Err(MissionFileError::invalid(
                            here,
                            "a second fence return point",
                        ));
                    }
                    fence.breach_return = Some(point_of(item, kind, options, &here)?);
                }
                other => {
                    return Err(MissionFileError::invalid(
                        here.field("COMMAND"),
                        format!(
                            "{} ({other}) is not a fence command (5000–5004)",
                            mav_cmd::name(other).unwrap_or("an unknown MAV_CMD")
                        ),
                    ));
                }
            }
            index += 1;
        }
        Ok(fence)
    }
}

/// A polygon's vertex count from its param1: a whole number ≥ 3 that fits in what is left.
fn vertex_count(param1: f32, left: usize, at: &At) -> Result<usize, MissionFileError> {
    let whole = param1.is_finite() && param1.fract() == 0.0 && param1 >= 3.0;
    // Compared as f64 so a huge count is refused before it is turned into a length.
    if !whole || f64::from(param1) > left as f64 {
        return Err(MissionFileError::invalid(
            at.field("P1"),
            format!(
                "polygon vertex count {param1} must be a whole number from 3 to the {left} items left"
            ),
        ));
    }
    Ok(param1 as usize)
}

/// The lat/lon of an item that needs a global frame.
fn horizontal(item: &MissionItem, at: &At) -> Result<LatLon, MissionFileError> {
    match item.lat_lon_deg() {
        Some((lat_deg, lon_deg)) => Ok(LatLon { lat_deg, lon_deg }),
        None => Err(MissionFileError::invalid(
            at.field("FRAME"),
            format!(
                "frame {} has no position; a fence or rally point needs a global frame",
                item.frame
            ),
        )),
    }
}

/// A return or rally point, a terrain altitude turned into AMSL.
pub(crate) fn point_of(
    item: &MissionItem,
    kind: FrameKind,
    options: &ReadOptions,
    at: &At,
) -> Result<GeoPoint, MissionFileError> {
    let LatLon { lat_deg, lon_deg } = horizontal(item, at)?;
    let reference = match kind {
        FrameKind::Global(AltitudeRef::AboveHome) => AltitudeRef::AboveHome,
        _ => AltitudeRef::Amsl,
    };
    let alt_m = options.amsl_of_terrain(item.frame, lat_deg, lon_deg, f64::from(item.z), at)?;
    Ok(GeoPoint {
        lat_deg,
        lon_deg,
        alt_m: check_finite(alt_m, "altitude", at)?,
        reference,
    })
}

/// A global item for a point: frame 3 above home, frame 0 AMSL.
pub(crate) fn point_item(
    command: u16,
    point: &GeoPoint,
    at: &At,
) -> Result<MissionItem, MissionFileError> {
    let frame = match point.reference {
        AltitudeRef::AboveHome => frame::GLOBAL_RELATIVE_ALT,
        AltitudeRef::Amsl => frame::GLOBAL,
        AltitudeRef::AboveTerrain => frame::GLOBAL_TERRAIN_ALT,
    };
    let mut item = fence_item(command, point.lat_deg, point.lon_deg, at)?;
    item.frame = frame;
    let z = check_finite(point.alt_m, "altitude", at)? as f32;
    if z.is_infinite() {
        return Err(MissionFileError::invalid(
            at.clone(),
            "altitude overflows f32",
        ));
    }
    item.z = z;
    Ok(item)
}

/// A FENCE item in frame 0 at a checked lat/lon.
fn fence_item(
    command: u16,
    lat_deg: f64,
    lon_deg: f64,
    at: &At,
) -> Result<MissionItem, MissionFileError> {
    check_lat_lon(lat_deg, lon_deg, at)?;
    let (Some(x), Some(y)) = (deg_to_e7(lat_deg), deg_to_e7(lon_deg)) else {
        return Err(MissionFileError::invalid(
            at.clone(),
            "position out of range",
        ));
    };
    let mut item = MissionItem::new(0, frame::GLOBAL, command);
    item.mission_type = MissionType::Fence;
    item.x = x;
    item.y = y;
    Ok(item)
}
