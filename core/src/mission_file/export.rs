//! A flown episode as a QGroundControl `.plan`: the path the vehicle flew as waypoints and the
//! airspace it flew in as the plan's fence and rally points, so an engineer opens any record's
//! flight in QGroundControl (or uploads it to an autopilot) beside the mission it came from.
//!
//! Local metres become latitude and longitude around `home`. A polygon or circle inclusion area
//! is an inclusion fence; an exclusion area an exclusion fence — a cylinder by its footprint, a
//! moving one where it was at time 0 (a `.plan` fence is 2-D and still). The path is thinned
//! (Ramer–Douglas–Peucker, [`PATH_TOLERANCE_M`]) to at most [`MAX_PATH_ITEMS`] waypoints.

use super::error::MissionFileError;
use super::fence::{Fence, FenceCircle, FencePolygon, GeoPoint, LatLon};
use super::frame::{AltitudeRef, GLOBAL_RELATIVE_ALT};
use super::item::{MissionItem, deg_to_e7};
use super::mav_cmd;
use super::plan::{PlanFile, PlanItem, PlanMission};
use crate::airspace::Area;
use crate::frames::{Enu, Geo, LocalFrame};
use serde_json::Map;

/// How far the thinned path may stray from the flown one, metres.
pub const PATH_TOLERANCE_M: f64 = 1.0;
/// The most waypoints an exported path holds.
pub const MAX_PATH_ITEMS: usize = 1_000;
/// Path points below this height above home are on the ground, metres.
const AIRBORNE_M: f64 = 0.5;

/// The airspace of an episode, in its local metres.
#[derive(Debug, Clone, Copy)]
pub struct FlownAirspace<'a> {
    pub geofence: &'a [Area],
    pub no_fly: &'a [Area],
    pub landing_sites: &'a [[f64; 3]],
}

/// The `.plan` of a flight through `path` (local metres around `origin`, in order, heights
/// above the ground at home) from its home at `home_xy`, in `airspace`, for `firmware_type`
/// (MAV_AUTOPILOT).
pub fn flown_plan(
    origin: Geo,
    home_xy: [f64; 2],
    airspace: FlownAirspace<'_>,
    path: &[[f64; 3]],
    firmware_type: u8,
) -> Result<PlanFile, MissionFileError> {
    let frame = LocalFrame::new(origin);
    let home = frame.to_geo(Enu::new(home_xy[0], home_xy[1], 0.0));
    let lat_lon = |x: f64, y: f64| {
        let g = frame.to_geo(Enu::new(x, y, 0.0));
        LatLon {
            lat_deg: g.lat_deg,
            lon_deg: g.lon_deg,
        }
    };
    let mut fence = Fence::default();
    for (areas, inclusion) in [(airspace.geofence, true), (airspace.no_fly, false)] {
        for area in areas {
            match area {
                Area::Polygon { points, .. } => fence.polygons.push(FencePolygon {
                    inclusion,
                    vertices: points.iter().map(|p| lat_lon(p[0], p[1])).collect(),
                }),
                Area::Circle {
                    center, radius_m, ..
                }
                | Area::Cylinder {
                    center, radius_m, ..
                } => fence.circles.push(FenceCircle {
                    inclusion,
                    center: lat_lon(center[0], center[1]),
                    radius_m: *radius_m,
                }),
            }
        }
    }
    let rally = airspace
        .landing_sites
        .iter()
        .map(|s| {
            let p = lat_lon(s[0], s[1]);
            GeoPoint {
                lat_deg: p.lat_deg,
                lon_deg: p.lon_deg,
                alt_m: s[2],
                reference: AltitudeRef::AboveHome,
            }
        })
        .collect();
    let airborne: Vec<[f64; 3]> = path
        .iter()
        .copied()
        .filter(|p| p[2] >= AIRBORNE_M && p.iter().all(|v| v.is_finite()))
        .collect();
    let mut items = Vec::new();
    for (i, p) in thin(&airborne).iter().enumerate() {
        let command = if i == 0 {
            mav_cmd::NAV_TAKEOFF
        } else {
            mav_cmd::NAV_WAYPOINT
        };
        let g = lat_lon(p[0], p[1]);
        let mut item = MissionItem::new(
            u16::try_from(i).unwrap_or(u16::MAX),
            GLOBAL_RELATIVE_ALT,
            command,
        );
        item.x = deg_to_e7(g.lat_deg).unwrap_or(0);
        item.y = deg_to_e7(g.lon_deg).unwrap_or(0);
        item.z = p[2] as f32;
        item.current = i == 0;
        items.push(PlanItem::new(item));
    }
    let plan = PlanFile {
        mission: PlanMission {
            firmware_type,
            vehicle_type: Some(2),
            cruise_speed_mps: None,
            hover_speed_mps: None,
            planned_home: home,
            items,
            extra: Map::new(),
        },
        fence,
        rally,
        extra: Map::new(),
    };
    // The same checks the writer makes: what is returned writes.
    plan.fence.to_items()?;
    Ok(plan)
}

/// The path thinned to its corners (Ramer–Douglas–Peucker), at most [`MAX_PATH_ITEMS`] points:
/// the tolerance doubles until it fits.
fn thin(path: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let mut tolerance = PATH_TOLERANCE_M;
    loop {
        let mut keep = vec![false; path.len()];
        if let (Some(first), Some(last)) = (keep.first_mut(), path.len().checked_sub(1)) {
            *first = true;
            keep[last] = true;
        }
        let mut stack = vec![(0usize, path.len().saturating_sub(1))];
        while let Some((a, b)) = stack.pop() {
            if b <= a + 1 {
                continue;
            }
            let (i, d) = (a + 1..b)
                .map(|i| (i, off_line(path[i], path[a], path[b])))
                .fold((a, 0.0), |best, c| if c.1 > best.1 { c } else { best });
            if d > tolerance {
                keep[i] = true;
                stack.push((a, i));
                stack.push((i, b));
            }
        }
        let kept: Vec<[f64; 3]> = path
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(p, _)| *p)
            .collect();
        if kept.len() <= MAX_PATH_ITEMS || !tolerance.is_finite() {
            return kept.into_iter().take(MAX_PATH_ITEMS).collect();
        }
        tolerance *= 2.0;
    }
}

/// Distance from `p` to the segment `a`–`b`, in 3-D.
fn off_line(p: [f64; 3], a: [f64; 3], b: [f64; 3]) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let len2 = ab.iter().map(|v| v * v).sum::<f64>();
    let t = if len2 > 0.0 {
        (ap.iter().zip(&ab).map(|(x, y)| x * y).sum::<f64>() / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d: f64 = (0..3).map(|k| (ap[k] - t * ab[k]).powi(2)).sum();
    d.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mission_file::{ReadOptions, read_plan, write_plan};

    const ZURICH: Geo = Geo {
        lat_deg: 47.397742,
        lon_deg: 8.545594,
        alt_amsl_m: 488.0,
    };

    #[test]
    fn a_flown_path_and_its_airspace_write_a_plan_that_reads_back() {
        let fence = [Area::polygon(vec![
            [-100.0, -100.0],
            [300.0, -100.0],
            [300.0, 300.0],
            [-100.0, 300.0],
        ])];
        let no_fly = [Area::cylinder([100.0, 100.0], 20.0, 0.0, 120.0)];
        let sites = [[50.0, -50.0, 0.0]];
        // A straight climb and two straight legs, sampled densely: three corners survive.
        let mut path = vec![[0.0, 0.0, 0.0]];
        path.extend((1..=30).map(|z| [0.0, 0.0, f64::from(z)]));
        path.extend((1..=100).map(|i| [2.0 * f64::from(i), 0.0, 30.0]));
        path.extend((1..=100).map(|i| [200.0, 2.0 * f64::from(i), 30.0]));
        let plan = flown_plan(
            ZURICH,
            [0.0, 0.0],
            FlownAirspace {
                geofence: &fence,
                no_fly: &no_fly,
                landing_sites: &sites,
            },
            &path,
            12,
        )
        .unwrap();
        let items = plan.mission_items();
        assert_eq!(items.len(), 4, "{items:?}");
        assert_eq!(items[0].command, mav_cmd::NAV_TAKEOFF);
        assert_eq!(plan.fence.polygons.len(), 1);
        assert!(plan.fence.polygons[0].inclusion);
        assert_eq!(plan.fence.circles.len(), 1);
        assert!(!plan.fence.circles[0].inclusion);
        let text = write_plan(&plan).unwrap();
        let back = read_plan(text.as_bytes(), &ReadOptions::default()).unwrap();
        assert_eq!(back.mission_items(), items);
        assert_eq!(back.fence, plan.fence);
    }
}
