//! Ways around static no-fly zones. The gate denies a straight leg through a zone; the agent
//! then flies around it over one or two via points on a circle a margin outside the zone, on
//! the shorter side that the gate's own checks (zones, fence, band) accept.

use super::check::PathCheck;
use alpha3_core::gate::ids;
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;

/// Margins outside a zone's radius to try, metres.
const MARGINS_M: [f64; 5] = [12.0, 20.0, 32.0, 50.0, 75.0];
/// Zones in the way tried for a way around, first along the leg first: each costs up to 20
/// candidate ways of up to 3 checked legs, so a leg through a dense field of zones would
/// otherwise try hundreds (the suite has at most 6 zones).
const MAX_ZONES_TRIED: usize = 12;

/// A static zone as a circle (every static zone of the suite is a cylinder).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Zone {
    pub center: [f64; 2],
    pub radius_m: f64,
}

/// The static zones of `scenario` as circles (polygons by their bounding circle).
pub(super) fn static_zones(scenario: &Scenario) -> Vec<Zone> {
    scenario
        .airspace
        .no_fly_zones
        .iter()
        .filter_map(|a| {
            a.enclosing_circle()
                .map(|(center, radius_m)| Zone { center, radius_m })
        })
        .collect()
}

fn blocked(
    check: &PathCheck,
    now: &VehicleSnapshot,
    from: [f64; 3],
    to: [f64; 3],
    t_s: f64,
) -> bool {
    check
        .leg(now, from, to, t_s)
        .iter()
        .any(|id| ids::kind(id).detour_helps())
}

fn length(from: [f64; 3], via: &[[f64; 3]]) -> f64 {
    let mut at = from;
    let mut total = 0.0;
    for p in via {
        total += (p[0] - at[0]).hypot(p[1] - at[1]);
        at = *p;
    }
    total
}

/// Distance from `c` to the segment `a`–`b` (horizontal), and where along it (0..1).
fn closest(a: [f64; 3], b: [f64; 3], c: [f64; 2]) -> (f64, f64) {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let s = if len2 > 0.0 {
        (((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (px, py) = (a[0] + s * dx, a[1] + s * dy);
    ((c[0] - px).hypot(c[1] - py), s)
}

/// Via points (ending with `to`) that take a leg `from` → `to` around the static zones in its
/// way, or `None` when the straight leg is clear of them or no way around was found.
pub(super) fn around(
    check: &PathCheck,
    zones: &[Zone],
    now: &VehicleSnapshot,
    from: [f64; 3],
    to: [f64; 3],
    t_s: f64,
) -> Option<Vec<[f64; 3]>> {
    if !blocked(check, now, from, to, t_s) {
        return None;
    }
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    let len = dx.hypot(dy).max(1e-6);
    let (ux, uy) = (dx / len, dy / len);
    let z_at = |s: f64| from[2] + s * (to[2] - from[2]);
    let mut best: Option<Vec<[f64; 3]>> = None;
    let mut in_way: Vec<&Zone> = zones
        .iter()
        .filter(|z| closest(from, to, z.center).0 < z.radius_m + MARGINS_M[MARGINS_M.len() - 1])
        .collect();
    in_way.sort_by(|a, b| {
        closest(from, to, a.center)
            .1
            .total_cmp(&closest(from, to, b.center).1)
    });
    for zone in in_way.into_iter().take(MAX_ZONES_TRIED) {
        let (_, s) = closest(from, to, zone.center);
        let c = zone.center;
        for margin in MARGINS_M {
            let r = zone.radius_m + margin;
            for side in [1.0, -1.0] {
                let (nx, ny) = (-uy * side, ux * side);
                // The centre's foot on the leg, pushed out sideways past the circle.
                let along = (c[0] - from[0]) * ux + (c[1] - from[1]) * uy;
                let foot = [from[0] + along * ux, from[1] + along * uy];
                let off = ((c[0] - foot[0]) * nx + (c[1] - foot[1]) * ny).max(-r);
                let push = r + off;
                let one = vec![[
                    foot[0] + nx * push * 1.15,
                    foot[1] + ny * push * 1.15,
                    z_at(s),
                ]];
                // Two corners of a square around the circle, before and after it.
                let two = vec![
                    [
                        c[0] - ux * r + nx * r,
                        c[1] - uy * r + ny * r,
                        z_at((s - r / len).clamp(0.0, 1.0)),
                    ],
                    [
                        c[0] + ux * r + nx * r,
                        c[1] + uy * r + ny * r,
                        z_at((s + r / len).clamp(0.0, 1.0)),
                    ],
                ];
                for mut via in [one, two] {
                    via.push(to);
                    let shorter = best
                        .as_ref()
                        .is_none_or(|b| length(from, &via) < length(from, b));
                    if !shorter {
                        continue;
                    }
                    let mut at = from;
                    let clear = via.iter().all(|p| {
                        let ok = !blocked(check, now, at, *p, t_s);
                        at = *p;
                        ok
                    });
                    if clear {
                        best = Some(via);
                    }
                }
            }
            if best.is_some() {
                break;
            }
        }
        if best.is_some() {
            break;
        }
    }
    best
}

/// Spots to wait at near `here`, nearest first: rings 20 and 40 m out, other heights within
/// `band` (with a margin), then rings 80 and 120 m out at the same height.
pub(super) fn refuges(here: [f64; 3], band: (f64, f64)) -> Vec<[f64; 3]> {
    let (lo, hi) = (band.0 + 5.0, band.1 - 5.0);
    let ring = |out: &mut Vec<[f64; 3]>, r: f64| {
        for k in 0..8 {
            let a = std::f64::consts::FRAC_PI_4 * f64::from(k);
            out.push([here[0] + r * a.cos(), here[1] + r * a.sin(), here[2]]);
        }
    };
    let mut out = Vec::new();
    ring(&mut out, 20.0);
    ring(&mut out, 40.0);
    out.extend(
        [-20.0, 20.0, -40.0, 40.0]
            .iter()
            .map(|dz| [here[0], here[1], here[2] + dz])
            .filter(|p| p[2] >= lo && p[2] <= hi),
    );
    for r in [80.0, 120.0] {
        for k in 0..8 {
            let a = std::f64::consts::FRAC_PI_4 * f64::from(k);
            out.push([here[0] + r * a.cos(), here[1] + r * a.sin(), here[2]]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_point_of_a_leg_to_a_centre_is_found() {
        let (d, s) = closest([0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [40.0, 30.0]);
        assert!((d - 30.0).abs() < 1e-9 && (s - 0.4).abs() < 1e-9);
        let (d, s) = closest([0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [-40.0, 30.0]);
        assert!((d - 50.0).abs() < 1e-9 && s == 0.0);
    }

    #[test]
    fn refuges_stay_in_the_band_and_go_nearest_first() {
        let r = refuges([0.0, 0.0, 30.0], (20.0, 120.0));
        assert_eq!(r[0], [20.0, 0.0, 30.0]);
        assert_eq!(r[16], [0.0, 0.0, 50.0], "20 m down leaves the band");
        assert!(r.iter().all(|p| p[2] >= 25.0 && p[2] <= 115.0));
        assert_eq!(r.len(), 16 + 2 + 16);
    }
}
