//! The static no-fly zones near a leg. The agent checks many candidate legs a turn (waits,
//! refuges, ways around a zone), each with the gate's checks; asked of every zone of the
//! scenario, that work grew with the zone count times the number of checks (10,000 zones once
//! took minutes an episode). A zone farther from a leg than its own size plus [`NEAR_M`] cannot
//! deny it — the gate's horizontal margins (position uncertainty, stopping distance) are far
//! smaller — so a leg is checked against the zones near it only, found in one cheap pass.

use alpha3_core::airspace::Area;

/// How far beyond its bounding circle a zone is still checked against a leg, metres.
const NEAR_M: f64 = 100.0;

/// Static zones, each with its bounding circle (centre, radius).
#[derive(Debug, Clone, Default)]
pub(super) struct StaticZones {
    zones: Vec<(Area, [f64; 2], f64)>,
}

/// Horizontal distance from `c` to the segment `a`–`b`.
fn distance(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let s = if len2 > 0.0 {
        (((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (c[0] - a[0] - s * dx).hypot(c[1] - a[1] - s * dy)
}

impl StaticZones {
    pub fn new(areas: Vec<Area>) -> Self {
        let zones = areas
            .into_iter()
            .map(|a| {
                // Validation refuses a polygon without vertices; one here bounds nothing.
                let (c, r) = a.enclosing_circle().unwrap_or(([0.0, 0.0], 0.0));
                (a, c, r)
            })
            .collect();
        Self { zones }
    }

    /// The zones that could deny a leg from `a` to `b` (horizontally).
    pub fn near(&self, a: [f64; 2], b: [f64; 2]) -> impl Iterator<Item = &Area> {
        self.zones
            .iter()
            .filter(move |(_, c, r)| distance(a, b, *c) <= r + NEAR_M)
            .map(|(area, ..)| area)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_zones_near_the_leg_are_found() {
        let zones = StaticZones::new(vec![
            Area::cylinder([500.0, 50.0], 20.0, 0.0, 100.0),
            Area::cylinder([500.0, 300.0], 20.0, 0.0, 100.0),
            Area::polygon(vec![[1200.0, 0.0], [1300.0, 0.0], [1300.0, 100.0]]),
        ]);
        let found: Vec<_> = zones.near([0.0, 0.0], [1000.0, 0.0]).collect();
        assert_eq!(found.len(), 1, "{found:?}");
        // Past the leg's end, the polygon's corner is within reach of its bounding circle.
        assert_eq!(zones.near([0.0, 0.0], [1150.0, 0.0]).count(), 2);
    }
}
