//! Anchoring a mission at the autopilot's real home.
//!
//! A scenario is drawn in its own frame: metres from its origin, with its home — the launch
//! point, its spawn point on the ground — somewhere inside the fence. A real autopilot boots
//! on the ground at *its* home (PX4 SITL: Zurich) and knows nothing of the scenario. So the
//! scenario is placed on the earth such that its home is where the vehicle stands: the
//! mission's origin is put `home.x` metres west and `home.y` metres south of that point, and
//! the link, the gate's map, the twin, the record and the `.tlog` all share that one frame.
//!
//! Where the vehicle "stands" is the autopilot's home while it flies (a restart mid-flight:
//! home is where it armed, the previous run's anchor), and its position on the ground
//! otherwise — PX4 and ArduPilot move home to wherever they are armed, so a vehicle that
//! ended its last mission at an emergency site starts the next one from there.

use alpha3_core::frames::{Enu, Geo, LocalFrame};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;
use serde::Serialize;

/// A ground position this close to the autopilot's home counts as home (its altitude is
/// then home's, which the autopilot measured on the ground at arming), metres.
const AT_HOME_M: f64 = 5.0;

/// What the mission's frame was anchored to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorPoint {
    /// The autopilot's HOME_POSITION (the vehicle was in the air).
    Home,
    /// The vehicle's own position on the ground.
    Ground,
}

/// Where a scenario sits on the earth for one episode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Anchor {
    /// The scenario's origin (0, 0, 0).
    pub origin: Geo,
    /// The scenario's home, on the earth.
    pub home: Geo,
    pub point: AnchorPoint,
    /// The vehicle was on the ground when anchored.
    pub on_ground: bool,
}

/// The scenario's home in its own frame: the spawn point, on the ground.
pub fn scenario_home(scenario: &Scenario) -> Enu {
    let [x, y, _] = scenario.spawn.xyz;
    Enu::new(x, y, 0.0)
}

/// The origin that puts `home` (a point of the scenario's frame) at `ground` on the earth.
pub fn origin_for(ground: Geo, home: Enu) -> Geo {
    let mut origin = LocalFrame::new(ground).to_geo(Enu::new(-home.x, -home.y, -home.z));
    // The projection is not exactly symmetric; one correction makes `home` land within
    // micrometres of `ground` at any scenario size.
    let miss = LocalFrame::new(origin).to_enu(ground);
    let err = Enu::new(home.x - miss.x, home.y - miss.y, 0.0);
    origin = LocalFrame::new(origin).to_geo(Enu::new(-err.x, -err.y, 0.0));
    origin.alt_amsl_m = ground.alt_amsl_m - home.z;
    origin
}

/// Anchors `scenario` at the vehicle described by `snap`, whose position is relative to the
/// autopilot's home (`snap.home`; the link's frame before any origin was set).
pub fn anchor(scenario: &Scenario, snap: &VehicleSnapshot) -> Anchor {
    let home_frame = LocalFrame::new(snap.home);
    let on_ground = !snap.is_airborne();
    let (ground, point) =
        if on_ground && snap.position.horizontal_distance(Enu::default()) > AT_HOME_M {
            (home_frame.to_geo(snap.position), AnchorPoint::Ground)
        } else {
            (snap.home, AnchorPoint::Home)
        };
    let home = scenario_home(scenario);
    Anchor {
        origin: origin_for(ground, home),
        home: ground,
        point,
        on_ground,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::snapshot::LandedState;

    const ZURICH: Geo = Geo {
        lat_deg: 47.397742,
        lon_deg: 8.545594,
        alt_amsl_m: 488.0,
    };

    fn scenario() -> Scenario {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/scenarios/sc-0000.json"
        ))
        .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_scenarios_home_lands_on_the_autopilots_home() {
        let s = scenario();
        let snap = VehicleSnapshot::on_ground_at_home(ZURICH, 0);
        let a = anchor(&s, &snap);
        assert_eq!(a.point, AnchorPoint::Home);
        let frame = LocalFrame::new(a.origin);
        let home = frame.to_enu(ZURICH);
        assert!(
            home.horizontal_distance(Enu::new(136.0, 89.0, 0.0)) < 1e-4,
            "{home:?}"
        );
        assert!(home.z.abs() < 1e-9);
        // The origin is 136 m west and 89 m south of Zurich's home.
        let o = LocalFrame::new(ZURICH).to_enu(a.origin);
        assert!(
            o.horizontal_distance(Enu::new(-136.0, -89.0, 0.0)) < 0.01,
            "{o:?}"
        );
    }

    #[test]
    fn a_vehicle_on_the_ground_away_from_home_is_anchored_where_it_stands() {
        // The last mission ended at an emergency site 200 m east of where it armed.
        let s = scenario();
        let mut snap = VehicleSnapshot::on_ground_at_home(ZURICH, 0);
        snap.position = Enu::new(200.0, 0.0, 0.4);
        let a = anchor(&s, &snap);
        assert_eq!(a.point, AnchorPoint::Ground);
        let home = LocalFrame::new(a.origin).to_enu(LocalFrame::new(ZURICH).to_geo(snap.position));
        assert!(
            home.horizontal_distance(Enu::new(136.0, 89.0, 0.0)) < 1e-4,
            "{home:?}"
        );
        assert!(
            home.z.abs() < 1e-9,
            "the ground there is the scenario's ground"
        );
    }

    #[test]
    fn a_vehicle_in_the_air_is_anchored_at_its_home() {
        let s = scenario();
        let mut snap = VehicleSnapshot::on_ground_at_home(ZURICH, 0);
        snap.position = Enu::new(40.0, 10.0, 30.0);
        snap.armed = true;
        snap.landed = LandedState::InAir;
        let a = anchor(&s, &snap);
        assert_eq!(a.point, AnchorPoint::Home);
        assert!(!a.on_ground);
        assert_eq!(a.home, ZURICH);
    }
}
