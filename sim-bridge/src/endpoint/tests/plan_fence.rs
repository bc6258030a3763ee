//! The FENCE plan, uploaded over the mission protocol, enforced by the vehicle as PX4 does:
//! a reposition outside is ACKed and not flown, a breach in flight is acted on, arming outside
//! is refused, and an area that leaves home out is dropped.

use super::*;
use alpha3_core::frames::Geo;
use mav::{MavFrame, MavMissionResult, MavMissionType};

/// Metres per degree of latitude.
const M_PER_DEG: f64 = 111_195.0;

/// An inclusion square of `half_m` around the point `north_m` north of `centre`, as
/// MISSION_ITEM_INTs for system 1.
fn square(centre: Geo, north_m: f64, half_m: f64) -> Vec<mav::MISSION_ITEM_INT_DATA> {
    let lat = centre.lat_deg + north_m / M_PER_DEG;
    let dlat = half_m / M_PER_DEG;
    let dlon = half_m / (M_PER_DEG * centre.lat_deg.to_radians().cos());
    [(-1.0, -1.0), (-1.0, 1.0), (1.0, 1.0), (1.0, -1.0)]
        .iter()
        .zip(0u16..)
        .map(|((a, b), seq)| mav::MISSION_ITEM_INT_DATA {
            param1: 4.0,
            x: ((lat + a * dlat) * 1e7).round() as i32,
            y: ((centre.lon_deg + b * dlon) * 1e7).round() as i32,
            seq,
            command: MavCmd::MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            target_system: 1,
            target_component: 1,
            frame: MavFrame::MAV_FRAME_GLOBAL,
            autocontinue: 1,
            mission_type: MavMissionType::MAV_MISSION_TYPE_FENCE,
            ..Default::default()
        })
        .collect()
}

impl Peer {
    /// Uploads `items` as the FENCE plan, answering the vehicle's requests; its final ACK.
    fn upload_fence(&mut self, items: &[mav::MISSION_ITEM_INT_DATA]) -> mav::MISSION_ACK_DATA {
        self.send(MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
            count: items.len() as u16,
            target_system: 1,
            target_component: 1,
            mission_type: MavMissionType::MAV_MISSION_TYPE_FENCE,
            opaque_id: 0,
        }));
        let mut seen = self.inbox.len();
        for _ in 0..500 {
            self.run_ms(1);
            let new: Vec<MavMessage> = self.inbox[seen..].iter().map(|(_, m)| m.clone()).collect();
            seen = self.inbox.len();
            for m in new {
                match m {
                    MavMessage::MISSION_REQUEST_INT(r) => {
                        self.send(MavMessage::MISSION_ITEM_INT(
                            items[usize::from(r.seq)].clone(),
                        ));
                    }
                    MavMessage::MISSION_ACK(a) => return a,
                    _ => {}
                }
            }
        }
        panic!("no MISSION_ACK for the fence");
    }

    fn home_geo(&self) -> Geo {
        self.station.machine().vehicle().home_geo().unwrap()
    }

    fn airborne_at(&mut self, above_home_m: f32) {
        self.gcs_heartbeat();
        self.arm_when_ready();
        self.take_off(above_home_m);
        self.run_ms(10_000);
    }
}

#[test]
fn a_reposition_outside_the_fence_plan_is_acknowledged_and_not_flown() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(3000);
    p.airborne_at(6.0);
    let home = p.home_geo();
    let a = p.upload_fence(&square(home, 0.0, 50.0));
    assert_eq!(a.mavtype, MavMissionResult::MAV_MISSION_ACCEPTED);
    assert_ne!(a.opaque_id, 0);
    let before = p.last_global();
    let from = p.inbox.len();
    p.reposition_north(&before, 80.0, 494.0);
    p.run_ms(5000);
    let acks: Vec<_> = p.inbox[from..]
        .iter()
        .filter_map(|(_, m)| match m {
            MavMessage::COMMAND_ACK(a) => Some(a.result),
            _ => None,
        })
        .collect();
    assert_eq!(acks, [MavResult::MAV_RESULT_ACCEPTED], "ACKed all the same");
    assert!(
        p.severities_since(from).contains(&(
            mav::MavSeverity::MAV_SEVERITY_CRITICAL,
            "Reposition is outside geofence".into()
        )),
        "{:?}",
        p.severities_since(from)
    );
    let still = f64::from(p.last_global().lat - before.lat).abs() / 1e7 * M_PER_DEG;
    assert!(
        still < 1.0,
        "it flew {still} m toward a target outside the fence"
    );
    // Inside, it flies.
    p.reposition_north(&before, 30.0, 494.0);
    p.run_ms(10_000);
    let moved = f64::from(p.last_global().lat - before.lat) / 1e7 * M_PER_DEG;
    assert!((moved - 30.0).abs() < 1.5, "{moved}");
    // GF_ACTION 1 (warn): PX4 checks no reposition.
    // INT32, byte-wise.
    let warn = f32::from_bits(1);
    p.set_param("GF_ACTION", mav::MavParamType::MAV_PARAM_TYPE_INT32, warn);
    p.reposition_north(&before, 80.0, 494.0);
    p.run_ms(15_000);
    let far = f64::from(p.last_global().lat - before.lat) / 1e7 * M_PER_DEG;
    assert!((far - 80.0).abs() < 1.5, "{far}");
}

#[test]
fn arming_is_refused_outside_the_fence_and_a_fence_without_home_is_dropped() {
    let mut p = Peer::new(Impairment::None);
    // Booted (1.5 s) but no home yet (2.5 s): PX4 cannot check the fence against home, so a
    // fence 300 m north of the vehicle is kept.
    p.run_ms(1600);
    p.gcs_heartbeat();
    let world_origin = {
        let v = p.station.machine().vehicle();
        v.world().frame().to_geo(v.world().snapshot().position)
    };
    let far = square(world_origin, 300.0, 50.0);
    assert_eq!(
        p.upload_fence(&far).mavtype,
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    assert!(p.station.machine().vehicle().home().is_none());
    p.run_ms(3000);
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_TEMPORARILY_REJECTED
    );
    let said: Vec<String> = p.severities_since(from).into_iter().map(|s| s.1).collect();
    assert_eq!(
        said,
        [
            "Geofence: approaching or outside geofence",
            "Arming denied: Resolve system health failures first"
        ]
    );
    assert!(!p.station.machine().vehicle().is_armed());
    // The same fence uploaded now that home is known: dropped, said so, and arming is fine.
    p.send(MavMessage::MISSION_CLEAR_ALL(mav::MISSION_CLEAR_ALL_DATA {
        target_system: 1,
        target_component: 1,
        mission_type: MavMissionType::MAV_MISSION_TYPE_FENCE,
    }));
    p.run_ms(5);
    let mut moved = far.clone();
    moved[0].param2 = 0.0; // the same geometry
    let from = p.inbox.len();
    assert_eq!(
        p.upload_fence(&moved).mavtype,
        MavMissionResult::MAV_MISSION_ACCEPTED,
        "PX4 ACKs it; its navigator drops it afterwards"
    );
    p.run_ms(5);
    assert!(
        p.texts()[..]
            .iter()
            .any(|t| t == "Geofence invalid, doesn't contain Home position"),
        "{:?}",
        p.severities_since(from)
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
}

#[test]
fn an_offboard_flight_out_of_the_fence_is_a_breach_and_gf_action_holds() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    p.gcs_heartbeat();
    p.run_ms(1000);
    let home_geo = p.home_geo();
    assert_eq!(
        p.upload_fence(&square(home_geo, 0.0, 30.0)).mavtype,
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    p.airborne_at(5.0);
    // Offboard setpoints are not checked up front (MISSION-FACTS §3): 80 m north it goes.
    let home = p.station.machine().vehicle().home().unwrap().to_ned();
    let setpoint =
        MavMessage::SET_POSITION_TARGET_LOCAL_NED(mav::SET_POSITION_TARGET_LOCAL_NED_DATA {
            x: home.north as f32 + 80.0,
            y: home.east as f32,
            z: home.down as f32 - 5.0,
            target_system: 1,
            target_component: 1,
            coordinate_frame: MavFrame::MAV_FRAME_LOCAL_NED,
            type_mask: mav::PositionTargetTypemask::from_bits_truncate(0x0DF8),
            ..Default::default()
        });
    for _ in 0..20 {
        p.send(setpoint.clone());
        p.run_ms(50);
    }
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_DO_SET_MODE,
            [1.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    let from = p.inbox.len();
    for _ in 0..300 {
        p.send(setpoint.clone());
        p.run_ms(50);
    }
    let said: Vec<String> = p.severities_since(from).into_iter().map(|s| s.1).collect();
    assert!(
        said.iter()
            .any(|t| t == "Geofence: approaching or outside geofence"),
        "{said:?}"
    );
    // GF_ACTION 2: Hold, just past the edge, well short of the setpoint.
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    let north = f64::from(p.last_global().lat) / 1e7 * M_PER_DEG - home_geo.lat_deg * M_PER_DEG;
    assert!(
        (30.0..60.0).contains(&north),
        "stopped {north} m north of home"
    );
}
