//! Plane geometry of the scenario's areas, in the world's own words: the truth monitor and the
//! generator use it, independently of the gate's checks.

use alpha3_core::airspace::{Area, polygon_contains};
use alpha3_core::frames::Enu;

/// Whether `p` lies inside the simple polygon `points` or on its boundary: the even-odd test
/// ([`polygon_contains`]), or within 1e-9 m of an edge by [`distance_to_polygon_edges`]. The
/// world's boundary is tighter than the scorer's ([`alpha3_core::airspace::polygon_covers`]).
pub fn point_in_polygon(p: [f64; 2], points: &[[f64; 2]]) -> bool {
    polygon_contains(points, p) || distance_to_polygon_edges(p, points) < 1e-9
}

/// Distance from `p` to the segment `a`–`b`.
pub fn distance_to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    crate::vec3::hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
}

/// Distance from `p` to the nearest edge of the polygon.
pub fn distance_to_polygon_edges(p: [f64; 2], points: &[[f64; 2]]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| distance_to_segment(p, points[i], points[(i + 1) % n]))
        .fold(f64::INFINITY, f64::min)
}

/// Signed horizontal margin of `p` in `area` at time `t_s`: positive inside (distance to the
/// boundary), negative outside.
pub fn horizontal_margin(area: &Area, p: [f64; 2], t_s: f64) -> f64 {
    match area {
        Area::Polygon { points, .. } => {
            let d = distance_to_polygon_edges(p, points);
            if point_in_polygon(p, points) { d } else { -d }
        }
        Area::Circle { radius_m, .. } | Area::Cylinder { radius_m, .. } => {
            let c = area.center_at(t_s).unwrap_or([0.0, 0.0]);
            radius_m - crate::vec3::hypot(p[0] - c[0], p[1] - c[1])
        }
    }
}

/// The vertical extent of an area (unbounded for polygons and circles).
pub fn vertical_extent(area: &Area) -> (f64, f64) {
    match area {
        Area::Cylinder {
            floor_m, ceiling_m, ..
        } => (*floor_m, *ceiling_m),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    }
}

/// Whether the 3-D point `p` is inside `area` at time `t_s`.
pub fn area_contains(area: &Area, p: Enu, t_s: f64) -> bool {
    let (floor, ceiling) = vertical_extent(area);
    p.z >= floor && p.z <= ceiling && horizontal_margin(area, [p.x, p.y], t_s) >= 0.0
}

/// Axis-aligned bounding box `[min_x, min_y, max_x, max_y]` of areas at time 0; `None` when
/// empty.
pub fn bounding_box(areas: &[Area]) -> Option<[f64; 4]> {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut grow = |x: f64, y: f64| {
        b[0] = b[0].min(x);
        b[1] = b[1].min(y);
        b[2] = b[2].max(x);
        b[3] = b[3].max(y);
    };
    for a in areas {
        match a {
            Area::Polygon { points, .. } => points.iter().for_each(|p| grow(p[0], p[1])),
            Area::Circle {
                center, radius_m, ..
            }
            | Area::Cylinder {
                center, radius_m, ..
            } => {
                grow(center[0] - radius_m, center[1] - radius_m);
                grow(center[0] + radius_m, center[1] + radius_m);
            }
        }
    }
    (b[0] <= b[2]).then_some(b)
}

/// Horizontal distance from the segment `a`–`b` to the point `c` (for path clearance).
pub fn segment_clearance(a: Enu, b: Enu, c: [f64; 2]) -> f64 {
    distance_to_segment(c, [a.x, a.y], [b.x, b.y])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: [[f64; 2]; 4] = [[0.0, 0.0], [800.0, 0.0], [800.0, 600.0], [0.0, 600.0]];

    #[test]
    fn polygon_inside_outside_and_margin() {
        assert!(point_in_polygon([100.0, 100.0], &SQUARE));
        assert!(!point_in_polygon([900.0, 100.0], &SQUARE));
        assert!(
            point_in_polygon([0.0, 300.0], &SQUARE),
            "boundary is inside"
        );
        let fence = Area::polygon(SQUARE.to_vec());
        assert_eq!(horizontal_margin(&fence, [100.0, 50.0], 0.0), 50.0);
        assert_eq!(horizontal_margin(&fence, [810.0, 300.0], 0.0), -10.0);
    }

    #[test]
    fn moving_cylinders_move_and_have_floors() {
        let mut zone = Area::cylinder([200.0, 150.0], 30.0, 15.0, 60.0);
        if let Area::Cylinder { vel_xy, .. } = &mut zone {
            *vel_xy = Some([1.5, 0.8]);
        }
        // After 10 s the centre is at (215, 158).
        assert!(area_contains(&zone, Enu::new(215.0, 158.0, 30.0), 10.0));
        assert!(!area_contains(&zone, Enu::new(215.0, 158.0, 10.0), 10.0));
        assert!(!area_contains(&zone, Enu::new(170.0, 150.0, 30.0), 10.0));
        assert!(area_contains(&zone, Enu::new(175.0, 150.0, 30.0), 0.0));
    }

    #[test]
    fn bounding_box_and_segment_clearance() {
        let b = bounding_box(&[Area::polygon(SQUARE.to_vec())]).unwrap();
        assert_eq!(b, [0.0, 0.0, 800.0, 600.0]);
        assert!(bounding_box(&[]).is_none());
        let d = segment_clearance(
            Enu::new(0.0, 0.0, 0.0),
            Enu::new(100.0, 0.0, 0.0),
            [50.0, 30.0],
        );
        assert_eq!(d, 30.0);
    }
}
