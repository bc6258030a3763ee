//! Closed-form geometry along a segment, without allocation.
//!
//! A point moves along `a + t·(b − a)` for `t ∈ [0, 1]`; the questions are "for which `t` is it
//! within a (possibly tapering) radius of a point, an edge or a circle". Each answer is one
//! closed interval ([`Span`]) because every region asked about is convex in (position, t); the
//! non-convex shapes (concave polygons) are handled by their edges one at a time.
//!
//! A boundary touch counts as a conflict (closed intervals), so a margin of zero still catches a
//! crossing.

use nalgebra::{SVector, Vector2};

pub(crate) type V2 = Vector2<f64>;

/// A closed parameter interval `[lo, hi]` inside `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Span {
    pub lo: f64,
    pub hi: f64,
}

impl Span {
    pub const UNIT: Span = Span { lo: 0.0, hi: 1.0 };

    /// `[lo, hi] ∩ [0, 1]`, or `None` when empty (or NaN).
    pub fn clipped(lo: f64, hi: f64) -> Option<Span> {
        let (lo, hi) = (lo.max(0.0), hi.min(1.0));
        (lo <= hi).then_some(Span { lo, hi })
    }

    pub fn intersect(self, other: Span) -> Option<Span> {
        Span::clipped(self.lo.max(other.lo), self.hi.min(other.hi))
    }

    pub fn hull(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    pub fn contains(self, t: f64) -> bool {
        self.lo <= t && t <= self.hi
    }
}

/// Hull of two optional spans.
pub(crate) fn hull(a: Option<Span>, b: Option<Span>) -> Option<Span> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.hull(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `{t ∈ [0,1] : b·t + c ≤ 0}`. An infinite `c` (an unbounded floor or ceiling) means always or
/// never.
pub(crate) fn linear_le0(b: f64, c: f64) -> Option<Span> {
    if c == f64::NEG_INFINITY {
        return Some(Span::UNIT);
    }
    if c.is_nan() || c == f64::INFINITY {
        return None;
    }
    if b == 0.0 {
        return (c <= 0.0).then_some(Span::UNIT);
    }
    let root = -c / b;
    if b > 0.0 {
        Span::clipped(0.0, root)
    } else {
        Span::clipped(root, 1.0)
    }
}

/// `{t ∈ [0,1] : a·t² + b·t + c ≤ 0}`, assuming the true set is an interval (the callers ask
/// about convex regions); with `a < 0` two rays can meet `[0,1]` only through rounding, so their
/// hull is returned, which is the conservative answer.
pub(crate) fn quadratic_le0(a: f64, b: f64, c: f64) -> Option<Span> {
    if a == 0.0 {
        return linear_le0(b, c);
    }
    let disc = b * b - 4.0 * a * c;
    if disc.is_nan() {
        return None;
    }
    if disc < 0.0 {
        return (a < 0.0).then_some(Span::UNIT);
    }
    let sq = disc.sqrt();
    let q = -0.5 * (b + if b >= 0.0 { sq } else { -sq });
    let (r1, r2) = if q == 0.0 {
        (0.0, 0.0)
    } else {
        let (x, y) = (q / a, c / q);
        (x.min(y), x.max(y))
    };
    if a > 0.0 {
        Span::clipped(r1, r2)
    } else {
        hull(Span::clipped(f64::NEG_INFINITY, r1), Span::clipped(r2, 1.0))
    }
}

/// A radius that changes linearly along the segment: `r(t) = r0 + r1·t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Radius {
    pub r0: f64,
    pub r1: f64,
}

impl Radius {
    pub const fn constant(r: f64) -> Self {
        Self { r0: r, r1: 0.0 }
    }

    /// `base` at the end, `base + extra` at the start (the stopping-distance taper).
    pub fn tapered(base: f64, extra: f64) -> Self {
        Self {
            r0: base + extra,
            r1: -extra,
        }
    }

    pub fn at(self, t: f64) -> f64 {
        self.r0 + self.r1 * t
    }

    pub fn plus(self, r: f64) -> Self {
        Self {
            r0: self.r0 + r,
            r1: self.r1,
        }
    }
}

/// A segment `a → b` in the horizontal plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Seg {
    pub a: V2,
    pub b: V2,
}

impl Seg {
    pub fn new(a: V2, b: V2) -> Self {
        Self { a, b }
    }

    pub fn at(self, t: f64) -> V2 {
        self.a + (self.b - self.a) * t
    }

    /// `t` with `|x(t) − p| ≤ r(t)` (the moving point within a disc around `p`).
    pub fn near_point(self, p: V2, r: Radius) -> Option<Span> {
        let d = self.b - self.a;
        let w = self.a - p;
        let a = d.dot(&d) - r.r1 * r.r1;
        let b = 2.0 * (w.dot(&d) - r.r0 * r.r1);
        let c = w.dot(&w) - r.r0 * r.r0;
        quadratic_le0(a, b, c)
    }

    /// `t` with the distance from `x(t)` to the edge `p → q` at most `r(t)`: the segment inside a
    /// capsule (two discs and a band).
    pub fn near_edge(self, p: V2, q: V2, r: Radius) -> Option<Span> {
        let discs = hull(self.near_point(p, r), self.near_point(q, r));
        let e = q - p;
        let len2 = e.dot(&e);
        if len2 == 0.0 {
            return discs;
        }
        let len = len2.sqrt();
        let d = self.b - self.a;
        let w = self.a - p;
        // Projection onto the edge within [0, |e|²], perpendicular offset within ±|e|·r(t).
        let along = linear_le0(-d.dot(&e), -w.dot(&e))
            .and_then(|s| linear_le0(d.dot(&e), w.dot(&e) - len2).and_then(|u| s.intersect(u)));
        let (c0, c1) = (cross(e, w), cross(e, d));
        let band = along
            .and_then(|s| linear_le0(c1 - len * r.r1, c0 - len * r.r0).and_then(|u| s.intersect(u)))
            .and_then(|s| {
                linear_le0(-c1 - len * r.r1, -c0 - len * r.r0).and_then(|u| s.intersect(u))
            });
        hull(discs, band)
    }
}

/// The z-component of the 2-D cross product.
pub(crate) fn cross(u: V2, v: V2) -> f64 {
    u.x * v.y - u.y * v.x
}

/// Distance from `x` to the edge `p → q`, in the plane or in space.
pub(crate) fn point_edge_distance<const D: usize>(
    x: SVector<f64, D>,
    p: SVector<f64, D>,
    q: SVector<f64, D>,
) -> f64 {
    let e = q - p;
    let len2 = e.dot(&e);
    let t = if len2 > 0.0 {
        ((x - p).dot(&e) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x - (p + e * t)).norm()
}

/// Whether two closed segments intersect.
fn segments_cross(s: Seg, p: V2, q: V2) -> bool {
    let d1 = cross(q - p, s.a - p);
    let d2 = cross(q - p, s.b - p);
    let d3 = cross(s.b - s.a, p - s.a);
    let d4 = cross(s.b - s.a, q - s.a);
    ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
}

/// Shortest distance between a segment and an edge (0 when they cross).
pub(crate) fn segment_edge_distance(s: Seg, p: V2, q: V2) -> f64 {
    if segments_cross(s, p, q) {
        return 0.0;
    }
    point_edge_distance(s.a, p, q)
        .min(point_edge_distance(s.b, p, q))
        .min(point_edge_distance(p, s.a, s.b))
        .min(point_edge_distance(q, s.a, s.b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> V2 {
        V2::new(x, y)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn quadratic_spans_are_the_roots_clipped_to_the_unit_interval() {
        // (t − 0.25)(t − 0.75) ≤ 0
        let s = quadratic_le0(1.0, -1.0, 0.1875).unwrap();
        assert!(close(s.lo, 0.25) && close(s.hi, 0.75), "{s:?}");
        assert!(quadratic_le0(1.0, 0.0, 1.0).is_none());
        // −t² + 0.01 ≤ 0 holds for t ≥ 0.1 (and t ≤ −0.1, outside the unit interval).
        let s = quadratic_le0(-1.0, 0.0, 0.01).unwrap();
        assert!(close(s.lo, 0.1) && close(s.hi, 1.0), "{s:?}");
    }

    #[test]
    fn linear_spans_handle_unbounded_limits() {
        assert_eq!(linear_le0(1.0, f64::NEG_INFINITY), Some(Span::UNIT));
        assert_eq!(linear_le0(1.0, f64::INFINITY), None);
        let s = linear_le0(2.0, -1.0).unwrap();
        assert!(close(s.hi, 0.5) && s.lo == 0.0);
    }

    #[test]
    fn a_segment_passing_a_disc_at_distance_three_enters_a_radius_five_disc_for_eight_metres() {
        // From (−10, 3) to (10, 3): inside radius 5 of the origin for |x| ≤ 4, t ∈ [0.3, 0.7].
        let s = Seg::new(v(-10.0, 3.0), v(10.0, 3.0));
        let span = s.near_point(v(0.0, 0.0), Radius::constant(5.0)).unwrap();
        assert!(close(span.lo, 0.3) && close(span.hi, 0.7), "{span:?}");
        assert!(s.near_point(v(0.0, 0.0), Radius::constant(2.9)).is_none());
    }

    #[test]
    fn a_tapered_radius_shrinks_towards_the_end() {
        // Radius 4 at t = 0 and 0 at t = 1 around (5, 0); the segment runs along the x axis.
        let s = Seg::new(v(0.0, 0.0), v(10.0, 0.0));
        let span = s
            .near_point(v(5.0, 0.0), Radius::tapered(0.0, 4.0))
            .unwrap();
        // |10t − 5| ≤ 4 − 4t  ⇒  t ∈ [1/6, 9/14]
        assert!(
            close(span.lo, 1.0 / 6.0) && close(span.hi, 9.0 / 14.0),
            "{span:?}"
        );
    }

    #[test]
    fn capsule_spans_cover_the_band_and_the_end_discs() {
        let s = Seg::new(v(0.0, -10.0), v(0.0, 10.0));
        // Edge from (1, −100) to (1, 100), radius 2: the whole segment is within 1 m.
        let span = s
            .near_edge(v(1.0, -100.0), v(1.0, 100.0), Radius::constant(2.0))
            .unwrap();
        assert_eq!(span, Span::UNIT);
        // A short crossing edge from (−1, 0) to (1, 0) with radius 0: only the crossing point.
        let span = s
            .near_edge(v(-1.0, 0.0), v(1.0, 0.0), Radius::constant(0.0))
            .unwrap();
        assert!(close(span.lo, 0.5) && close(span.hi, 0.5), "{span:?}");
        // An edge ending 3 m to the right of the segment: only its end disc can reach.
        assert!(
            s.near_edge(v(3.0, 0.0), v(9.0, 0.0), Radius::constant(2.0))
                .is_none()
        );
        let span = s
            .near_edge(v(3.0, 0.0), v(9.0, 0.0), Radius::constant(5.0))
            .unwrap();
        assert!(close(span.lo, 0.3) && close(span.hi, 0.7), "{span:?}");
    }

    #[test]
    fn distances_between_segments() {
        let s = Seg::new(v(0.0, 0.0), v(10.0, 0.0));
        assert!(close(
            segment_edge_distance(s, v(5.0, 2.0), v(5.0, 7.0)),
            2.0
        ));
        assert_eq!(segment_edge_distance(s, v(5.0, -1.0), v(5.0, 1.0)), 0.0);
        assert!(close(point_edge_distance(v(13.0, 4.0), s.a, s.b), 5.0));
    }
}
