//! Whether a polygon is one the gate can reason about: a simple ring (no edge crosses or touches
//! another, none folds back over its neighbour) that encloses some area. A self-crossing or flat
//! fence has no clear inside — the even-odd test would put parts of the intended area outside,
//! or the reverse — so it is refused where it is read rather than guessed at where it is flown.

/// Smallest area a polygon must enclose, m²: below it, it is a line or a point.
pub const MIN_POLYGON_AREA_M2: f64 = 1.0;

type P = [f64; 2];

/// The ring's distinct vertices with their index in `points`: consecutive repeats, and a last
/// vertex that repeats the first (an explicitly closed ring), are dropped.
fn ring(points: &[P]) -> Vec<(usize, P)> {
    let mut out: Vec<(usize, P)> = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        if out.last().is_none_or(|(_, q)| q != p) {
            out.push((i, *p));
        }
    }
    if out.len() > 1 && out.first().map(|f| f.1) == out.last().map(|l| l.1) {
        out.pop();
    }
    out
}

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1]]
}

fn cross(a: P, b: P) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// The sign of the turn a → b → c (positive: left).
fn orient(a: P, b: P, c: P) -> f64 {
    cross(sub(b, a), sub(c, a))
}

/// Whether `c`, collinear with `a`–`b`, lies on that segment.
fn on_segment(a: P, b: P, c: P) -> bool {
    c[0] >= a[0].min(b[0])
        && c[0] <= a[0].max(b[0])
        && c[1] >= a[1].min(b[1])
        && c[1] <= a[1].max(b[1])
}

/// Whether segments `a`–`b` and `c`–`d` share any point (crossing, touching or overlapping).
fn segments_meet(a: P, b: P, c: P, d: P) -> bool {
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    if o1 * o2 < 0.0 && o3 * o4 < 0.0 {
        return true;
    }
    (o1 == 0.0 && on_segment(a, b, c))
        || (o2 == 0.0 && on_segment(a, b, d))
        || (o3 == 0.0 && on_segment(c, d, a))
        || (o4 == 0.0 && on_segment(c, d, b))
}

/// Twice the signed area (shoelace).
fn twice_area(ring: &[(usize, P)]) -> f64 {
    let n = ring.len();
    (0..n).map(|i| cross(ring[i].1, ring[(i + 1) % n].1)).sum()
}

/// The first pair of edges (by the index in the input of the point each starts at) that cross,
/// touch, or fold back over each other.
fn first_crossing(ring: &[(usize, P)]) -> Option<(usize, usize)> {
    let n = ring.len();
    let edge = |i: usize| (ring[i].1, ring[(i + 1) % n].1);
    for i in 0..n {
        for j in i + 1..n {
            let ((a, b), (c, d)) = (edge(i), edge(j));
            let meet = if j == i + 1 {
                // Neighbours share b = c: they overlap when d turns straight back along b → a.
                orient(a, b, d) == 0.0 && dot(sub(a, b), sub(d, b)) > 0.0
            } else if i == 0 && j == n - 1 {
                // The closing edge shares a = d with the first.
                orient(c, a, b) == 0.0 && dot(sub(c, a), sub(b, a)) > 0.0
            } else {
                segments_meet(a, b, c, d)
            };
            if meet {
                return Some((ring[i].0, ring[j].0));
            }
        }
    }
    None
}

/// Why `points` is not a simple polygon enclosing at least [`MIN_POLYGON_AREA_M2`], if it is
/// not. The points are in order, either winding, the ring not closed explicitly (a closing
/// repeat of the first point is tolerated, as are consecutive repeats).
pub fn polygon_problem(points: &[P]) -> Option<String> {
    if points.len() < 3 {
        return Some(format!(
            "a polygon needs at least 3 points, has {}",
            points.len()
        ));
    }
    if points.iter().flatten().any(|v| !v.is_finite()) {
        return Some("polygon coordinates must be finite".into());
    }
    let ring = ring(points);
    if ring.len() < 3 {
        return Some(format!(
            "a polygon needs at least 3 distinct points, has {}",
            ring.len()
        ));
    }
    let area = twice_area(&ring).abs() / 2.0;
    if area.is_nan() || area < MIN_POLYGON_AREA_M2 {
        return Some(format!(
            "the polygon encloses {area:.3} m² (its points are collinear or nearly so); at least \
             {MIN_POLYGON_AREA_M2} m² is needed"
        ));
    }
    first_crossing(&ring).map(|(i, j)| {
        format!(
            "the edges from point {i} and from point {j} cross or touch: a polygon must be simple"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: [P; 4] = [[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]];

    #[test]
    fn simple_polygons_pass_either_winding_and_closed_or_not() {
        assert_eq!(polygon_problem(&SQUARE), None);
        let mut reversed = SQUARE.to_vec();
        reversed.reverse();
        assert_eq!(polygon_problem(&reversed), None);
        let mut closed = SQUARE.to_vec();
        closed.push(SQUARE[0]);
        assert_eq!(polygon_problem(&closed), None);
        // Concave (a U) is fine.
        let u = [
            [0.0, 0.0],
            [30.0, 0.0],
            [30.0, 20.0],
            [70.0, 20.0],
            [70.0, 0.0],
            [100.0, 0.0],
            [100.0, 50.0],
            [0.0, 50.0],
        ];
        assert_eq!(polygon_problem(&u), None);
    }

    #[test]
    fn a_bow_tie_crosses_itself() {
        let bow = [[0.0, 0.0], [100.0, 100.0], [100.0, 0.0], [0.0, 60.0]];
        let p = polygon_problem(&bow).unwrap();
        assert!(p.contains("point 0") && p.contains("point 2"), "{p}");
    }

    #[test]
    fn collinear_and_repeated_points_enclose_nothing() {
        let line = [[0.0, 0.0], [50.0, 0.0], [100.0, 0.0]];
        assert!(polygon_problem(&line).unwrap().contains("collinear"));
        let point = [[5.0, 5.0], [5.0, 5.0], [5.0, 5.0], [5.0, 5.0]];
        assert!(polygon_problem(&point).unwrap().contains("3 distinct"));
        let sliver = [[0.0, 0.0], [1000.0, 0.0], [1000.0, 0.0005]];
        assert!(polygon_problem(&sliver).is_some());
    }

    #[test]
    fn a_vertex_on_another_edge_or_an_edge_folding_back_is_not_simple() {
        // Point 4 touches edge 0–1 from inside.
        let touch = [
            [0.0, 0.0],
            [100.0, 0.0],
            [100.0, 100.0],
            [50.0, 100.0],
            [50.0, 0.0],
            [0.0, 50.0],
        ];
        assert!(polygon_problem(&touch).is_some());
        // A spike: 1 → 2 goes out along x and 2 → 3 comes straight back past 1.
        let spike = [
            [0.0, 0.0],
            [100.0, 0.0],
            [150.0, 0.0],
            [50.0, 0.0],
            [50.0, 100.0],
        ];
        assert!(polygon_problem(&spike).is_some());
    }

    #[test]
    fn non_finite_and_short_rings_are_refused() {
        assert!(polygon_problem(&[[0.0, 0.0], [1.0, 0.0]]).is_some());
        assert!(polygon_problem(&[[0.0, 0.0], [f64::NAN, 0.0], [0.0, 1.0]]).is_some());
    }
}
