//! The autopilot's own geofence over the world, as PX4's navigator enforces it
//! (MISSION-FACTS §3, PX4 rows): the FENCE plan's areas — inside every inclusion, outside every
//! exclusion, PX4 ANDs them all — plus GF_MAX_HOR_DIST / GF_MAX_VER_DIST around home, active
//! while GF_ACTION ≠ 0. A new FENCE plan drops the areas that do not hold home (or, flying, the
//! vehicle), saying so, as PX4 does after an upload it ACKed. The geometry is `core`'s:
//! [`Fence::from_items`] reads the items, [`Area::contains_xy`] tests a point.
//!
//! Where it acts: `commands` (a DO_REPOSITION target outside is ACKed and not flown, when
//! GF_ACTION is hold or worse; offboard setpoints are not checked up front), `failsafe` (a
//! breach in flight, GF_ACTION), `commands` again (arming refused while breached). ArduCopter
//! honours it only with FENCE_ENABLE = 1 and the polygon bit of FENCE_TYPE (`copter`).

use super::codec::mav::MavSeverity;
use super::options::Autopilot;
use super::vehicle::Px4Vehicle;
use alpha3_core::airspace::Area;
use alpha3_core::frames::{Enu, Geo, LocalFrame};
use alpha3_core::mission_file::{Fence, LatLon, MissionItem, ReadOptions};

/// FENCE_TYPE bit: the uploaded polygons and circles.
const FENCE_TYPE_POLYGON: i64 = 4;

/// The FENCE plan's areas in the world frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct PlanFence {
    inclusions: Vec<Area>,
    exclusions: Vec<Area>,
}

impl PlanFence {
    /// Whether the horizontal position of `p` is inside every inclusion and outside every
    /// exclusion (an empty plan allows everything).
    pub fn allows(&self, p: Enu) -> bool {
        let xy = [p.x, p.y];
        self.inclusions.iter().all(|a| a.contains_xy(xy))
            && !self.exclusions.iter().any(|a| a.contains_xy(xy))
    }

    /// One area, with whether it is an inclusion.
    fn allows_in(area: &Area, inclusion: bool, p: Enu) -> bool {
        area.contains_xy([p.x, p.y]) == inclusion
    }
}

/// `fence`'s areas in `frame`, each with its inclusion flag, in the order PX4 walks them.
fn areas(fence: &Fence, frame: &LocalFrame) -> Vec<(Area, bool)> {
    let xy = |p: &LatLon| {
        let e = frame.to_enu(Geo {
            lat_deg: p.lat_deg,
            lon_deg: p.lon_deg,
            alt_amsl_m: frame.home().alt_amsl_m,
        });
        [e.x, e.y]
    };
    let polygons = fence.polygons.iter().map(|p| {
        (
            Area::polygon(p.vertices.iter().map(xy).collect()),
            p.inclusion,
        )
    });
    let circles = fence
        .circles
        .iter()
        .map(|c| (Area::circle(xy(&c.center), c.radius_m), c.inclusion));
    polygons.chain(circles).collect()
}

impl Px4Vehicle {
    /// A new FENCE plan (its items as stored). An area that leaves home out, or (flying, with
    /// GF_ACTION ≠ 0) the vehicle, is dropped with PX4's text; a plan `core` cannot read is
    /// not enforced (logged).
    pub fn set_plan_fence(&mut self, items: &[MissionItem]) {
        let fence = match Fence::from_items(items, &ReadOptions::default()) {
            Ok(f) => f,
            Err(why) => {
                tracing::warn!(%why, "FENCE plan not enforced");
                self.plan_fence = PlanFence::default();
                return;
            }
        };
        let px4 = self.identity.autopilot == Autopilot::Px4;
        let check_vehicle = px4 && self.params.number("GF_ACTION") != 0.0 && self.airborne();
        let mut kept = PlanFence::default();
        for (area, inclusion) in areas(&fence, &self.frames.local) {
            if px4
                && let Some(home) = self.frames.home
                && !PlanFence::allows_in(&area, inclusion, home)
            {
                self.say(
                    MavSeverity::MAV_SEVERITY_CRITICAL,
                    "Geofence invalid, doesn't contain Home position",
                );
                continue;
            }
            if check_vehicle && !PlanFence::allows_in(&area, inclusion, self.snap.position) {
                self.say(
                    MavSeverity::MAV_SEVERITY_CRITICAL,
                    "Geofence invalid, doesn't contain current vehicle position",
                );
                continue;
            }
            if inclusion {
                kept.inclusions.push(area);
            } else {
                kept.exclusions.push(area);
            }
        }
        self.plan_fence = kept;
    }

    /// Whether the autopilot acts on its fence at all: PX4 GF_ACTION ≠ 0; ArduCopter
    /// FENCE_ENABLE = 1 with the polygon bit of FENCE_TYPE.
    pub(super) fn fence_enforced(&self) -> bool {
        match self.identity.autopilot {
            Autopilot::Px4 => self.params.number("GF_ACTION") != 0.0,
            Autopilot::ArduCopter => {
                self.params.number("FENCE_ENABLE") == 1.0
                    && (self.params.number("FENCE_TYPE") as i64) & FENCE_TYPE_POLYGON != 0
            }
        }
    }

    /// Where `p` breaks the fence: (beyond GF_MAX_HOR_DIST, above GF_MAX_VER_DIST, outside
    /// the FENCE plan), PX4's three geofence results.
    pub(super) fn fence_breaches(&self, p: Enu) -> (bool, bool, bool) {
        let (too_far, too_high) = match (self.identity.autopilot, self.frames.home) {
            (Autopilot::Px4, Some(home)) => {
                let hor = self.params.number("GF_MAX_HOR_DIST");
                let ver = self.params.number("GF_MAX_VER_DIST");
                (
                    hor > 0.0 && p.horizontal_distance(home) > hor,
                    ver > 0.0 && p.z - home.z > ver,
                )
            }
            _ => (false, false),
        };
        (too_far, too_high, !self.plan_fence.allows(p))
    }

    /// Whether `p` is outside the fence anywhere.
    pub(super) fn outside_any_fence(&self, p: Enu) -> bool {
        let (far, high, plan) = self.fence_breaches(p);
        far || high || plan
    }

    /// PX4's geofence check's texts for the breaches it found.
    pub(super) fn say_breaches(&mut self, (far, high, plan): (bool, bool, bool)) {
        for (breached, text) in [
            (far, "Geofence: exceeding maximum distance to Home"),
            (high, "Geofence: exceeding maximum altitude above Home"),
            (plan, "Geofence: approaching or outside geofence"),
        ] {
            if breached {
                self.say(MavSeverity::MAV_SEVERITY_CRITICAL, text);
            }
        }
    }
}
