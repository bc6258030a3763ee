//! Horizontal shapes the gate checks against: simple polygons (either winding, possibly concave)
//! and circles. Built once when the context is built; asked without allocating.

use super::geometry::{
    Radius, Seg, Span, V2, linear_le0, point_edge_distance, segment_edge_distance,
};
use crate::airspace::polygon_contains;

/// A simple polygon with its bounding box (a cheap first test).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Polygon {
    points: Vec<V2>,
    min: V2,
    max: V2,
}

impl Polygon {
    /// `None` unless there are at least 3 finite points.
    pub fn new(points: &[[f64; 2]]) -> Option<Self> {
        if points.len() < 3 || points.iter().flatten().any(|v| !v.is_finite()) {
            return None;
        }
        let points: Vec<V2> = points.iter().map(|p| V2::new(p[0], p[1])).collect();
        let mut min = points[0];
        let mut max = points[0];
        for p in &points {
            min = min.inf(p);
            max = max.sup(p);
        }
        Some(Self { points, min, max })
    }

    /// The edges, closing the ring.
    fn edges(&self) -> impl Iterator<Item = (V2, V2)> + '_ {
        let n = self.points.len();
        (0..n).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }

    /// Even-odd crossing test ([`polygon_contains`]). Points on an edge may go either way;
    /// callers only rely on it away from the boundary.
    fn contains(&self, x: V2) -> bool {
        polygon_contains(&self.points, [x.x, x.y])
    }

    fn boundary_distance(&self, x: V2) -> f64 {
        self.edges()
            .map(|(p, q)| point_edge_distance(x, p, q))
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether the segment's bounding box, grown by `r`, misses the polygon's.
    fn far_from(&self, seg: Seg, r: f64) -> bool {
        let lo = seg.a.inf(&seg.b).add_scalar(-r);
        let hi = seg.a.sup(&seg.b).add_scalar(r);
        hi.x < self.min.x || hi.y < self.min.y || lo.x > self.max.x || lo.y > self.max.y
    }
}

/// Where a safe stretch that starts at some `t` ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Run {
    /// The first `t` after the start that is no longer safe (or 1).
    pub end: f64,
    /// The stretch is safe through `t = 1` inclusive.
    pub reaches_end: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    Polygon(Polygon),
    Circle { center: V2, radius_m: f64 },
}

impl Shape {
    /// Signed distance to the boundary: positive inside, negative outside.
    pub fn clearance(&self, x: V2) -> f64 {
        match self {
            Shape::Polygon(p) => {
                let d = p.boundary_distance(x);
                if p.contains(x) { d } else { -d }
            }
            Shape::Circle { center, radius_m } => radius_m - (x - center).norm(),
        }
    }

    /// The first `t` in `within` at which the disc of radius `r(t)` around the moving point
    /// touches the shape (overlaps its inside or its boundary).
    pub fn first_touch(&self, seg: Seg, r: Radius, within: Span) -> Option<f64> {
        match self {
            Shape::Circle { center, radius_m } => seg
                .near_point(*center, r.plus(*radius_m))
                .and_then(|s| s.intersect(within))
                .map(|s| s.lo),
            Shape::Polygon(p) => {
                if p.far_from(seg, r.at(0.0).max(r.at(1.0))) {
                    return None;
                }
                if p.contains(seg.at(within.lo)) {
                    return Some(within.lo);
                }
                // Outside at the start, so the first touch is where some edge comes within r.
                p.edges()
                    .filter_map(|(a, b)| seg.near_edge(a, b, r).and_then(|s| s.intersect(within)))
                    .map(|s| s.lo)
                    .reduce(f64::min)
            }
        }
    }

    /// When the disc of radius `r(t)` around `x(t)` lies strictly inside the shape at `t = cur`,
    /// how far that lasts; `None` when `cur` itself is not safe.
    pub fn safe_run(&self, seg: Seg, r: Radius, cur: f64) -> Option<Run> {
        match self {
            Shape::Circle { center, radius_m } => {
                let inner = Radius {
                    r0: radius_m - r.r0,
                    r1: -r.r1,
                };
                if (seg.at(cur) - center).norm() >= inner.at(cur) {
                    return None;
                }
                // Squaring admits a mirror cone where the inner radius is negative; cut it off.
                let span = seg
                    .near_point(*center, inner)?
                    .intersect(linear_le0(-inner.r1, -inner.r0)?)?;
                let end_inside = (seg.at(1.0) - center).norm() < inner.at(1.0);
                Some(Run {
                    end: span.hi.max(cur),
                    reaches_end: span.hi >= 1.0 && end_inside,
                })
            }
            Shape::Polygon(p) => {
                let mut end = 1.0_f64;
                let mut reaches_end = true;
                for (a, b) in p.edges() {
                    if let Some(s) = seg.near_edge(a, b, r) {
                        if s.contains(cur) {
                            return None;
                        }
                        if s.lo > cur {
                            end = end.min(s.lo);
                            reaches_end = false;
                        }
                    }
                }
                p.contains(seg.at(cur)).then_some(Run { end, reaches_end })
            }
        }
    }

    /// Distance from the segment to the shape: 0 when it touches or enters it.
    pub fn distance_from(&self, seg: Seg) -> f64 {
        match self {
            Shape::Circle { center, radius_m } => {
                (point_edge_distance(*center, seg.a, seg.b) - radius_m).max(0.0)
            }
            Shape::Polygon(p) => {
                if p.contains(seg.a) {
                    return 0.0;
                }
                p.edges()
                    .map(|(a, b)| segment_edge_distance(seg, a, b))
                    .fold(f64::INFINITY, f64::min)
            }
        }
    }

    /// Distance from the segment to the boundary of an area it should stay inside.
    pub fn boundary_distance_from(&self, seg: Seg) -> f64 {
        match self {
            Shape::Circle { center, radius_m } => {
                let far = (seg.a - center).norm().max((seg.b - center).norm());
                (radius_m - far).max(0.0)
            }
            Shape::Polygon(p) => p
                .edges()
                .map(|(a, b)| segment_edge_distance(seg, a, b))
                .fold(f64::INFINITY, f64::min),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> V2 {
        V2::new(x, y)
    }

    /// A "U" open to the north: the notch is x ∈ [40, 60], y ∈ [40, 100].
    pub(crate) fn u_shape() -> Shape {
        Shape::Polygon(
            Polygon::new(&[
                [0.0, 0.0],
                [100.0, 0.0],
                [100.0, 100.0],
                [60.0, 100.0],
                [60.0, 40.0],
                [40.0, 40.0],
                [40.0, 100.0],
                [0.0, 100.0],
            ])
            .unwrap(),
        )
    }

    #[test]
    fn clearance_is_signed() {
        let u = u_shape();
        assert_eq!(u.clearance(v(20.0, 50.0)), 20.0);
        assert_eq!(u.clearance(v(50.0, 70.0)), -10.0);
        let c = Shape::Circle {
            center: v(0.0, 0.0),
            radius_m: 10.0,
        };
        assert_eq!(c.clearance(v(3.0, 4.0)), 5.0);
    }

    #[test]
    fn a_segment_across_the_notch_leaves_and_re_enters() {
        let u = u_shape();
        // From (20, 80) to (80, 80): leaves at x = 40 (t = 1/3) after the 5 m margin begins at
        // x = 35 (t = 0.25).
        let seg = Seg::new(v(20.0, 80.0), v(80.0, 80.0));
        let run = u.safe_run(seg, Radius::constant(5.0), 0.0).unwrap();
        assert!((run.end - 0.25).abs() < 1e-12, "{run:?}");
        assert!(!run.reaches_end);
        // Below the notch the same crossing is safe.
        let seg = Seg::new(v(20.0, 20.0), v(80.0, 20.0));
        let run = u.safe_run(seg, Radius::constant(5.0), 0.0).unwrap();
        assert!(run.reaches_end);
    }

    #[test]
    fn first_touch_of_a_polygon_from_outside_and_inside() {
        let u = u_shape();
        let seg = Seg::new(v(50.0, 90.0), v(50.0, 0.0));
        // Starts in the notch (outside), reaches the notch floor's 2 m band at y = 42.
        let t = u
            .first_touch(seg, Radius::constant(2.0), Span::UNIT)
            .unwrap();
        assert!((t - 48.0 / 90.0).abs() < 1e-12, "{t}");
        let t = u
            .first_touch(seg, Radius::constant(2.0), Span { lo: 0.9, hi: 1.0 })
            .unwrap();
        assert_eq!(t, 0.9, "inside at the start of the window");
        assert_eq!(u.distance_from(seg), 0.0);
        assert_eq!(u.distance_from(Seg::new(v(50.0, 90.0), v(50.0, 45.0))), 5.0);
    }
}
