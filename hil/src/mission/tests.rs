// ArduPilot asks with the deprecated MISSION_REQUEST; the tests must build it.
#![allow(deprecated)]

use super::event::Events;
use super::retry::RetryTimer;
use super::*;
use crate::command::Target;
use crate::dialect::{MavMessage, mav};
use crate::profile::Profile;
use mav::{MavCmd, MavFrame, MavMissionResult, MavMissionType};

const AP: Target = Target {
    system: 1,
    component: 1,
};
const US: Target = Target {
    system: 255,
    component: 191,
};
const MS: u64 = 1000;

fn client(profile: Profile) -> MissionClient {
    MissionClient::new(profile, AP, US)
}

fn drain(c: &mut MissionClient) -> Vec<MavMessage> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn count(kind: MissionKind, n: u16, opaque_id: u32) -> MavMessage {
    MavMessage::MISSION_COUNT(mav::MISSION_COUNT_DATA {
        count: n,
        target_system: US.system,
        target_component: US.component,
        mission_type: kind.to_mav(),
        opaque_id,
    })
}

fn item(kind: MissionKind, seq: u16, x: i32) -> MavMessage {
    let mut i = MissionItem::waypoint(
        kind,
        MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
        x,
        85_000_000,
        10.0,
    );
    i.seq = seq;
    MavMessage::MISSION_ITEM_INT(i.to_wire(US))
}

fn ack(kind: MissionKind, result: MavMissionResult, opaque_id: u32) -> MavMessage {
    MavMessage::MISSION_ACK(mav::MISSION_ACK_DATA {
        target_system: US.system,
        target_component: US.component,
        mavtype: result,
        mission_type: kind.to_mav(),
        opaque_id,
    })
}

fn request(kind: MissionKind, seq: u16) -> MavMessage {
    MavMessage::MISSION_REQUEST(mav::MISSION_REQUEST_DATA {
        seq,
        target_system: US.system,
        target_component: US.component,
        mission_type: kind.to_mav(),
    })
}

fn current(mission_id: u32, fence_id: u32) -> MavMessage {
    MavMessage::MISSION_CURRENT(mav::MISSION_CURRENT_DATA {
        mission_id,
        fence_id,
        ..Default::default()
    })
}

#[test]
fn kinds_map_to_mission_types_and_all_is_none() {
    for k in MissionKind::ALL {
        assert_eq!(MissionKind::from_mav(k.to_mav()), Some(k));
    }
    assert_eq!(
        MissionKind::from_mav(MavMissionType::MAV_MISSION_TYPE_ALL),
        None
    );
    assert_eq!(MissionKind::Mission.cap(), 10_000);
    assert!(MissionKind::Fence.cap() >= 64 && MissionKind::Rally.cap() >= 32);
}

#[test]
fn an_item_survives_the_wire() {
    let mut i = MissionItem::waypoint(
        MissionKind::Rally,
        MavFrame::MAV_FRAME_GLOBAL,
        473_977_000,
        85_456_000,
        488.5,
    );
    i.command = MavCmd::MAV_CMD_NAV_RALLY_POINT;
    i.seq = 7;
    i.param4 = f32::NAN;
    let back = MissionItem::from_wire(&i.to_wire(AP)).expect("rally is a plan");
    assert_eq!(back.seq, 7);
    assert_eq!((back.x, back.y, back.z), (i.x, i.y, i.z));
    assert!(back.param4.is_nan());
    assert_eq!(back.mission_type, MissionKind::Rally);
}

#[test]
fn the_retry_timer_allows_exactly_the_retries() {
    let mut t = RetryTimer::sent(0, 100);
    assert!(!t.expired(99 * MS));
    assert!(t.expired(100 * MS));
    let mut retries = 0;
    while t.retry(0, 5) {
        retries += 1;
    }
    assert_eq!((retries, t.sends), (5, 6));
    let far = RetryTimer::sent(u64::MAX - 1, 1500);
    assert_eq!(far.deadline_us(), u64::MAX, "saturates, never wraps");
}

#[test]
fn a_download_requests_each_item_in_order_then_acks() {
    let mut c = client(Profile::Px4);
    c.start_download(MissionKind::Fence, 0).expect("idle");
    assert!(matches!(
        drain(&mut c)[..],
        [MavMessage::MISSION_REQUEST_LIST(_)]
    ));
    c.handle(&count(MissionKind::Fence, 2, 77), MS);
    assert!(matches!(drain(&mut c)[..], [MavMessage::MISSION_REQUEST_INT(ref r)] if r.seq == 0));
    c.handle(&item(MissionKind::Fence, 1, 5), 2 * MS);
    assert!(drain(&mut c).is_empty(), "seq 1 before seq 0 is ignored");
    c.handle(&item(MissionKind::Mission, 0, 5), 2 * MS);
    assert!(drain(&mut c).is_empty(), "another plan's item is ignored");
    c.handle(&item(MissionKind::Fence, 0, 5), 3 * MS);
    c.handle(&item(MissionKind::Fence, 0, 5), 3 * MS);
    let sent = drain(&mut c);
    assert_eq!(sent.len(), 1, "a duplicate asks nothing more: {sent:?}");
    c.handle(&item(MissionKind::Fence, 1, 6), 4 * MS);
    assert!(
        matches!(drain(&mut c)[..], [MavMessage::MISSION_ACK(ref a)] if a.mavtype == MavMissionResult::MAV_MISSION_ACCEPTED)
    );
    match c.poll_event() {
        Some(MissionEvent::Downloaded {
            kind,
            items,
            home,
            opaque_id,
        }) => {
            assert_eq!((kind, home, opaque_id), (MissionKind::Fence, None, 77));
            assert_eq!(
                items.iter().map(|i| (i.seq, i.x)).collect::<Vec<_>>(),
                [(0, 5), (1, 6)]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!c.is_busy());
    assert_eq!(c.plan_id(MissionKind::Fence), Some(77));
}

#[test]
fn ardupilot_seq_zero_is_home_not_a_mission_item() {
    let mut c = client(Profile::ArduPilot);
    c.start_download(MissionKind::Mission, 0).expect("idle");
    c.handle(&count(MissionKind::Mission, 2, 0), 0);
    c.handle(&item(MissionKind::Mission, 0, 111), 0);
    c.handle(&item(MissionKind::Mission, 1, 222), 0);
    match c.poll_event() {
        Some(MissionEvent::Downloaded { items, home, .. }) => {
            assert_eq!(home.map(|h| h.x), Some(111));
            assert_eq!(
                items.iter().map(|i| (i.seq, i.x)).collect::<Vec<_>>(),
                [(1, 222)]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_count_above_the_cap_is_refused_with_no_space() {
    let mut c = client(Profile::Px4);
    c.start_download(MissionKind::Mission, 0).expect("idle");
    drain(&mut c);
    c.handle(&count(MissionKind::Mission, u16::MAX, 0), 0);
    assert_eq!(c.held_items(), 0);
    assert!(
        matches!(drain(&mut c)[..], [MavMessage::MISSION_ACK(ref a)] if a.mavtype == MavMissionResult::MAV_MISSION_NO_SPACE)
    );
    assert!(matches!(
        c.poll_event(),
        Some(MissionEvent::Failed {
            why: MissionError::TooMany {
                count: 65535,
                cap: 10_000,
                ..
            },
            ..
        })
    ));
    let many =
        vec![MissionItem::waypoint(MissionKind::Rally, MavFrame::MAV_FRAME_GLOBAL, 0, 0, 0.0); 47];
    assert!(matches!(
        c.start_upload(MissionKind::Rally, many, 0),
        Err(MissionError::TooMany { cap: 46, .. })
    ));
    assert!(!c.is_busy());
}

#[test]
fn a_second_transfer_is_refused_while_one_runs() {
    let mut c = client(Profile::Px4);
    c.start_clear(MissionKind::Rally, 0).expect("idle");
    assert_eq!(
        c.start_download(MissionKind::Mission, 0),
        Err(MissionError::Busy {
            operation: Operation::Clear,
            kind: MissionKind::Rally
        })
    );
    assert!(c.start_upload(MissionKind::Rally, vec![], 0).is_err());
    c.handle(
        &ack(
            MissionKind::Rally,
            MavMissionResult::MAV_MISSION_ACCEPTED,
            0,
        ),
        MS,
    );
    assert_eq!(
        c.poll_event(),
        Some(MissionEvent::Cleared {
            kind: MissionKind::Rally
        })
    );
    assert!(
        c.start_download(MissionKind::Mission, MS).is_ok(),
        "free again"
    );
}

#[test]
fn an_upload_ignores_early_accepts_and_ack_13_but_not_an_error() {
    let mut c = client(Profile::ArduPilot);
    let items = vec![
        MissionItem::waypoint(
            MissionKind::Mission,
            MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            1,
            2,
            3.0
        );
        3
    ];
    c.start_upload(MissionKind::Mission, items, 0)
        .expect("idle");
    assert!(
        matches!(drain(&mut c)[..], [MavMessage::MISSION_COUNT(ref n)] if n.count == 4),
        "home slot + 3"
    );
    c.handle(&request(MissionKind::Mission, 0), 0);
    c.handle(&request(MissionKind::Mission, 1), 0);
    let sent = drain(&mut c);
    assert!(
        matches!(&sent[..], [MavMessage::MISSION_ITEM_INT(h), MavMessage::MISSION_ITEM_INT(i)] if h.seq == 0 && h.x == 0 && i.seq == 1 && i.x == 1)
    );
    c.handle(
        &ack(
            MissionKind::Mission,
            MavMissionResult::MAV_MISSION_ACCEPTED,
            0,
        ),
        0,
    );
    c.handle(
        &ack(
            MissionKind::Mission,
            MavMissionResult::MAV_MISSION_INVALID_SEQUENCE,
            0,
        ),
        0,
    );
    c.handle(&request(MissionKind::Mission, 9), 0);
    assert!(c.is_busy() && c.poll_event().is_none());
    c.handle(&request(MissionKind::Mission, 2), 0);
    c.handle(
        &ack(
            MissionKind::Mission,
            MavMissionResult::MAV_MISSION_INVALID_PARAM5_X,
            0,
        ),
        0,
    );
    match c.poll_event() {
        Some(MissionEvent::Failed {
            why:
                MissionError::Refused {
                    result,
                    done,
                    total,
                    ..
                },
            ..
        }) => {
            assert_eq!(
                (result, done, total),
                (MavMissionResult::MAV_MISSION_INVALID_PARAM5_X, 2, 4)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn plan_ids_report_changes_by_others_only() {
    let mut c = client(Profile::Px4);
    c.handle(&current(10, 20), 0);
    assert_eq!(c.poll_event(), None, "the first report is the baseline");
    c.handle(&current(11, 20), 0);
    c.handle(&current(12, 20), 0);
    assert_eq!(
        c.poll_event(),
        Some(MissionEvent::PlanChanged {
            kind: MissionKind::Mission
        })
    );
    assert_eq!(c.poll_event(), None, "coalesced");
    c.start_upload(MissionKind::Fence, vec![], 0).expect("idle");
    c.handle(&current(12, 0), 0);
    c.handle(
        &ack(
            MissionKind::Fence,
            MavMissionResult::MAV_MISSION_ACCEPTED,
            0,
        ),
        0,
    );
    c.handle(&current(12, 0), 0);
    assert_eq!(
        c.poll_event(),
        Some(MissionEvent::Uploaded {
            kind: MissionKind::Fence,
            opaque_id: 0
        })
    );
    assert_eq!(c.poll_event(), None, "our own change is not news");
}

#[test]
fn reached_is_told_once_per_item() {
    let mut c = client(Profile::Px4);
    for seq in [3, 3, 3, 4] {
        c.handle(
            &MavMessage::MISSION_ITEM_REACHED(mav::MISSION_ITEM_REACHED_DATA { seq }),
            0,
        );
    }
    assert_eq!(
        c.poll_event(),
        Some(MissionEvent::Reached { seq: 4 }),
        "the latest replaces an undrained one"
    );
    assert_eq!(c.poll_event(), None);
    let mut e = Events::default();
    for _ in 0..100 {
        e.push(MissionEvent::PlanChanged {
            kind: MissionKind::Rally,
        });
    }
    assert_eq!(e.len(), 1);
}

#[test]
fn a_request_flood_keeps_the_outbox_bounded() {
    let mut c = client(Profile::Px4);
    let items =
        vec![MissionItem::waypoint(MissionKind::Mission, MavFrame::MAV_FRAME_GLOBAL, 0, 0, 0.0); 5];
    c.start_upload(MissionKind::Mission, items, 0)
        .expect("idle");
    for i in 0..1000u16 {
        c.handle(&request(MissionKind::Mission, i % 5), u64::from(i));
    }
    assert_eq!(c.queued().0, MAX_OUTBOX);
    assert_eq!(drain(&mut c).len(), MAX_OUTBOX);
}

#[test]
fn the_errors_name_what_happened() {
    let e = MissionError::Refused {
        operation: Operation::Upload,
        kind: MissionKind::Fence,
        result: MavMissionResult::MAV_MISSION_NO_SPACE,
        done: 0,
        total: 80,
    };
    assert!(e.to_string().contains("MAV_MISSION_NO_SPACE"), "{e}");
    let t = MissionError::TimedOut {
        operation: Operation::Download,
        kind: MissionKind::Mission,
        awaited: Awaited::Item { seq: 3 },
        sends: 6,
        done: 3,
        total: Some(9),
    };
    assert!(t.to_string().contains("3 of 9 items"), "{t}");
}

#[test]
fn frames_for_someone_else_are_ignored() {
    let mut c = client(Profile::Px4);
    c.start_download(MissionKind::Mission, 0).expect("idle");
    drain(&mut c);
    let mut other = count(MissionKind::Mission, 3, 0);
    if let MavMessage::MISSION_COUNT(d) = &mut other {
        d.target_system = 42;
    }
    c.handle(&other, 0);
    assert!(drain(&mut c).is_empty(), "not addressed to us");
    let mut broadcast = count(MissionKind::Mission, 3, 0);
    if let MavMessage::MISSION_COUNT(d) = &mut broadcast {
        (d.target_system, d.target_component) = (0, 0);
    }
    c.handle(&broadcast, 0);
    assert!(matches!(
        drain(&mut c)[..],
        [MavMessage::MISSION_REQUEST_INT(_)]
    ));
}
