//! Point in polygon: the one even-odd crossing test the gate, the scorer and the world use, and
//! the scorer's boundary-inclusive reading of it.
//!
//! The ring is read as given: either winding, closed explicitly or not (a repeated closing
//! vertex adds an edge of length zero, which crosses nothing). An edge counts for a point's
//! height `y` when exactly one of its ends lies above `y` (`end_y > y`), so a ray through a
//! vertex is counted once.

type P = [f64; 2];

/// Even-odd test: whether `x` is inside the ring `points`. A point on an edge may go either
/// way; fewer than 3 points enclose nothing.
///
/// Generic over the point type so a caller holding its own vectors (the gate's) asks without
/// converting the ring; each point is read as `[x, y]`.
pub fn polygon_contains<V: Copy + Into<P>>(points: &[V], x: P) -> bool {
    let n = points.len();
    let mut inside = false;
    for i in 0..n {
        let (p, q): (P, P) = (points[i].into(), points[(i + 1) % n].into());
        if (p[1] > x[1]) != (q[1] > x[1]) {
            let x_cross = p[0] + (x[1] - p[1]) / (q[1] - p[1]) * (q[0] - p[0]);
            if x[0] < x_cross {
                inside = !inside;
            }
        }
    }
    inside
}

/// Tolerance of [`polygon_covers`]' boundary, m per metre of edge length (plus one).
pub const COVER_TOLERANCE: f64 = 1e-6;

/// Whether `x` is inside the ring `points` or on its boundary: within [`COVER_TOLERANCE`]
/// (scaled by `1 + edge length`) of an edge, inside that edge's bounding box grown by the same
/// tolerance. Fewer than 3 points cover nothing. The scorer's reading of a fix in an area.
pub fn polygon_covers(points: &[P], x: P) -> bool {
    let n = points.len();
    if n < 3 {
        return false;
    }
    (0..n).any(|i| on_edge(points[i], points[(i + 1) % n], x)) || polygon_contains(points, x)
}

/// Whether `c` lies on the segment `a`–`b` within [`COVER_TOLERANCE`].
fn on_edge(a: P, b: P, c: P) -> bool {
    let [x, y] = c;
    let cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    let within = x >= a[0].min(b[0]) - COVER_TOLERANCE
        && x <= a[0].max(b[0]) + COVER_TOLERANCE
        && y >= a[1].min(b[1]) - COVER_TOLERANCE
        && y <= a[1].max(b[1]) + COVER_TOLERANCE;
    within && cross.abs() <= COVER_TOLERANCE * (1.0 + (b[0] - a[0]).hypot(b[1] - a[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: [P; 4] = [[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]];

    #[test]
    fn containment_is_even_odd() {
        assert!(polygon_contains(&SQUARE, [50.0, 50.0]));
        assert!(!polygon_contains(&SQUARE, [150.0, 50.0]));
        assert!(!polygon_contains(&SQUARE, [50.0, -1.0]));
    }

    #[test]
    fn winding_and_a_repeated_closing_vertex_do_not_matter() {
        let mut reversed = SQUARE.to_vec();
        reversed.reverse();
        let mut closed = SQUARE.to_vec();
        closed.push(SQUARE[0]);
        for x in [[50.0, 50.0], [150.0, 50.0], [-0.5, 99.5], [99.9, 0.1]] {
            let want = polygon_contains(&SQUARE, x);
            assert_eq!(polygon_contains(&reversed, x), want, "{x:?}");
            assert_eq!(polygon_contains(&closed, x), want, "{x:?}");
        }
    }

    #[test]
    fn a_ray_through_a_vertex_counts_once() {
        // A diamond: the ray from (0, 0) east passes through the vertex (10, 0).
        let diamond = [[0.0, -10.0], [10.0, 0.0], [0.0, 10.0], [-10.0, 0.0]];
        assert!(polygon_contains(&diamond, [0.0, 0.0]));
        assert!(!polygon_contains(&diamond, [11.0, 0.0]));
    }

    #[test]
    fn fewer_than_three_points_enclose_and_cover_nothing() {
        assert!(!polygon_contains::<P>(&[], [0.0, 0.0]));
        assert!(!polygon_contains(&[[0.0, 0.0]], [0.0, 0.0]));
        assert!(!polygon_covers(&SQUARE[..2], [1.0, 0.0]));
    }

    #[test]
    fn covering_counts_the_boundary_within_the_tolerance() {
        assert!(polygon_covers(&SQUARE, [50.0, 50.0]));
        for on in [[0.0, 0.0], [100.0, 50.0], [50.0, 100.0], [0.0, 30.0]] {
            assert!(polygon_covers(&SQUARE, on), "{on:?}");
        }
        assert!(polygon_covers(&SQUARE, [100.0 + 5e-7, 50.0]));
        assert!(!polygon_covers(&SQUARE, [100.1, 50.0]));
        assert!(!polygon_covers(&SQUARE, [150.0, 50.0]));
    }
}
