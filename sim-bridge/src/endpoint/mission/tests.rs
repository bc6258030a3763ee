//! The mission server without a vehicle: a scripted ground station on a virtual clock.

use super::crc;
use super::*;
use crate::endpoint::codec::MavMessage;
use crate::endpoint::codec::mav::{
    self, MavCmd, MavFrame, MavMissionResult, MavMissionType, MissionState,
};
use crate::endpoint::options::Autopilot;
use alpha3_core::frames::Geo;
use mavlink::MavHeader;

use MavMissionResult::*;

/// The autopilot's system id.
const SYS: u8 = 1;
/// The ground station (QGC's ids) and a second one.
const GCS: (u8, u8) = (255, 190);
const OTHER: (u8, u8) = (254, 190);

/// A server and what it said, on a virtual clock.
struct Bench {
    server: MissionServer,
    situation: Situation,
    now_us: u64,
    /// (link, message) sent to one link, oldest first.
    sent: Vec<(usize, MavMessage)>,
    broadcasts: Vec<MavMessage>,
    texts: Vec<String>,
    changed: Vec<PlanKind>,
}

impl Bench {
    fn new(autopilot: Autopilot) -> Self {
        Self {
            server: MissionServer::new(autopilot, SYS, 2),
            situation: Situation {
                home: Some(Geo {
                    lat_deg: 47.397742,
                    lon_deg: 8.545594,
                    alt_amsl_m: 488.0,
                }),
                mission_mode: false,
                progress: Progress::Idle,
            },
            now_us: 1_000_000,
            sent: Vec::new(),
            broadcasts: Vec::new(),
            texts: Vec::new(),
            changed: Vec::new(),
        }
    }

    fn px4() -> Self {
        Self::new(Autopilot::Px4)
    }

    fn ardupilot() -> Self {
        Self::new(Autopilot::ArduCopter)
    }

    fn drain(&mut self) {
        while let Some(o) = self.server.poll() {
            match o {
                Output::Send { link, message } => self.sent.push((link, message)),
                Output::Broadcast(m) => self.broadcasts.push(m),
                Output::Say { text, .. } => self.texts.push(text),
                Output::Changed(kind) => self.changed.push(kind),
            }
        }
    }

    fn send_as(&mut self, link: usize, who: (u8, u8), m: MavMessage) {
        let header = MavHeader {
            system_id: u32::from(who.0),
            component_id: who.1,
            sequence: 0,
        };
        self.server
            .handle(link, &header, &m, &self.situation, self.now_us);
        self.drain();
    }

    fn send(&mut self, m: MavMessage) {
        self.send_as(0, GCS, m);
    }

    /// `ms` of time, the server stepped every 10 ms.
    fn advance(&mut self, ms: u64) {
        for _ in 0..ms / 10 {
            self.now_us += 10_000;
            self.server.step(&self.situation, self.now_us);
            self.drain();
        }
    }

    /// What went to link 0 since the last call.
    fn take(&mut self) -> Vec<MavMessage> {
        let (mine, others): (Vec<_>, Vec<_>) = self.sent.drain(..).partition(|(l, _)| *l == 0);
        self.sent = others;
        mine.into_iter().map(|(_, m)| m).collect()
    }

    fn acks(&mut self) -> Vec<mav::MISSION_ACK_DATA> {
        self.take()
            .into_iter()
            .filter_map(|m| match m {
                MavMessage::MISSION_ACK(a) => Some(a),
                _ => None,
            })
            .collect()
    }

    /// Uploads `items` as a ground station does, answering whatever the server asks for;
    /// the final MISSION_ACK.
    #[allow(deprecated)] // ArduPilot asks with MISSION_REQUEST
    fn upload(&mut self, kind: PlanKind, items: &[Item]) -> mav::MISSION_ACK_DATA {
        self.send(count(kind, items.len() as u16));
        for _ in 0..=items.len() * 3 + 3 {
            for m in self.take() {
                let seq = match m {
                    MavMessage::MISSION_REQUEST_INT(r) => r.seq,
                    MavMessage::MISSION_REQUEST(r) => r.seq,
                    MavMessage::MISSION_ACK(a) => return a,
                    _ => continue,
                };
                let item = items[usize::from(seq)];
                self.send(item_int(kind, seq, &item));
            }
        }
        panic!("no ACK for the upload of {kind:?}");
    }

    /// Downloads `kind`: the count's opaque id and the items (the final ACK sent).
    fn download(&mut self, kind: PlanKind) -> (u32, Vec<mav::MISSION_ITEM_INT_DATA>) {
        self.send(request_list(kind));
        let (n, id) = self
            .take()
            .into_iter()
            .find_map(|m| match m {
                MavMessage::MISSION_COUNT(c) => Some((c.count, c.opaque_id)),
                _ => None,
            })
            .expect("MISSION_COUNT");
        let mut items = Vec::new();
        for seq in 0..n {
            self.send(request_int(kind, seq));
            let item = self
                .take()
                .into_iter()
                .find_map(|m| match m {
                    MavMessage::MISSION_ITEM_INT(d) => Some(d),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("no item {seq}"));
            assert_eq!(item.seq, seq);
            items.push(item);
        }
        self.send(ack(kind, MAV_MISSION_ACCEPTED));
        (id, items)
    }
}

fn count(kind: PlanKind, n: u16) -> MavMessage {
    MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
        count: n,
        target_system: SYS,
        target_component: 1,
        mission_type: kind.to_mav(),
        opaque_id: 0,
    })
}

fn item_int(kind: PlanKind, seq: u16, i: &Item) -> MavMessage {
    MavMessage::MISSION_ITEM_INT(i.to_int(seq, kind, peer::Peer::new(SYS, 1), i.frame, i.current))
}

fn request_list(kind: PlanKind) -> MavMessage {
    MavMessage::MISSION_REQUEST_LIST(mav::MISSION_REQUEST_LIST_DATA {
        target_system: SYS,
        target_component: 1,
        mission_type: kind.to_mav(),
    })
}

fn request_int(kind: PlanKind, seq: u16) -> MavMessage {
    MavMessage::MISSION_REQUEST_INT(mav::MISSION_REQUEST_INT_DATA {
        seq,
        target_system: SYS,
        target_component: 1,
        mission_type: kind.to_mav(),
    })
}

fn ack(kind: PlanKind, result: MavMissionResult) -> MavMessage {
    MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
        target_system: SYS,
        target_component: 1,
        mavtype: result,
        mission_type: kind.to_mav(),
        opaque_id: 0,
    })
}

fn clear_all(mission_type: MavMissionType) -> MavMessage {
    MavMessage::MISSION_CLEAR_ALL(mav::MISSION_CLEAR_ALL_DATA {
        target_system: SYS,
        target_component: 1,
        mission_type,
    })
}

fn item(frame: MavFrame, command: MavCmd, p1: f32, lat: f64, lon: f64, z: f32) -> Item {
    Item {
        frame,
        command,
        current: false,
        autocontinue: 1,
        params: [p1, 0.0, 0.0, 0.0],
        x: (lat * 1e7).round() as i32,
        y: (lon * 1e7).round() as i32,
        z,
    }
}

/// An inclusion square of 4 vertices around Zurich's home, shifted north by `shift` degrees.
fn fence(shift: f64) -> Vec<Item> {
    [
        (47.3955, 8.5423),
        (47.3955, 8.5502),
        (47.4009, 8.5502),
        (47.4009, 8.5423),
    ]
    .iter()
    .map(|(lat, lon)| {
        item(
            MavFrame::MAV_FRAME_GLOBAL,
            MavCmd::MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            4.0,
            lat + shift,
            *lon,
            0.0,
        )
    })
    .collect()
}

/// Take-off, two waypoints, a speed change (frame 2) and a return, as QGC sends them to PX4.
fn mission() -> Vec<Item> {
    let wp = |lat, lon| {
        item(
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            MavCmd::MAV_CMD_NAV_WAYPOINT,
            0.0,
            lat,
            lon,
            30.0,
        )
    };
    let mut takeoff = item(
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        MavCmd::MAV_CMD_NAV_TAKEOFF,
        0.0,
        47.397742,
        8.545594,
        30.0,
    );
    takeoff.current = true;
    takeoff.params[3] = f32::NAN;
    let mut speed = item(
        MavFrame::MAV_FRAME_MISSION,
        MavCmd::MAV_CMD_DO_CHANGE_SPEED,
        1.0,
        0.0,
        0.0,
        0.0,
    );
    speed.params[1] = 5.0;
    let rtl = item(
        MavFrame::MAV_FRAME_MISSION,
        MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH,
        0.0,
        0.0,
        0.0,
        0.0,
    );
    vec![
        takeoff,
        wp(47.3985, 8.5460),
        speed,
        wp(47.3990, 8.5470),
        rtl,
    ]
}

/// PX4's id of `items`, item by item as MISSION_ITEM_INT carries them.
fn crc_of(items: &[Item]) -> u32 {
    items
        .iter()
        .fold(0, |c, i| crc::item(c, &i.int_crc_fields()))
}

fn current(b: &Bench) -> mav::MISSION_CURRENT_DATA {
    match b.server.mission_current(&b.situation) {
        MavMessage::MISSION_CURRENT(c) => c,
        other => panic!("{other:?}"),
    }
}

#[test]
fn px4_uploads_and_downloads_each_plan_with_its_crc() {
    let mut b = Bench::px4();
    for (kind, items) in [
        (PlanKind::Fence, fence(0.0)),
        (PlanKind::Mission, mission()),
        (
            PlanKind::Rally,
            vec![item(
                MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
                MavCmd::MAV_CMD_NAV_RALLY_POINT,
                0.0,
                47.3990,
                8.5450,
                30.0,
            )],
        ),
    ] {
        let a = b.upload(kind, &items);
        assert_eq!(a.mavtype, MAV_MISSION_ACCEPTED, "{kind:?}");
        assert_eq!(a.mission_type, kind.to_mav());
        assert_eq!(a.opaque_id, crc_of(&items), "{kind:?}");
        assert_ne!(a.opaque_id, 0);
        assert_eq!(b.server.items(kind), &items[..]);
        assert_eq!(b.server.plan_id(kind), a.opaque_id);
        let (id, down) = b.download(kind);
        assert_eq!(id, a.opaque_id, "MISSION_COUNT carries the id");
        assert_eq!(down.len(), items.len());
        for (d, i) in down.iter().zip(&items) {
            assert_eq!((d.command, d.x, d.y), (i.command, i.x, i.y));
            assert_eq!(d.mission_type, kind.to_mav());
        }
        assert!(b.take().is_empty(), "the final ACK gets no answer");
    }
    // Positions come back in PX4's int frames; frame 2 stays (MM:1742-1767).
    let (_, down) = b.download(PlanKind::Mission);
    let frames: Vec<_> = down.iter().map(|d| d.frame).collect();
    #[allow(deprecated)]
    let want = [
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
        MavFrame::MAV_FRAME_MISSION,
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
        MavFrame::MAV_FRAME_MISSION,
    ];
    assert_eq!(frames, want);
    assert_eq!(
        down[0].current, 1,
        "the item flagged current is where it starts"
    );
    assert_eq!(
        b.changed,
        [PlanKind::Fence, PlanKind::Mission, PlanKind::Rally]
    );
    assert!(b.texts.is_empty(), "{:?}", b.texts);
}

/// `configs/plans/zurich-detour.plan` as MAVSDK 4.1 imports it for PX4, list by list.
fn detour_as_mavsdk_sends_it() -> [(PlanKind, Vec<Item>); 3] {
    let at = |frame, command, params: [f32; 4], x, y, z, autocontinue| Item {
        frame,
        command,
        current: false,
        autocontinue,
        params,
        x,
        y,
        z,
    };
    use MavCmd::*;
    use MavFrame::{
        MAV_FRAME_GLOBAL as G, MAV_FRAME_GLOBAL_RELATIVE_ALT as R, MAV_FRAME_MISSION as M,
    };
    let vertex = |command, x, y| at(G, command, [4.0, 0.0, 0.0, 0.0], x, y, 0.0, 0);
    let fence = vec![
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            473_954_937,
            85_422_726,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            473_954_937,
            85_502_440,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            474_008_896,
            85_502_440,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            474_008_896,
            85_422_726,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION,
            473_984_615,
            85_450_626,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION,
            473_984_615,
            85_461_254,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION,
            473_989_111,
            85_461_254,
        ),
        vertex(
            MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION,
            473_989_111,
            85_450_626,
        ),
    ];
    let rally = vec![at(
        R,
        MAV_CMD_NAV_RALLY_POINT,
        [0.0; 4],
        473_972_923,
        85_442_654,
        30.0,
        0,
    )];
    let unset = [0.0, 0.0, 0.0, f32::NAN];
    let mission = vec![
        at(
            R,
            MAV_CMD_NAV_TAKEOFF,
            unset,
            473_977_420,
            85_455_940,
            30.0,
            1,
        ),
        at(
            R,
            MAV_CMD_NAV_WAYPOINT,
            unset,
            473_977_420,
            85_471_883,
            30.0,
            1,
        ),
        at(
            M,
            MAV_CMD_DO_CHANGE_SPEED,
            [1.0, 6.0, -1.0, 0.0],
            0,
            0,
            0.0,
            1,
        ),
        at(
            R,
            MAV_CMD_NAV_WAYPOINT,
            unset,
            473_991_809,
            85_471_883,
            30.0,
            1,
        ),
        at(
            R,
            MAV_CMD_NAV_WAYPOINT,
            unset,
            473_997_205,
            85_455_940,
            30.0,
            1,
        ),
        at(M, MAV_CMD_NAV_RETURN_TO_LAUNCH, [0.0; 4], 0, 0, 0.0, 1),
    ];
    [
        (PlanKind::Mission, mission),
        (PlanKind::Fence, fence),
        (PlanKind::Rally, rally),
    ]
}

#[test]
fn px4_ids_are_those_a_real_px4_gives_the_same_plan() {
    // Read from a real PX4 SITL (a70a558) on the wire: MISSION_CURRENT's mission_id, fence_id
    // and rally_points_id after MAVSDK-Python 4.1 uploaded zurich-detour.plan to it.
    let px4 = [0xff8c_bb70, 0x3a03_66c8, 0xefc9_a019];
    let mut b = Bench::px4();
    for ((kind, items), id) in detour_as_mavsdk_sends_it().into_iter().zip(px4) {
        let a = b.upload(kind, &items);
        assert_eq!(a.mavtype, MAV_MISSION_ACCEPTED, "{kind:?}");
        assert_eq!(a.opaque_id, id, "{kind:?}: {:#x}", a.opaque_id);
    }
    let c = current(&b);
    assert_eq!(
        (c.mission_id, c.fence_id, c.rally_points_id, c.total),
        (px4[0], px4[1], px4[2], 6)
    );
    assert_eq!(
        (c.mission_state, c.mission_mode),
        (MissionState::MISSION_STATE_NOT_STARTED, 2),
        "as that PX4 reported it, disarmed in Hold"
    );
}

#[test]
fn px4_reports_its_plan_ids_in_mission_current_at_1_hz() {
    let mut b = Bench::px4();
    b.advance(2000);
    let empty: Vec<_> = b.broadcasts.drain(..).collect();
    assert!((2..=3).contains(&empty.len()), "{}", empty.len());
    let c = current(&b);
    assert_eq!((c.total, c.mission_id, c.fence_id), (u16::MAX, 0, 0));
    assert_eq!(c.mission_state, MissionState::MISSION_STATE_NO_MISSION);
    assert_eq!(c.mission_mode, 2);
    let fence_id = b.upload(PlanKind::Fence, &fence(0.0)).opaque_id;
    let mission_id = b.upload(PlanKind::Mission, &mission()).opaque_id;
    b.advance(1000);
    let Some(MavMessage::MISSION_CURRENT(c)) = b.broadcasts.last() else {
        panic!("no MISSION_CURRENT: {:?}", b.broadcasts)
    };
    assert_eq!(
        (c.mission_id, c.fence_id, c.rally_points_id),
        (mission_id, fence_id, 0)
    );
    assert_eq!(c.total, 5);
    assert_eq!(c.mission_state, MissionState::MISSION_STATE_NOT_STARTED);
    b.situation.mission_mode = true;
    assert_eq!(current(&b).mission_mode, 1);
    assert_eq!(
        current(&b).mission_state,
        MissionState::MISSION_STATE_ACTIVE
    );
}

#[test]
fn px4_same_items_same_id_and_no_change_other_items_other_id() {
    let mut b = Bench::px4();
    let first = b.upload(PlanKind::Fence, &fence(0.0)).opaque_id;
    b.changed.clear();
    assert_eq!(b.upload(PlanKind::Fence, &fence(0.0)).opaque_id, first);
    assert!(b.changed.is_empty(), "an identical plan changes nothing");
    let moved = b.upload(PlanKind::Fence, &fence(0.0001)).opaque_id;
    assert_ne!(moved, first);
    assert_eq!(b.changed, [PlanKind::Fence]);
    // The id is over (frame, command, autocontinue, params, x, y, z): `current` is not in it.
    let mut flagged = fence(0.0001);
    flagged[0].current = true;
    assert_eq!(crc_of(&flagged), moved);
    let mut other_z = fence(0.0001);
    other_z[3].z = 1.0;
    assert_ne!(crc_of(&other_z), moved);
}

#[test]
fn px4_clears_one_plan_all_plans_or_by_count_zero() {
    let mut b = Bench::px4();
    b.upload(PlanKind::Fence, &fence(0.0));
    b.upload(PlanKind::Mission, &mission());
    b.send(clear_all(MavMissionType::MAV_MISSION_TYPE_FENCE));
    let a = b.acks();
    assert_eq!(a.len(), 1);
    assert_eq!(
        (a[0].mavtype, a[0].mission_type, a[0].opaque_id),
        (
            MAV_MISSION_ACCEPTED,
            MavMissionType::MAV_MISSION_TYPE_FENCE,
            0
        )
    );
    assert!(b.server.items(PlanKind::Fence).is_empty());
    assert_eq!(b.server.plan_id(PlanKind::Fence), 0);
    assert_eq!(b.server.items(PlanKind::Mission).len(), 5);
    b.upload(PlanKind::Rally, &fence(0.0)[..1]);
    b.send(clear_all(MavMissionType::MAV_MISSION_TYPE_ALL));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_ACCEPTED);
    for kind in PlanKind::ALL {
        assert!(b.server.items(kind).is_empty(), "{kind:?}");
    }
    b.upload(PlanKind::Mission, &mission());
    b.send(count(PlanKind::Mission, 0));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_ACCEPTED);
    assert!(b.server.items(PlanKind::Mission).is_empty());
    assert_eq!(current(&b).total, u16::MAX);
}

#[test]
fn px4_asks_again_every_250_ms_and_gives_up_after_5_s_without_an_ack() {
    let mut b = Bench::px4();
    b.upload(PlanKind::Fence, &fence(0.0));
    let old = b.server.plan_id(PlanKind::Fence);
    b.send(count(PlanKind::Fence, 4));
    let first = b.take();
    assert!(matches!(first[..], [MavMessage::MISSION_REQUEST_INT(ref r)] if r.seq == 0));
    b.advance(1000);
    let again = b.take();
    assert!((3..=4).contains(&again.len()), "{again:?}");
    assert!(
        again
            .iter()
            .all(|m| matches!(m, MavMessage::MISSION_REQUEST_INT(r) if r.seq == 0))
    );
    b.send(item_int(PlanKind::Fence, 0, &fence(0.5)[0]));
    b.take();
    // 5 s of silence from now: the upload ends with a text and no ACK.
    b.advance(4900);
    assert!(b.texts.is_empty());
    b.advance(200);
    assert_eq!(b.texts, ["Operation timeout"]);
    assert!(
        b.take()
            .iter()
            .all(|m| !matches!(m, MavMessage::MISSION_ACK(_))),
        "PX4 sends no ACK on a timeout"
    );
    b.advance(1000);
    assert!(b.take().is_empty(), "no more requests");
    assert_eq!(
        b.server.plan_id(PlanKind::Fence),
        old,
        "the old fence stays"
    );
    assert_eq!(b.server.items(PlanKind::Fence), &fence(0.0)[..]);
    // A new upload may start.
    assert_eq!(
        b.upload(PlanKind::Fence, &fence(0.5)).mavtype,
        MAV_MISSION_ACCEPTED
    );
}

#[test]
fn px4_an_aborted_upload_keeps_the_old_plan() {
    let mut b = Bench::px4();
    let old = mission();
    b.upload(PlanKind::Mission, &old);
    let id = b.server.plan_id(PlanKind::Mission);
    // Item 2 in a local frame: ACK 2, the transfer ends, nothing of it is kept.
    let mut bad = mission();
    bad[2].frame = MavFrame::MAV_FRAME_LOCAL_NED;
    bad[0].z = 50.0;
    let a = b.upload(PlanKind::Mission, &bad);
    assert_eq!(a.mavtype, MAV_MISSION_UNSUPPORTED_FRAME);
    assert!(
        b.texts
            .contains(&"IGN MISSION_ITEM: Invalid item".to_string())
    );
    assert_eq!(b.server.items(PlanKind::Mission), &old[..]);
    assert_eq!(b.server.plan_id(PlanKind::Mission), id);
    // The ground station cancels half-way: the same.
    b.send(count(PlanKind::Mission, 5));
    b.send(item_int(PlanKind::Mission, 0, &bad[0]));
    b.send(ack(PlanKind::Mission, MAV_MISSION_OPERATION_CANCELLED));
    b.take();
    assert_eq!(b.server.items(PlanKind::Mission), &old[..]);
    assert_eq!(
        b.upload(PlanKind::Mission, &old).opaque_id,
        id,
        "idle again"
    );
}

#[test]
fn px4_refuses_what_px4_refuses_item_by_item() {
    let mut b = Bench::px4();
    // A polygon of 2 vertices: ACK 1 (MM:1199-1202).
    let mut two = fence(0.0)[..2].to_vec();
    two.iter_mut().for_each(|i| i.params[0] = 2.0);
    assert_eq!(b.upload(PlanKind::Fence, &two).mavtype, MAV_MISSION_ERROR);
    // Terrain frames: ACK 2.
    let mut terrain = mission();
    terrain[1].frame = MavFrame::MAV_FRAME_GLOBAL_TERRAIN_ALT;
    assert_eq!(
        b.upload(PlanKind::Mission, &terrain).mavtype,
        MAV_MISSION_UNSUPPORTED_FRAME
    );
    // RTL with a global frame, and a command PX4 does not have: ACK 3.
    let mut rtl = mission();
    rtl[4].frame = MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT;
    assert_eq!(
        b.upload(PlanKind::Mission, &rtl).mavtype,
        MAV_MISSION_UNSUPPORTED
    );
    let mut turns = mission();
    turns[1].command = MavCmd::MAV_CMD_NAV_LOITER_TURNS;
    assert_eq!(
        b.upload(PlanKind::Mission, &turns).mavtype,
        MAV_MISSION_UNSUPPORTED
    );
    // A fence vertex inside a mission: ACK 1.
    let mut mixed = mission();
    mixed[1] = fence(0.0)[0];
    assert_eq!(
        b.upload(PlanKind::Mission, &mixed).mavtype,
        MAV_MISSION_ERROR
    );
    for kind in PlanKind::ALL {
        assert!(b.server.items(kind).is_empty(), "{kind:?}");
    }
}

#[test]
fn px4_refuses_more_than_it_can_hold_and_a_hostile_count_costs_nothing() {
    let mut b = Bench::px4();
    for (kind, cap) in [
        (PlanKind::Mission, 10_000),
        (PlanKind::Fence, 64),
        (PlanKind::Rally, 32),
    ] {
        b.send(count(kind, cap + 1));
        let a = b.acks();
        assert_eq!(a.len(), 1, "{kind:?}");
        assert_eq!(a[0].mavtype, MAV_MISSION_NO_SPACE, "{kind:?}");
        b.send(count(kind, u16::MAX));
        assert_eq!(b.acks()[0].mavtype, MAV_MISSION_NO_SPACE, "{kind:?}");
        // At the cap itself the upload starts.
        b.send(count(kind, cap));
        assert!(
            matches!(b.take()[..], [MavMessage::MISSION_REQUEST_INT(ref r)] if r.seq == 0),
            "{kind:?}"
        );
        b.send(ack(kind, MAV_MISSION_OPERATION_CANCELLED));
    }
    // Nothing was stored or kept waiting: no clock runs.
    for kind in PlanKind::ALL {
        assert!(b.server.items(kind).is_empty());
    }
    b.advance(6000);
    assert!(b.take().is_empty());
    assert!(b.texts.is_empty(), "{:?}", b.texts);
}

#[test]
fn px4_one_upload_at_a_time_and_out_of_sequence_items_are_ignored() {
    let mut b = Bench::px4();
    let items = fence(0.0);
    b.send(count(PlanKind::Fence, 4));
    b.take();
    // Another ground station, same link or another: ACK 1, the first upload goes on.
    b.send_as(0, OTHER, count(PlanKind::Fence, 4));
    b.send_as(1, OTHER, count(PlanKind::Fence, 4));
    let errors: Vec<_> = b
        .sent
        .drain(..)
        .map(|(l, m)| match m {
            MavMessage::MISSION_ACK(a) => (l, a.mavtype, a.target_system),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        errors,
        [
            (0, MAV_MISSION_ERROR, OTHER.0),
            (1, MAV_MISSION_ERROR, OTHER.0)
        ]
    );
    b.send(item_int(PlanKind::Fence, 0, &items[0]));
    assert!(matches!(b.take()[..], [MavMessage::MISSION_REQUEST_INT(ref r)] if r.seq == 1));
    // Item 2 before 1: ignored, no answer; after 250 ms item 1 is asked for again.
    b.send(item_int(PlanKind::Fence, 2, &items[2]));
    assert!(b.take().is_empty());
    b.advance(300);
    assert!(matches!(b.take()[..], [MavMessage::MISSION_REQUEST_INT(ref r)] if r.seq == 1));
    for seq in 1..4 {
        b.send(item_int(PlanKind::Fence, seq, &items[usize::from(seq)]));
    }
    let a = b.acks();
    assert_eq!(a.last().map(|a| a.mavtype), Some(MAV_MISSION_ACCEPTED));
    // The last item again (our ACK was lost): ACK 0 again, with the same id.
    b.send(item_int(PlanKind::Fence, 3, &items[3]));
    let again = b.acks();
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].mavtype, again[0].opaque_id),
        (MAV_MISSION_ACCEPTED, crc_of(&items))
    );
}

#[test]
fn px4_serves_downloads_strictly_in_order() {
    let mut b = Bench::px4();
    b.upload(PlanKind::Mission, &mission());
    // No REQUEST_LIST first: ignored silently.
    b.send(request_int(PlanKind::Mission, 0));
    assert!(b.take().is_empty());
    b.send(request_list(PlanKind::Mission));
    b.take();
    b.send(request_int(PlanKind::Mission, 0));
    b.send(request_int(PlanKind::Mission, 0));
    assert_eq!(b.take().len(), 2, "the same item again is fine");
    // Skipping ahead ends it with ACK 1.
    b.send(request_int(PlanKind::Mission, 3));
    let m = b.take();
    assert!(
        matches!(m[..], [MavMessage::MISSION_ACK(ref a)] if a.mavtype == MAV_MISSION_ERROR),
        "{m:?}"
    );
    assert!(
        b.texts
            .contains(&"WPM: REJ. CMD: Req. WP was unexpected".to_string())
    );
    // A download left without its ACK ends after 5 s.
    b.send(request_list(PlanKind::Mission));
    b.take();
    b.advance(5200);
    assert_eq!(
        b.texts.last().map(String::as_str),
        Some("Operation timeout")
    );
}

#[test]
#[allow(deprecated)] // the float protocol is deprecated, and PX4 still speaks it
fn px4_speaks_float_to_a_float_peer() {
    let mut b = Bench::px4();
    let items = fence(0.0);
    b.send(count(PlanKind::Fence, 4));
    b.take();
    let float = |seq: u16| {
        let i = items[usize::from(seq)];
        MavMessage::MISSION_ITEM(i.to_float(
            seq,
            PlanKind::Fence,
            peer::Peer::new(SYS, 1),
            MavFrame::MAV_FRAME_GLOBAL,
            false,
        ))
    };
    b.send(float(0));
    assert!(
        matches!(b.take()[..], [MavMessage::MISSION_REQUEST(ref r)] if r.seq == 1),
        "a float item switches PX4 to MISSION_REQUEST"
    );
    for seq in 1..4 {
        b.send(float(seq));
    }
    assert_eq!(
        b.acks().last().map(|a| a.mavtype),
        Some(MAV_MISSION_ACCEPTED)
    );
    let stored = b.server.items(PlanKind::Fence);
    for (s, i) in stored.iter().zip(&items) {
        // Degrees through an f32: within a few 1e-7.
        assert!((s.x - i.x).abs() < 50 && (s.y - i.y).abs() < 50, "{s:?}");
    }
    b.send(request_list(PlanKind::Fence));
    b.take();
    b.send(MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
        seq: 0,
        target_system: SYS,
        target_component: 1,
        mission_type: MavMissionType::MAV_MISSION_TYPE_FENCE,
    }));
    let m = b.take();
    assert!(
        matches!(m[..], [MavMessage::MISSION_ITEM(ref d)] if d.frame == MavFrame::MAV_FRAME_GLOBAL && (d.x - 47.3955).abs() < 1e-5),
        "{m:?}"
    );
}

#[test]
fn px4_ignores_what_is_not_addressed_to_it() {
    let mut b = Bench::px4();
    for (system, component) in [(0, 1), (2, 1), (SYS, 42)] {
        b.send(MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
            count: 1,
            target_system: system,
            target_component: component,
            mission_type: MavMissionType::MAV_MISSION_TYPE_FENCE,
            opaque_id: 0,
        }));
        assert!(b.take().is_empty(), "{system}/{component}");
    }
    // The mission planner's component is PX4's too.
    b.send(MavMessage::MISSION_REQUEST_LIST(
        mav::MISSION_REQUEST_LIST_DATA {
            target_system: SYS,
            target_component: 190,
            mission_type: MavMissionType::MAV_MISSION_TYPE_MISSION,
        },
    ));
    assert!(matches!(b.take()[..], [MavMessage::MISSION_COUNT(_)]));
}

#[test]
#[allow(deprecated)] // ArduPilot asks with MISSION_REQUEST
fn ardupilot_asks_with_mission_request_and_serves_home_as_item_0() {
    let mut b = Bench::ardupilot();
    // Before any upload: home only.
    b.send(request_list(PlanKind::Mission));
    assert!(
        matches!(b.take()[..], [MavMessage::MISSION_COUNT(ref c)] if c.count == 1 && c.opaque_id == 0)
    );
    // QGC sends ArduPilot a home item at seq 0 first: its content is ignored.
    let mut items = vec![item(
        MavFrame::MAV_FRAME_GLOBAL,
        MavCmd::MAV_CMD_NAV_WAYPOINT,
        0.0,
        1.0,
        2.0,
        3.0,
    )];
    items.extend(mission());
    b.send(count(PlanKind::Mission, items.len() as u16));
    let first = b.take();
    assert!(
        matches!(first[..], [MavMessage::MISSION_REQUEST(ref r)] if r.seq == 0),
        "{first:?}"
    );
    let a = b.upload(PlanKind::Mission, &items);
    assert_eq!((a.mavtype, a.opaque_id), (MAV_MISSION_ACCEPTED, 0));
    assert!(b.texts.contains(&"Flight plan received".to_string()));
    assert_eq!(b.server.items(PlanKind::Mission), &items[1..]);
    let (id, down) = b.download(PlanKind::Mission);
    assert_eq!((id, down.len()), (0, 6));
    let home = &down[0];
    assert_eq!(home.command, MavCmd::MAV_CMD_NAV_WAYPOINT);
    assert_eq!(home.frame, MavFrame::MAV_FRAME_GLOBAL);
    assert_eq!((home.x, home.y, home.z), (473_977_420, 85_455_940, 488.0));
    assert_eq!(down[1].command, MavCmd::MAV_CMD_NAV_TAKEOFF);
    // Downloads are random access, and a seq past the end is answered with the count.
    b.send(request_int(PlanKind::Mission, 4));
    assert!(matches!(b.take()[..], [MavMessage::MISSION_ITEM_INT(ref d)] if d.seq == 4));
    b.send(request_int(PlanKind::Mission, 9));
    let m = b.take();
    assert!(
        matches!(m[..], [MavMessage::MISSION_COUNT(ref c), MavMessage::MISSION_ACK(ref a)]
            if c.count == 6 && a.mavtype == MAV_MISSION_INVALID_SEQUENCE),
        "{m:?}"
    );
    let c = current(&b);
    assert_eq!(
        (c.total, c.mission_id),
        (5, 0),
        "total without home, no ids"
    );
    b.advance(3000);
    assert!(b.broadcasts.is_empty(), "only streamed when asked");
}

#[test]
#[allow(deprecated)] // ArduPilot asks with MISSION_REQUEST
fn ardupilot_writes_live_and_an_abort_leaves_old_and_new_mixed() {
    let mut b = Bench::ardupilot();
    let mut old = vec![mission()[0]];
    old.extend(mission());
    b.upload(PlanKind::Mission, &old);
    // Another upload of as many items: home and the first new item, then silence.
    let mut new = old.clone();
    for i in &mut new[1..] {
        i.z = 99.0;
    }
    b.send(count(PlanKind::Mission, 6));
    b.send(item_int(PlanKind::Mission, 0, &new[0]));
    // Out of sequence: ACK 13, and the upload goes on.
    b.send(item_int(PlanKind::Mission, 2, &new[2]));
    // Another partner: ACK 14, for its items and for its download.
    b.send_as(0, OTHER, item_int(PlanKind::Mission, 1, &new[1]));
    b.send_as(0, OTHER, request_list(PlanKind::Mission));
    b.send(item_int(PlanKind::Mission, 1, &new[1]));
    let results: Vec<_> = b
        .take()
        .into_iter()
        .filter_map(|m| match m {
            MavMessage::MISSION_ACK(a) => Some(a.mavtype),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            MAV_MISSION_INVALID_SEQUENCE,
            MAV_MISSION_DENIED,
            MAV_MISSION_DENIED
        ]
    );
    // Requests again every second; after 8 s without an item, ACK 15 and a text.
    b.advance(2100);
    assert_eq!(
        b.take()
            .iter()
            .filter(|m| matches!(m, MavMessage::MISSION_REQUEST(r) if r.seq == 2))
            .count(),
        2
    );
    b.advance(6000);
    let a = b.acks();
    assert_eq!(
        a.last().map(|a| a.mavtype),
        Some(MAV_MISSION_OPERATION_CANCELLED)
    );
    assert!(b.texts.contains(&"Mission upload timeout".to_string()));
    let stored: Vec<f32> = b
        .server
        .items(PlanKind::Mission)
        .iter()
        .map(|i| i.z)
        .collect();
    assert_eq!(stored, [99.0, 30.0, 0.0, 30.0, 0.0], "written as it came");
}

#[test]
fn ardupilot_validates_a_fence_whole_and_keeps_the_old_one_otherwise() {
    let mut b = Bench::ardupilot();
    assert_eq!(
        b.upload(PlanKind::Fence, &fence(0.0)).mavtype,
        MAV_MISSION_ACCEPTED
    );
    // Four vertices each saying the polygon has 5: invalid as a whole.
    let mut bad = fence(0.001);
    bad.iter_mut().for_each(|i| i.params[0] = 5.0);
    assert_eq!(b.upload(PlanKind::Fence, &bad).mavtype, MAV_MISSION_ERROR);
    assert!(b.texts.contains(&"Fence validation failed".to_string()));
    assert_eq!(b.server.items(PlanKind::Fence), &fence(0.0)[..]);
    // A mission item in the fence list: ACK 3 at once.
    let mut wrong = fence(0.0);
    wrong[1].command = MavCmd::MAV_CMD_NAV_WAYPOINT;
    assert_eq!(
        b.upload(PlanKind::Fence, &wrong).mavtype,
        MAV_MISSION_UNSUPPORTED
    );
    // Its capacities, and MAV_MISSION_TYPE_ALL has no protocol: ACK 3.
    b.send(count(PlanKind::Mission, 651));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_NO_SPACE);
    assert!(
        b.texts
            .contains(&"Only 650 items are supported".to_string())
    );
    b.send(count(PlanKind::Rally, u16::MAX));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_NO_SPACE);
    assert!(b.server.next_deadline_us().is_none(), "no upload waits");
    b.send(clear_all(MavMissionType::MAV_MISSION_TYPE_ALL));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_UNSUPPORTED);
    b.send(clear_all(MavMissionType::MAV_MISSION_TYPE_FENCE));
    assert_eq!(b.acks()[0].mavtype, MAV_MISSION_ACCEPTED);
    assert!(b.server.items(PlanKind::Fence).is_empty());
}

/// A small deterministic generator for the storm below.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.next() as usize % from.len()]
    }

    fn f32(&mut self) -> f32 {
        self.pick(&[
            0.0,
            3.0,
            4.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            1e30,
            f32::from_bits(self.0 as u32),
        ])
    }

    /// `usual` half the time, anything otherwise.
    fn or_f32(&mut self, usual: f32) -> f32 {
        if self.next().is_multiple_of(2) {
            usual
        } else {
            self.f32()
        }
    }

    fn or_i32(&mut self, usual: i32) -> i32 {
        if self.next().is_multiple_of(2) {
            usual
        } else {
            self.next() as i32
        }
    }
}

#[test]
#[allow(deprecated)] // the storm speaks every mission message, deprecated ones too
fn any_sequence_of_mission_messages_is_survived_within_the_capacities() {
    for autopilot in [Autopilot::Px4, Autopilot::ArduCopter] {
        let mut b = Bench::new(autopilot);
        let mut r = Lcg(7);
        let types = [
            MavMissionType::MAV_MISSION_TYPE_MISSION,
            MavMissionType::MAV_MISSION_TYPE_FENCE,
            MavMissionType::MAV_MISSION_TYPE_RALLY,
            MavMissionType::MAV_MISSION_TYPE_ALL,
        ];
        let commands = [
            MavCmd::MAV_CMD_NAV_WAYPOINT,
            MavCmd::MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
            MavCmd::MAV_CMD_NAV_FENCE_CIRCLE_EXCLUSION,
            MavCmd::MAV_CMD_NAV_RALLY_POINT,
            MavCmd::MAV_CMD_DO_JUMP,
            MavCmd::MAV_CMD_NAV_ROI,
        ];
        let frames = [
            MavFrame::MAV_FRAME_GLOBAL,
            MavFrame::MAV_FRAME_MISSION,
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            MavFrame::MAV_FRAME_LOCAL_NED,
        ];
        let results = [
            MAV_MISSION_ACCEPTED,
            MAV_MISSION_UNSUPPORTED,
            MAV_MISSION_OPERATION_CANCELLED,
            MAV_MISSION_ERROR,
        ];
        let mut stored = 0;
        for _ in 0..20_000 {
            // Weighted toward what a ground station sends, so that plans get through too.
            let seq = r.pick(&[0, 0, 0, 1, 1, 2, 3, 63, 64, 650, 9_999, u16::MAX]);
            let mission_type = r.pick(&types);
            let target_system = r.pick(&[SYS, SYS, SYS, 0, 9]);
            let target_component = r.pick(&[1, 1, 0, 190, 7]);
            let m = match r.next() % 9 {
                0 => MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
                    count: r.pick(&[0, 1, 1, 1, 2, 3, 4, 32, 64, 65, 650, 10_000, u16::MAX]),
                    target_system,
                    target_component,
                    mission_type,
                    opaque_id: r.next() as u32,
                }),
                1 | 2 => MavMessage::MISSION_ITEM_INT(mav::MISSION_ITEM_INT_DATA {
                    param1: r.or_f32(3.0),
                    param2: r.f32(),
                    param3: r.f32(),
                    param4: r.or_f32(0.0),
                    x: r.or_i32(473_977_420),
                    y: r.or_i32(85_455_940),
                    z: r.f32(),
                    seq,
                    command: r.pick(&commands),
                    target_system,
                    target_component,
                    frame: r.pick(&frames),
                    current: r.pick(&[0, 1, 255]),
                    autocontinue: r.pick(&[0, 1, 255]),
                    mission_type,
                }),
                3 => MavMessage::MISSION_ITEM(mav::MISSION_ITEM_DATA {
                    param1: r.f32(),
                    x: r.f32(),
                    y: r.f32(),
                    z: r.f32(),
                    seq,
                    command: r.pick(&commands),
                    target_system,
                    target_component,
                    frame: r.pick(&frames),
                    mission_type,
                    ..Default::default()
                }),
                4 => MavMessage::MISSION_REQUEST_LIST(mav::MISSION_REQUEST_LIST_DATA {
                    target_system,
                    target_component,
                    mission_type,
                }),
                5 => MavMessage::MISSION_REQUEST_INT(mav::MISSION_REQUEST_INT_DATA {
                    seq,
                    target_system,
                    target_component,
                    mission_type,
                }),
                6 => MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
                    seq,
                    target_system,
                    target_component,
                    mission_type,
                }),
                7 => MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
                    target_system,
                    target_component,
                    mavtype: r.pick(&results),
                    mission_type,
                    opaque_id: 0,
                }),
                _ => MavMessage::MISSION_CLEAR_ALL(mav::MISSION_CLEAR_ALL_DATA {
                    target_system,
                    target_component,
                    mission_type,
                }),
            };
            let who = r.pick(&[GCS, GCS, GCS, OTHER]);
            let link = r.pick(&[0, 0, 0, 1, 5]);
            b.send_as(link, who, m);
            if r.next().is_multiple_of(50) {
                b.advance(r.pick(&[10, 300, 1100, 6000, 9000]));
            }
            let caps = match autopilot {
                Autopilot::Px4 => [10_000, 64, 32],
                Autopilot::ArduCopter => [650, 70, 46],
            };
            for (kind, cap) in PlanKind::ALL.into_iter().zip(caps) {
                assert!(b.server.items(kind).len() <= cap, "{autopilot:?} {kind:?}");
                stored = stored.max(b.server.items(kind).len());
            }
            assert!(b.server.poll().is_none());
            b.sent.clear();
            b.broadcasts.clear();
            b.texts.clear();
        }
        // The storm got plans through, not only refusals.
        assert!(stored >= 1, "{autopilot:?}: nothing was ever stored");
    }
}
