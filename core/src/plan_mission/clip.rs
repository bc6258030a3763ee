//! One inclusion area from several: both autopilots keep the vehicle inside *every* inclusion
//! area (MISSION-FACTS §3), and the scenario's geofence is one area the vehicle must stay in,
//! so the areas are intersected here.
//!
//! Sutherland–Hodgman clipping, which is exact when the clipping area is convex; the subject may
//! be concave. A circle becomes the regular polygon inscribed in it ([`CIRCLE_SIDES`] sides):
//! inside it means inside the circle, so the result never grows the fence. Two concave polygons
//! are not intersected (the result may be several pieces, which one fence area cannot hold):
//! that is refused with a clear error, not guessed.

use crate::airspace::{Area, polygon_problem};

type P = [f64; 2];

/// Sides of the polygon a circle becomes; the inscribed 64-gon reaches 99.88 % of the radius.
pub const CIRCLE_SIDES: usize = 64;

/// Vertices closer than this are one vertex, m.
const SAME_POINT_M: f64 = 0.01;

/// Why two inclusion areas have no single intersection.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    #[error("the inclusion areas do not overlap: no point is inside all of them")]
    Disjoint,
    #[error(
        "two concave inclusion polygons cannot be intersected into one area; make one of them \
         convex, or upload the fence you mean as one polygon"
    )]
    BothConcave,
    #[error("the inclusion areas overlap only in a shape that is not one simple area: {0}")]
    NotSimple(String),
}

/// The ring of `area` as a polygon, counter-clockwise: a circle as its inscribed polygon, a
/// cylinder by its footprint.
fn ring_of(area: &Area) -> Vec<P> {
    let mut ring = match area {
        Area::Polygon { points, .. } => points.clone(),
        Area::Circle {
            center, radius_m, ..
        }
        | Area::Cylinder {
            center, radius_m, ..
        } => (0..CIRCLE_SIDES)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / CIRCLE_SIDES as f64;
                [
                    center[0] + radius_m * libm::cos(a),
                    center[1] + radius_m * libm::sin(a),
                ]
            })
            .collect(),
    };
    if signed_area(&ring) < 0.0 {
        ring.reverse();
    }
    ring
}

fn signed_area(ring: &[P]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>()
        / 2.0
}

fn cross(o: P, a: P, b: P) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// Whether a counter-clockwise ring turns left (or goes straight) at every vertex.
fn is_convex(ring: &[P]) -> bool {
    let n = ring.len();
    n >= 3 && (0..n).all(|i| cross(ring[i], ring[(i + 1) % n], ring[(i + 2) % n]) >= -1e-9)
}

/// Whether two areas are the same area (a plan's fence uploaded to the autopilot comes back
/// as the same vertices, to the 1e-7° of the wire).
pub fn same_area(a: &Area, b: &Area) -> bool {
    let (ra, rb) = (ring_of(a), ring_of(b));
    ra.len() == rb.len()
        && (0..rb.len()).any(|shift| {
            ra.iter()
                .enumerate()
                .all(|(i, p)| near(*p, rb[(i + shift) % rb.len()]))
        })
}

fn near(a: P, b: P) -> bool {
    libm::hypot(a[0] - b[0], a[1] - b[1]) <= SAME_POINT_M
}

/// The area inside both `a` and `b`.
pub fn intersect(a: &Area, b: &Area) -> Result<Area, ClipError> {
    if same_area(a, b) {
        return Ok(a.clone());
    }
    let (ra, rb) = (ring_of(a), ring_of(b));
    let (subject, clip) = if is_convex(&rb) {
        (ra, rb)
    } else if is_convex(&ra) {
        (rb, ra)
    } else {
        return Err(ClipError::BothConcave);
    };
    let clipped = tidy(clip_ring(&subject, &clip));
    if clipped.len() < 3 || signed_area(&clipped).abs() < crate::airspace::MIN_POLYGON_AREA_M2 {
        return Err(ClipError::Disjoint);
    }
    if let Some(problem) = polygon_problem(&clipped) {
        return Err(ClipError::NotSimple(problem));
    }
    Ok(Area::polygon(clipped))
}

/// Sutherland–Hodgman: `subject` clipped by each edge of the convex, counter-clockwise `clip`.
fn clip_ring(subject: &[P], clip: &[P]) -> Vec<P> {
    let mut out = subject.to_vec();
    let n = clip.len();
    for i in 0..n {
        if out.is_empty() {
            break;
        }
        let (e0, e1) = (clip[i], clip[(i + 1) % n]);
        let input = std::mem::take(&mut out);
        let m = input.len();
        for j in 0..m {
            let (cur, prev) = (input[j], input[(j + m - 1) % m]);
            let (cur_in, prev_in) = (cross(e0, e1, cur) >= 0.0, cross(e0, e1, prev) >= 0.0);
            if cur_in {
                if !prev_in {
                    out.push(crossing(prev, cur, e0, e1));
                }
                out.push(cur);
            } else if prev_in {
                out.push(crossing(prev, cur, e0, e1));
            }
        }
    }
    out
}

/// Where segment `p`–`q` crosses the line through `e0`–`e1`.
fn crossing(p: P, q: P, e0: P, e1: P) -> P {
    let (dp, dq) = (cross(e0, e1, p), cross(e0, e1, q));
    let t = if dp == dq { 0.0 } else { dp / (dp - dq) };
    [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]
}

/// Drops repeated and collinear vertices, which clipping leaves where edges coincide.
fn tidy(ring: Vec<P>) -> Vec<P> {
    let mut out: Vec<P> = Vec::with_capacity(ring.len());
    for p in ring {
        if out.last().is_none_or(|q| !near(*q, p)) {
            out.push(p);
        }
    }
    while out.len() > 1
        && out
            .first()
            .zip(out.last())
            .is_some_and(|(a, b)| near(*a, *b))
    {
        out.pop();
    }
    let mut changed = true;
    while changed && out.len() >= 3 {
        changed = false;
        let n = out.len();
        for i in 0..n {
            let (a, b, c) = (out[(i + n - 1) % n], out[i], out[(i + 1) % n]);
            let base = libm::hypot(c[0] - a[0], c[1] - a[1]).max(1e-9);
            // Height of b over a–c below a millimetre: b adds nothing to the ring.
            if (cross(a, b, c) / base).abs() < 1e-3 {
                out.remove(i);
                changed = true;
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f64, y0: f64, side: f64) -> Area {
        Area::polygon(vec![
            [x0, y0],
            [x0 + side, y0],
            [x0 + side, y0 + side],
            [x0, y0 + side],
        ])
    }

    fn area_of(a: &Area) -> f64 {
        signed_area(&ring_of(a)).abs()
    }

    #[test]
    fn two_overlapping_squares_leave_their_common_square() {
        let got = intersect(&square(0.0, 0.0, 100.0), &square(50.0, 50.0, 100.0)).unwrap();
        assert!((area_of(&got) - 2500.0).abs() < 1e-6, "{got:?}");
        assert!(got.contains_xy([75.0, 75.0]));
        assert!(!got.contains_xy([25.0, 25.0]));
    }

    #[test]
    fn an_area_inside_another_is_itself_and_the_same_area_is_unchanged() {
        let inner = square(10.0, 10.0, 20.0);
        let got = intersect(&square(0.0, 0.0, 100.0), &inner).unwrap();
        assert!((area_of(&got) - 400.0).abs() < 1e-6);
        let same = intersect(&inner, &inner.clone()).unwrap();
        assert_eq!(same, inner);
    }

    #[test]
    fn a_concave_polygon_is_clipped_by_a_convex_one_and_by_a_circle_never_grown() {
        // An L shape (concave) and a circle around its corner.
        let l = Area::polygon(vec![
            [0.0, 0.0],
            [200.0, 0.0],
            [200.0, 100.0],
            [100.0, 100.0],
            [100.0, 200.0],
            [0.0, 200.0],
        ]);
        let circle = Area::circle([50.0, 50.0], 40.0);
        let got = intersect(&l, &circle).unwrap();
        // Inside the circle entirely: the inscribed polygon.
        assert!(area_of(&got) < std::f64::consts::PI * 40.0 * 40.0);
        assert!(area_of(&got) > 0.99 * std::f64::consts::PI * 40.0 * 40.0);
        let got = intersect(&l, &square(50.0, 50.0, 100.0)).unwrap();
        assert!((area_of(&got) - 7500.0).abs() < 1e-6, "{}", area_of(&got));
        assert!(!got.contains_xy([140.0, 140.0]));
    }

    #[test]
    fn disjoint_areas_and_two_concave_ones_are_refused() {
        assert_eq!(
            intersect(&square(0.0, 0.0, 10.0), &square(100.0, 100.0, 10.0)),
            Err(ClipError::Disjoint)
        );
        let l = |dx: f64| {
            Area::polygon(vec![
                [dx, 0.0],
                [dx + 200.0, 0.0],
                [dx + 200.0, 100.0],
                [dx + 100.0, 100.0],
                [dx + 100.0, 200.0],
                [dx, 200.0],
            ])
        };
        assert_eq!(intersect(&l(0.0), &l(10.0)), Err(ClipError::BothConcave));
    }
}
