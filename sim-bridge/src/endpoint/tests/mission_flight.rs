//! The MISSION plan flown (MISSION-FACTS §5): uploaded over the mission protocol, started as
//! PX4 or ArduCopter starts it, its items reached in order, paused and resumed, and ended as
//! each autopilot ends it.

use super::*;
use crate::endpoint::options::BootTiming;
use mav::{MavFrame, MavMissionResult, MavMissionType, MissionState};

/// Metres per degree of latitude.
const M_PER_DEG: f64 = 111_195.0;

/// A mission item at `north_m`/`east_m` from `home`, `above_m` over home (frame 3).
fn item(
    cmd: MavCmd,
    home: (f64, f64),
    north_m: f64,
    east_m: f64,
    above_m: f32,
) -> mav::MISSION_ITEM_INT_DATA {
    let lat = home.0 + north_m / M_PER_DEG;
    let lon = home.1 + east_m / (M_PER_DEG * home.0.to_radians().cos());
    mav::MISSION_ITEM_INT_DATA {
        x: (lat * 1e7).round() as i32,
        y: (lon * 1e7).round() as i32,
        z: above_m,
        command: cmd,
        target_system: 1,
        target_component: 1,
        frame: MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        autocontinue: 1,
        mission_type: MavMissionType::MAV_MISSION_TYPE_MISSION,
        ..Default::default()
    }
}

/// Take off to 10 m, two waypoints, land at the second.
fn four_items(home: (f64, f64)) -> Vec<mav::MISSION_ITEM_INT_DATA> {
    vec![
        item(MavCmd::MAV_CMD_NAV_TAKEOFF, home, 0.0, 0.0, 10.0),
        item(MavCmd::MAV_CMD_NAV_WAYPOINT, home, 25.0, 0.0, 10.0),
        item(MavCmd::MAV_CMD_NAV_WAYPOINT, home, 25.0, 25.0, 12.0),
        item(MavCmd::MAV_CMD_NAV_LAND, home, 25.0, 25.0, 0.0),
    ]
}

/// ArduPilot's mission: a home item at seq 0 first (its content is ignored).
fn with_home(items: Vec<mav::MISSION_ITEM_INT_DATA>) -> Vec<mav::MISSION_ITEM_INT_DATA> {
    let mut all = vec![items[0].clone()];
    all.extend(items);
    all
}

fn mode_params(main: f32, sub: f32) -> [f32; 7] {
    [1.0, main, sub, 0.0, 0.0, 0.0, 0.0]
}

impl Peer {
    /// ArduCopter SITL on one companion link, ready to arm after 3 s.
    fn copter() -> Self {
        let mut o = options(Impairment::None);
        o.autopilot = Autopilot::ArduCopter;
        o.boot = BootTiming {
            heartbeat_ms: 1000,
            home_ms: 2000,
            arm_ready_ms: 3000,
        };
        Self {
            station: Station::new(ground_world(), &o),
            enc: FrameEncoder::new(GCS_SYS, GCS_COMP),
            dec: FrameDecoder::new(),
            now_us: 0,
            inbox: Vec::new(),
        }
    }

    /// Uploads the MISSION plan, answering MISSION_REQUEST_INT or MISSION_REQUEST; the ACK.
    #[allow(deprecated)] // ArduPilot asks with MISSION_REQUEST
    fn upload_mission(&mut self, items: &[mav::MISSION_ITEM_INT_DATA]) -> MavMissionResult {
        self.send(MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
            count: items.len() as u16,
            target_system: 1,
            target_component: 1,
            mission_type: MavMissionType::MAV_MISSION_TYPE_MISSION,
            opaque_id: 0,
        }));
        let mut seen = self.inbox.len();
        for _ in 0..2000 {
            self.run_ms(1);
            let new: Vec<MavMessage> = self.inbox[seen..].iter().map(|(_, m)| m.clone()).collect();
            seen = self.inbox.len();
            for m in new {
                let seq = match m {
                    MavMessage::MISSION_REQUEST_INT(r) => r.seq,
                    MavMessage::MISSION_REQUEST(r) => r.seq,
                    MavMessage::MISSION_ACK(a) => return a.mavtype,
                    _ => continue,
                };
                let mut it = items[usize::from(seq)].clone();
                it.seq = seq;
                self.send(MavMessage::MISSION_ITEM_INT(it));
            }
        }
        panic!("no MISSION_ACK for the mission");
    }

    fn home_lat_lon(&self) -> (f64, f64) {
        let h = self.station.machine().vehicle().home_geo().unwrap();
        (h.lat_deg, h.lon_deg)
    }

    /// Every MISSION_ITEM_REACHED seq since inbox entry `from`, repeats dropped.
    fn reached_since(&self, from: usize) -> Vec<u16> {
        let mut seqs: Vec<u16> = Vec::new();
        for (_, m) in &self.inbox[from..] {
            if let MavMessage::MISSION_ITEM_REACHED(r) = m
                && seqs.last() != Some(&r.seq)
            {
                seqs.push(r.seq);
            }
        }
        seqs
    }

    fn last_current(&self) -> mav::MISSION_CURRENT_DATA {
        self.inbox
            .iter()
            .rev()
            .find_map(|(_, m)| match m {
                MavMessage::MISSION_CURRENT(c) => Some(c.clone()),
                _ => None,
            })
            .unwrap()
    }

    fn texts_since(&self, from: usize) -> Vec<String> {
        self.severities_since(from)
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }

    /// Runs until `done`, at most `limit_ms`.
    fn run_until(&mut self, limit_ms: u64, what: &str, done: impl Fn(&Self) -> bool) {
        for _ in 0..limit_ms / 100 {
            if done(self) {
                return;
            }
            self.run_ms(100);
        }
        panic!(
            "{what} did not happen in {limit_ms} ms; texts {:?}",
            self.texts()
        );
    }

    fn armed(&self) -> bool {
        self.station.machine().vehicle().is_armed()
    }

    fn position(&self) -> alpha3_core::frames::Enu {
        self.station.machine().vehicle().world().snapshot().position
    }
}

#[test]
fn px4_mission_start_arms_flies_every_item_in_order_lands_and_disarms() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(3000);
    p.gcs_heartbeat();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_MISSION_START, [0.0; 7]),
        MavResult::MAV_RESULT_DENIED
    );
    assert!(
        p.texts()
            .contains(&"Mission start denied! No valid mission".to_string())
    );
    let home = p.home_lat_lon();
    let home_enu = p.position();
    assert_eq!(
        p.upload_mission(&four_items(home)),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    p.run_ms(1100);
    assert_eq!(
        p.last_current().mission_state,
        MissionState::MISSION_STATE_NOT_STARTED
    );
    let from = p.inbox.len();
    // Not ready to arm until 4 s: MISSION_START arms by itself, so it waits too.
    p.run_ms(1000);
    assert_eq!(
        p.command(MavCmd::MAV_CMD_MISSION_START, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert!(p.armed(), "MISSION_START arms");
    assert_eq!(p.station.machine().vehicle().mode(), Px4Mode::MISSION);
    p.run_ms(1100);
    let c = p.last_current();
    assert_eq!(
        (c.mission_state, c.mission_mode),
        (MissionState::MISSION_STATE_ACTIVE, 1)
    );
    p.run_until(120_000, "landing and disarm", |p| {
        p.reached_since(from).len() == 4 && !p.armed()
    });
    assert_eq!(p.reached_since(from), [0, 1, 2, 3]);
    let texts = p.texts_since(from);
    assert!(
        texts.contains(&"Mission finished, landed".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Disarmed by landing".to_string()),
        "{texts:?}"
    );
    let here = p.position();
    let (north, east) = (here.y - home_enu.y, here.x - home_enu.x);
    assert!(
        (north - 25.0).abs() < 2.0 && (east - 25.0).abs() < 2.0,
        "{north} {east}"
    );
    p.run_ms(1100);
    let c = p.last_current();
    assert_eq!(
        (c.seq, c.total, c.mission_state),
        (3, 4, MissionState::MISSION_STATE_COMPLETE)
    );
    // Every link hears each item reached, and PX4 repeats it at 1 Hz.
    let repeats = p.inbox[from..]
        .iter()
        .filter(|(_, m)| matches!(m, MavMessage::MISSION_ITEM_REACHED(r) if r.seq == 3))
        .count();
    assert!(repeats >= 2, "{repeats}");
}

#[test]
fn px4_pauses_in_hold_and_resumes_at_the_current_item() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(4100);
    p.gcs_heartbeat();
    let home = p.home_lat_lon();
    assert_eq!(
        p.upload_mission(&four_items(home)),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_MISSION_START, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(60_000, "waypoint 1", |p| p.reached_since(from).contains(&1));
    // On the way to item 2: Hold pauses, DO_PAUSE_CONTINUE is not PX4's.
    p.run_ms(1000);
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(4.0, 3.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_DO_PAUSE_CONTINUE,
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_UNSUPPORTED
    );
    p.run_ms(3000);
    let held = p.position();
    p.run_ms(5000);
    let still = p.position();
    assert!(
        (held.x - still.x).hypot(held.y - still.y) < 1.0,
        "it kept flying in Hold"
    );
    let c = p.last_current();
    assert_eq!(
        (c.seq, c.mission_state),
        (2, MissionState::MISSION_STATE_PAUSED)
    );
    assert_eq!(p.reached_since(from), [0, 1]);
    // Mission again: on from item 2, not from the start.
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(4.0, 4.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(90_000, "the end", |p| p.reached_since(from).len() == 4);
    assert_eq!(p.reached_since(from), [0, 1, 2, 3]);
}

#[test]
fn px4_climbs_without_a_takeoff_item_skips_do_items_and_loiters_at_the_end() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(4100);
    p.gcs_heartbeat();
    let home = p.home_lat_lon();
    let mut speed = item(MavCmd::MAV_CMD_DO_CHANGE_SPEED, home, 0.0, 0.0, 0.0);
    (speed.x, speed.y, speed.frame, speed.param1, speed.param2) =
        (0, 0, MavFrame::MAV_FRAME_MISSION, 1.0, 3.0);
    let items = vec![
        item(MavCmd::MAV_CMD_NAV_WAYPOINT, home, 15.0, 0.0, 8.0),
        speed,
        item(MavCmd::MAV_CMD_NAV_LOITER_TIME, home, 15.0, 15.0, 8.0),
        item(MavCmd::MAV_CMD_NAV_WAYPOINT, home, 0.0, 15.0, 8.0),
    ];
    let mut items = items;
    items[2].param1 = 3.0;
    assert_eq!(
        p.upload_mission(&items),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    // DO_SET_MISSION_CURRENT, then MISSION_START(-1): it starts where the current item is.
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_DO_SET_MISSION_CURRENT,
            [9.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_DENIED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MISSION_CURRENT, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED
    );
    let from = p.inbox.len();
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_MISSION_START,
            [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(120_000, "the end", |p| p.reached_since(from).len() == 4);
    assert_eq!(p.reached_since(from), [0, 1, 2, 3]);
    let texts = p.texts_since(from);
    assert!(
        texts.contains(&"Climb to 8.0 meters above home".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Mission finished, loitering".to_string()),
        "{texts:?}"
    );
    p.run_ms(1100);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    assert!(p.armed() && p.station.machine().vehicle().airborne());
    assert_eq!(
        p.station
            .machine()
            .vehicle()
            .world()
            .flight_controller()
            .cruise_mps,
        3.0,
        "DO_CHANGE_SPEED set the cruise speed"
    );
}

#[test]
fn copter_needs_a_takeoff_item_and_mission_start_to_leave_the_ground() {
    let mut p = Peer::copter();
    p.run_ms(3500);
    let home = p.home_lat_lon();
    let no_takeoff = with_home(four_items(home)[1..].to_vec());
    assert_eq!(
        p.upload_mission(&no_takeoff),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(4.0, 0.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(3.0, 0.0)),
        MavResult::MAV_RESULT_FAILED
    );
    assert!(
        p.texts_since(from)
            .contains(&"Auto: Missing Takeoff Cmd".to_string())
    );
    assert_eq!(
        p.station.machine().vehicle().copter.mode,
        copter_mode::GUIDED
    );
    // With a take-off first, AUTO is taken; the take-off waits for MISSION_START.
    assert_eq!(
        p.upload_mission(&with_home(four_items(home))),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(3.0, 0.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_ms(2000);
    assert!(
        !p.station.machine().vehicle().airborne(),
        "no throttle, no take-off"
    );
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_MISSION_START,
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_DENIED
    );
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_MISSION_START, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(120_000, "the end", |p| {
        p.reached_since(from).len() == 4 && !p.armed()
    });
    assert_eq!(p.reached_since(from), [1, 2, 3, 4], "seq 0 is home");
    let texts = p.texts_since(from);
    for t in [
        "Mission: 1 Takeoff",
        "Reached command #1",
        "Mission: 4 Land",
        "Disarming motors",
    ] {
        assert!(texts.contains(&t.to_string()), "{t}: {texts:?}");
    }
    assert_eq!(
        p.station.machine().vehicle().copter.mode,
        copter_mode::AUTO,
        "AUTO stays"
    );
    // AUTO is not armable.
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_FAILED
    );
}

#[test]
fn copter_pauses_resumes_and_resumes_auto_where_it_left() {
    let mut p = Peer::copter();
    p.run_ms(3500);
    let home = p.home_lat_lon();
    let mut items = four_items(home);
    items[1] = item(MavCmd::MAV_CMD_NAV_WAYPOINT, home, 60.0, 0.0, 10.0);
    assert_eq!(
        p.upload_mission(&with_home(items)),
        MavMissionResult::MAV_MISSION_ACCEPTED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(4.0, 0.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_MISSION_START, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(60_000, "the take-off", |p| {
        p.reached_since(from).contains(&1)
    });
    p.run_ms(3000);
    let pause = [0.0; 7];
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_PAUSE_CONTINUE, pause),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_ms(4000);
    let held = p.position();
    p.run_ms(4000);
    let still = p.position();
    assert!((held.y - still.y).abs() < 1.0, "paused, yet it flew");
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_DO_PAUSE_CONTINUE,
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_DO_PAUSE_CONTINUE,
            [2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_DENIED
    );
    p.run_ms(3000);
    // Leaving AUTO stops the mission; AUTO again goes on with item 2.
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(4.0, 0.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_ms(3000);
    assert_eq!(p.reached_since(from), [1]);
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, mode_params(3.0, 0.0)),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_until(120_000, "the end", |p| p.reached_since(from).len() == 4);
    assert_eq!(p.reached_since(from), [1, 2, 3, 4]);
}
