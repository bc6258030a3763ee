//! Airspace geometry as scenarios and episodes write it: polygon and circle areas, cylinder
//! no-fly zones with floor and ceiling (static or moving). Coordinates are local metres (x east,
//! y north). Fields we do not model are kept in `extra` so files round-trip.

mod containment;
mod polygon;

pub use containment::{COVER_TOLERANCE, polygon_contains, polygon_covers};
pub use polygon::{MIN_POLYGON_AREA_M2, polygon_problem};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A horizontal area with optional vertical limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Area {
    /// A simple polygon, vertices in order (either winding), not closed explicitly.
    Polygon {
        points: Vec<[f64; 2]>,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A circle (an unbounded vertical cylinder).
    Circle {
        center: [f64; 2],
        radius_m: f64,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A vertical cylinder between `floor_m` and `ceiling_m` above ground; it moves at
    /// `vel_xy` (m/s) from `center` at scenario time 0 when given.
    Cylinder {
        center: [f64; 2],
        radius_m: f64,
        floor_m: f64,
        ceiling_m: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vel_xy: Option<[f64; 2]>,
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
}

impl Area {
    pub fn polygon(points: Vec<[f64; 2]>) -> Self {
        Area::Polygon {
            points,
            extra: Map::new(),
        }
    }

    pub fn circle(center: [f64; 2], radius_m: f64) -> Self {
        Area::Circle {
            center,
            radius_m,
            extra: Map::new(),
        }
    }

    pub fn cylinder(center: [f64; 2], radius_m: f64, floor_m: f64, ceiling_m: f64) -> Self {
        Area::Cylinder {
            center,
            radius_m,
            floor_m,
            ceiling_m,
            vel_xy: None,
            extra: Map::new(),
        }
    }

    /// A structural problem with this area, if any (for `validate`, and for the gate, which
    /// refuses such an area): a polygon that is not simple or encloses no area, a radius that
    /// is not positive, a floor not below its ceiling.
    pub fn problem(&self) -> Option<String> {
        match self {
            Area::Polygon { points, .. } => polygon_problem(points),
            Area::Circle { radius_m, .. } | Area::Cylinder { radius_m, .. }
                if !(radius_m.is_finite() && *radius_m > 0.0) =>
            {
                Some(format!("radius_m must be positive, is {radius_m}"))
            }
            Area::Cylinder {
                floor_m, ceiling_m, ..
            } if floor_m >= ceiling_m || floor_m.is_nan() || ceiling_m.is_nan() => Some(format!(
                "floor_m ({floor_m}) must be below ceiling_m ({ceiling_m})"
            )),
            _ => None,
        }
    }

    /// A circle that holds the area horizontally: a circle's or cylinder's own; for a polygon,
    /// the mean of its vertices and the distance to the farthest one. `None` for a polygon
    /// without vertices. Cheap bounds for planners that must not test every zone exactly.
    pub fn enclosing_circle(&self) -> Option<([f64; 2], f64)> {
        match self {
            Area::Circle {
                center, radius_m, ..
            }
            | Area::Cylinder {
                center, radius_m, ..
            } => Some((*center, *radius_m)),
            Area::Polygon { points, .. } if points.is_empty() => None,
            Area::Polygon { points, .. } => {
                let n = points.len() as f64;
                let c = points
                    .iter()
                    .fold([0.0, 0.0], |s, p| [s[0] + p[0] / n, s[1] + p[1] / n]);
                let r = points
                    .iter()
                    .map(|p| libm::hypot(p[0] - c[0], p[1] - c[1]))
                    .fold(0.0, f64::max);
                Some((c, r))
            }
        }
    }

    /// The horizontal centre at scenario time `t_s`, the one place a moving cylinder is moved:
    /// `center + vel_xy·t_s` (each axis one multiply and one add, so the world and the score
    /// agree to the bit); a static circle or cylinder stays at `center` whatever `t_s`. `None`
    /// for a polygon.
    pub fn center_at(&self, t_s: f64) -> Option<[f64; 2]> {
        match self {
            Area::Polygon { .. } => None,
            Area::Circle { center, .. }
            | Area::Cylinder {
                center,
                vel_xy: None,
                ..
            } => Some(*center),
            Area::Cylinder {
                center,
                vel_xy: Some(v),
                ..
            } => Some([center[0] + v[0] * t_s, center[1] + v[1] * t_s]),
        }
    }

    /// Whether the horizontal point `p` is inside the area (a cylinder counts as its circle;
    /// a point on a polygon's edge may go either way).
    pub fn contains_xy(&self, p: [f64; 2]) -> bool {
        match self {
            Area::Polygon { points, .. } => polygon_contains(points, p),
            Area::Circle {
                center, radius_m, ..
            }
            | Area::Cylinder {
                center, radius_m, ..
            } => libm::hypot(p[0] - center[0], p[1] - center[1]) <= *radius_m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_shapes_parse_and_keep_unknown_fields() {
        let text = r#"{"type":"cylinder","center":[200.0,300.0],"radius_m":30,"floor_m":15,"ceiling_m":60,"vel_xy":[1.5,0.0],"label":"crane"}"#;
        let a: Area = serde_json::from_str(text).unwrap();
        match &a {
            Area::Cylinder { vel_xy, extra, .. } => {
                assert_eq!(*vel_xy, Some([1.5, 0.0]));
                assert_eq!(extra["label"], "crane");
            }
            other => panic!("{other:?}"),
        }
        let back: Area = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn the_enclosing_circle_holds_every_vertex() {
        let tri = Area::polygon(vec![[0.0, 0.0], [30.0, 0.0], [0.0, 30.0]]);
        let (c, r) = tri.enclosing_circle().unwrap();
        assert_eq!(c, [10.0, 10.0]);
        assert!((r - 500f64.sqrt()).abs() < 1e-9);
        let cyl = Area::cylinder([5.0, 6.0], 7.0, 0.0, 50.0);
        assert_eq!(cyl.enclosing_circle(), Some(([5.0, 6.0], 7.0)));
        assert_eq!(Area::polygon(vec![]).enclosing_circle(), None);
    }

    #[test]
    fn a_moving_cylinder_moves_and_the_rest_stay() {
        let mut cyl = Area::cylinder([5.0, 6.0], 7.0, 0.0, 50.0);
        assert_eq!(cyl.center_at(10.0), Some([5.0, 6.0]));
        if let Area::Cylinder { vel_xy, .. } = &mut cyl {
            *vel_xy = Some([1.5, -0.5]);
        }
        assert_eq!(cyl.center_at(10.0), Some([20.0, 1.0]));
        assert_eq!(
            Area::circle([1.0, 2.0], 3.0).center_at(9.0),
            Some([1.0, 2.0])
        );
        assert_eq!(Area::polygon(vec![[0.0, 0.0]]).center_at(0.0), None);
    }

    #[test]
    fn containment_counts_a_cylinder_as_its_circle() {
        let square = Area::polygon(vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
        assert!(square.contains_xy([5.0, 5.0]) && !square.contains_xy([15.0, 5.0]));
        let cyl = Area::cylinder([0.0, 0.0], 10.0, 0.0, 50.0);
        assert!(cyl.contains_xy([6.0, 6.0]) && !cyl.contains_xy([8.0, 8.0]));
    }

    #[test]
    fn problems_are_found() {
        assert!(
            Area::polygon(vec![[0.0, 0.0], [1.0, 0.0]])
                .problem()
                .is_some()
        );
        assert!(
            Area::cylinder([0.0, 0.0], 10.0, 50.0, 20.0)
                .problem()
                .is_some()
        );
        assert!(Area::circle([0.0, 0.0], -1.0).problem().is_some());
        let bow_tie = vec![[0.0, 0.0], [10.0, 10.0], [10.0, 0.0], [0.0, 6.0]];
        assert!(Area::polygon(bow_tie).problem().is_some());
        let flat = vec![[0.0, 0.0], [5.0, 0.0], [10.0, 0.0]];
        assert!(Area::polygon(flat).problem().is_some());
        assert!(
            Area::cylinder([0.0, 0.0], 10.0, 0.0, 20.0)
                .problem()
                .is_none()
        );
    }
}
