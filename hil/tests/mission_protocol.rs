//! The mission protocol's client against scripted PX4 and ArduPilot peers
//! (`alpha3_hil::mission::fake`, built from shared/MISSION-FACTS.md): download, upload and
//! clear of all three plans, lost frames and retries, the give-up, error ACKs, a refused
//! second transfer, plan changes seen in MISSION_CURRENT, and random traffic.
#![allow(clippy::unwrap_used, deprecated)]

use MissionKind::{Fence, Mission, Rally};
use alpha3_hil::command::Target;
use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::mission::fake::{
    Dir, FakeArduPilot, FakeAutopilot, FakePx4, Link, Rng, ZURICH_HOME as HOME, plan_id,
    random_message, sample_plan as plan,
};
use alpha3_hil::mission::{
    Awaited, MAX_OUTBOX, MissionClient, MissionError, MissionEvent, MissionKind, Operation,
};
use alpha3_hil::profile::Profile;
use mav::{MavCmd, MavMissionResult};

const AP: Target = Target {
    system: 1,
    component: 1,
};
const US: Target = Target {
    system: 1,
    component: 191,
};
const MS: u64 = 1000;
const LIMIT: u64 = 120_000 * MS;
/// Plan sizes per kind for the round trips (a fence polygon needs at least 3 vertices).
const SIZES: [(MissionKind, u16); 3] = [(Mission, 7), (Fence, 4), (Rally, 3)];

fn px4() -> (MissionClient, FakePx4) {
    (
        MissionClient::new(Profile::Px4, AP, US),
        FakePx4::new(AP, US),
    )
}

fn ardupilot() -> (MissionClient, FakeArduPilot) {
    (
        MissionClient::new(Profile::ArduPilot, AP, US),
        FakeArduPilot::new(AP, US, HOME),
    )
}

/// A link that loses the first `n` frames going `dir` that `pick` matches.
fn losing(n: u32, dir: Dir, pick: impl Fn(&MavMessage) -> bool + 'static) -> Link {
    let mut lost = 0;
    Link::dropping(move |d, m| {
        let hit = d == dir && lost < n && pick(m);
        lost += u32::from(hit);
        hit
    })
}

fn is_request_int(seq: u16) -> impl Fn(&MavMessage) -> bool {
    move |m| matches!(m, MavMessage::MISSION_REQUEST_INT(r) if r.seq == seq)
}

fn failure(event: Option<MissionEvent>) -> MissionError {
    match event {
        Some(MissionEvent::Failed { why, .. }) => why,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn px4_downloads_every_plan_strictly_in_order() {
    for (kind, n) in SIZES {
        let (mut c, ap) = px4();
        let mut ap = ap.with_plan(kind, plan(kind, n, 0));
        let mut link = Link::lossless();
        c.start_download(kind, 0).unwrap();
        match link.run(&mut c, &mut ap, LIMIT) {
            Some(MissionEvent::Downloaded {
                kind: k,
                items,
                home,
                opaque_id,
            }) => {
                assert_eq!(k, kind);
                assert_eq!(items, plan(kind, n, 0));
                assert_eq!(home, None, "PX4 has no home item");
                assert_eq!(opaque_id, plan_id(&items));
            }
            other => panic!("{kind}: {other:?}"),
        }
        let asks = link.sent(Dir::Up, |m| matches!(m, MavMessage::MISSION_REQUEST_INT(_)));
        let in_order = asks.iter().zip(0..).all(|((_, m), s)| is_request_int(s)(m));
        assert!(
            in_order && asks.len() == usize::from(n),
            "each seq once, in order"
        );
        assert_eq!(
            ap.stats.downloads_closed_by_ack, 1,
            "our final ACK ends PX4's transfer"
        );
        assert!(ap.stats.acks_sent.is_empty(), "{:?}", ap.stats.acks_sent);
        assert_eq!(c.plan_id(kind), Some(plan_id(&plan(kind, n, 0))));
    }
}

#[test]
fn ardupilot_downloads_report_home_apart_and_ignore_our_ack() {
    for (kind, n) in SIZES {
        let (mut c, ap) = ardupilot();
        let mut ap = ap.with_plan(kind, plan(kind, n, 0));
        let mut link = Link::lossless();
        c.start_download(kind, 0).unwrap();
        let Some(MissionEvent::Downloaded {
            items,
            home,
            opaque_id,
            ..
        }) = link.run(&mut c, &mut ap, LIMIT)
        else {
            panic!("{kind}: no download");
        };
        assert_eq!(opaque_id, 0, "ArduPilot's dialect has no opaque_id");
        if kind == Mission {
            let home = home.expect("seq 0 is home");
            assert_eq!(
                (home.seq, home.x, home.y, home.z),
                (0, HOME.0, HOME.1, HOME.2)
            );
            assert_eq!(items, plan(kind, n, 1), "the plan starts at seq 1");
        } else {
            assert_eq!(home, None);
            assert_eq!(items, plan(kind, n, 0));
        }
        assert_eq!(ap.stats.gcs_acks_ignored, 1);
    }
}

#[test]
fn px4_uploads_every_plan_and_names_it_by_crc() {
    for (kind, n) in SIZES {
        let (mut c, mut ap) = px4();
        let mut link = Link::lossless();
        c.start_upload(kind, plan(kind, n, 40), 0).unwrap();
        let event = link.run(&mut c, &mut ap, LIMIT);
        let expect = plan(kind, n, 0);
        assert_eq!(
            event,
            Some(MissionEvent::Uploaded {
                kind,
                opaque_id: plan_id(&expect)
            })
        );
        assert_eq!(ap.plan(kind), expect, "renumbered from 0, all stored");
        let float = link.sent(Dir::Down, |m| matches!(m, MavMessage::MISSION_REQUEST(_)));
        assert!(float.is_empty(), "PX4 asks with MISSION_REQUEST_INT");
        assert_eq!(ap.stats.requests_int_sent, u32::from(n));
    }
}

#[test]
fn ardupilot_uploads_answer_mission_request_and_keep_home() {
    for (kind, n) in SIZES {
        let (mut c, mut ap) = ardupilot();
        let mut link = Link::lossless();
        c.start_upload(kind, plan(kind, n, 0), 0).unwrap();
        assert_eq!(
            link.run(&mut c, &mut ap, LIMIT),
            Some(MissionEvent::Uploaded { kind, opaque_id: 0 })
        );
        let int = link.sent(Dir::Down, |m| {
            matches!(m, MavMessage::MISSION_REQUEST_INT(_))
        });
        assert!(int.is_empty(), "ArduPilot asks with MISSION_REQUEST");
        let answered = link
            .sent(Dir::Up, |m| matches!(m, MavMessage::MISSION_ITEM_INT(_)))
            .len();
        if kind == Mission {
            assert_eq!(answered, usize::from(n) + 1, "home slot + plan");
            assert_eq!(ap.plan(kind)[0].x, HOME.0, "seq 0 content is ignored");
            assert_eq!(&ap.plan(kind)[1..], plan(kind, n, 1));
        } else {
            assert_eq!(answered, usize::from(n));
            assert_eq!(ap.plan(kind), plan(kind, n, 0));
        }
        assert_eq!(ap.stats.acks_sent, [MavMissionResult::MAV_MISSION_ACCEPTED]);
    }
}

#[test]
fn clears_are_acknowledged_on_both() {
    let (mut c, ap) = px4();
    let mut ap = ap.with_plan(Rally, plan(Rally, 2, 0));
    c.start_clear(Rally, 0).unwrap();
    let event = Link::lossless().run(&mut c, &mut ap, LIMIT);
    assert_eq!(event, Some(MissionEvent::Cleared { kind: Rally }));
    assert!(ap.plan(Rally).is_empty());
    let (mut c, ap) = ardupilot();
    let mut ap = ap.with_plan(Mission, plan(Mission, 3, 0));
    c.start_clear(Mission, 0).unwrap();
    let event = Link::lossless().run(&mut c, &mut ap, LIMIT);
    assert_eq!(event, Some(MissionEvent::Cleared { kind: Mission }));
    assert_eq!(ap.plan(Mission).len(), 1, "home stays");
}

#[test]
fn a_lost_item_request_is_asked_again_after_250_ms() {
    let (mut c, ap) = px4();
    let mut ap = ap.with_plan(Mission, plan(Mission, 5, 0));
    let mut link = losing(1, Dir::Up, is_request_int(2));
    c.start_download(Mission, 0).unwrap();
    assert!(
        matches!(link.run(&mut c, &mut ap, LIMIT), Some(MissionEvent::Downloaded { ref items, .. }) if items.len() == 5)
    );
    let asks = link.sent(Dir::Up, is_request_int(2));
    assert_eq!(asks.len(), 2);
    assert_eq!(asks[1].0 - asks[0].0, 250 * MS);
}

#[test]
fn a_lost_count_is_asked_for_again_after_1500_ms() {
    let (mut c, ap) = px4();
    let mut ap = ap.with_plan(Fence, plan(Fence, 3, 0));
    let mut link = losing(1, Dir::Down, |m| matches!(m, MavMessage::MISSION_COUNT(_)));
    c.start_download(Fence, 0).unwrap();
    assert!(matches!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Downloaded { .. })
    ));
    let lists = link.sent(Dir::Up, |m| {
        matches!(m, MavMessage::MISSION_REQUEST_LIST(_))
    });
    assert_eq!(
        lists.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        [0, 1500 * MS]
    );
}

#[test]
fn a_lost_upload_item_is_asked_again_by_px4() {
    let (mut c, mut ap) = px4();
    let mut link = losing(
        1,
        Dir::Up,
        |m| matches!(m, MavMessage::MISSION_ITEM_INT(i) if i.seq == 1),
    );
    c.start_upload(Mission, plan(Mission, 4, 0), 0).unwrap();
    assert!(matches!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Uploaded { .. })
    ));
    assert_eq!(ap.plan(Mission), plan(Mission, 4, 0));
    assert_eq!(
        link.sent(Dir::Down, is_request_int(1)).len(),
        2,
        "PX4 re-requested after 250 ms"
    );
}

#[test]
fn a_lost_final_ack_from_px4_is_recovered_by_its_re_ack() {
    let (mut c, mut ap) = px4();
    let mut link = losing(1, Dir::Down, |m| matches!(m, MavMessage::MISSION_ACK(_)));
    let items = plan(Rally, 3, 0);
    c.start_upload(Rally, items.clone(), 0).unwrap();
    let event = link.run(&mut c, &mut ap, LIMIT);
    assert_eq!(
        event,
        Some(MissionEvent::Uploaded {
            kind: Rally,
            opaque_id: plan_id(&items)
        })
    );
    assert_eq!(
        link.now_us,
        1500 * MS,
        "the last item re-sent once, after 1500 ms"
    );
}

#[test]
fn silence_gives_up_after_five_retries_with_a_typed_error() {
    type Start = fn(&mut MissionClient) -> Result<(), MissionError>;
    let starts: [(Operation, Start); 3] = [
        (Operation::Download, |c| c.start_download(Mission, 0)),
        (Operation::Upload, |c| {
            c.start_upload(Fence, plan(Fence, 3, 0), 0)
        }),
        (Operation::Clear, |c| c.start_clear(Rally, 0)),
    ];
    for (op, start) in starts {
        let (mut c, mut ap) = px4();
        let mut link = Link::dropping(|_, _| true);
        start(&mut c).unwrap();
        let why = failure(link.run(&mut c, &mut ap, LIMIT));
        let MissionError::TimedOut {
            operation,
            sends,
            done,
            ..
        } = why
        else {
            panic!("{op}: {why:?}");
        };
        assert_eq!(
            (operation, sends, done),
            (op, 6, 0),
            "one send and five retries"
        );
        assert_eq!(link.now_us, 6 * 1500 * MS);
        assert!(!c.is_busy());
    }
}

#[test]
fn a_download_cut_mid_way_is_partial_and_never_success() {
    let (mut c, ap) = px4();
    let mut ap = ap.with_plan(Mission, plan(Mission, 10, 0));
    let mut items_down = 0;
    let mut link = Link::dropping(move |dir, m| {
        if dir == Dir::Down && matches!(m, MavMessage::MISSION_ITEM_INT(_)) {
            items_down += 1;
        }
        dir == Dir::Down && items_down > 4
    });
    c.start_download(Mission, 0).unwrap();
    let why = failure(link.run(&mut c, &mut ap, LIMIT));
    assert_eq!(
        why,
        MissionError::TimedOut {
            operation: Operation::Download,
            kind: Mission,
            awaited: Awaited::Item { seq: 4 },
            sends: 6,
            done: 4,
            total: Some(10),
        }
    );
    assert!(why.to_string().contains("4 of 10 items"), "{why}");
    let last_up = link
        .sent(Dir::Up, |_| true)
        .last()
        .map(|(_, m)| (*m).clone());
    assert!(
        matches!(last_up, Some(MavMessage::MISSION_ACK(a)) if a.mavtype == MavMissionResult::MAV_MISSION_OPERATION_CANCELLED),
        "the autopilot is told the transfer is off"
    );
    assert_eq!(c.poll_event(), None);
}

#[test]
fn ardupilot_ack_13_for_an_out_of_sequence_item_does_not_end_the_upload() {
    let (mut c, mut ap) = ardupilot();
    // ArduPilot's request for seq 2 is lost twice (at t and t + 1 s), so our 1.5 s timer
    // re-sends item 1 first: ArduPilot answers 13 and carries on.
    let mut link = losing(
        2,
        Dir::Down,
        |m| matches!(m, MavMessage::MISSION_REQUEST(r) if r.seq == 2),
    );
    c.start_upload(Mission, plan(Mission, 3, 0), 0).unwrap();
    assert_eq!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Uploaded {
            kind: Mission,
            opaque_id: 0
        })
    );
    assert_eq!(
        ap.stats.acks_sent,
        [
            MavMissionResult::MAV_MISSION_INVALID_SEQUENCE,
            MavMissionResult::MAV_MISSION_ACCEPTED
        ]
    );
    assert_eq!(&ap.plan(Mission)[1..], plan(Mission, 3, 1));
}

#[test]
fn error_acks_end_the_transfer_with_their_result_named() {
    let refused = |event| match failure(event) {
        MissionError::Refused {
            result,
            done,
            total,
            ..
        } => (result, done, total),
        other => panic!("{other:?}"),
    };
    // PX4: an unsupported command aborts, the old plan stays (MM:1125-1138).
    let (mut c, ap) = px4();
    let old = plan(Mission, 2, 0);
    let mut ap = ap.with_plan(Mission, old.clone());
    let mut items = plan(Mission, 4, 0);
    items[2].command = MavCmd::MAV_CMD_NAV_LOITER_TURNS;
    c.start_upload(Mission, items, 0).unwrap();
    let r = refused(Link::lossless().run(&mut c, &mut ap, LIMIT));
    assert_eq!(r, (MavMissionResult::MAV_MISSION_UNSUPPORTED, 2, 4));
    assert_eq!(ap.plan(Mission), old);
    // ArduPilot: more than its storage holds, though within our cap.
    let (mut c, mut ap) = ardupilot();
    c.start_upload(Mission, plan(Mission, 700, 0), 0).unwrap();
    let r = refused(Link::lossless().run(&mut c, &mut ap, LIMIT));
    assert_eq!(r, (MavMissionResult::MAV_MISSION_NO_SPACE, 0, 701));
    // ArduPilot: a bad latitude at item 2; the message names the result.
    let (mut c, mut ap) = ardupilot();
    let mut items = plan(Rally, 4, 0);
    items[2].x = 1_000_000_000;
    c.start_upload(Rally, items, 0).unwrap();
    let event = Link::lossless().run(&mut c, &mut ap, LIMIT);
    assert!(
        matches!(&event, Some(MissionEvent::Failed { why, .. }) if why.to_string().contains("MAV_MISSION_INVALID_PARAM5_X"))
    );
    assert_eq!(
        refused(event),
        (MavMissionResult::MAV_MISSION_INVALID_PARAM5_X, 2, 4)
    );
    // ArduPilot: clearing the mission it is flying.
    let (mut c, mut ap) = ardupilot();
    ap.mission_running = true;
    c.start_clear(Mission, 0).unwrap();
    assert_eq!(
        refused(Link::lossless().run(&mut c, &mut ap, LIMIT)).0,
        MavMissionResult::MAV_MISSION_ERROR
    );
}

#[test]
fn a_second_transfer_is_refused_and_the_first_completes() {
    let (mut c, mut ap) = px4();
    c.start_upload(Mission, plan(Mission, 3, 0), 0).unwrap();
    let busy = MissionError::Busy {
        operation: Operation::Upload,
        kind: Mission,
    };
    assert_eq!(c.start_download(Fence, 0), Err(busy.clone()));
    assert_eq!(c.start_clear(Mission, 0), Err(busy.clone()));
    assert_eq!(c.start_upload(Rally, vec![], 0), Err(busy));
    let mut link = Link::lossless();
    assert!(matches!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Uploaded { .. })
    ));
    assert!(
        link.sent(Dir::Up, |m| matches!(
            m,
            MavMessage::MISSION_REQUEST_LIST(_) | MavMessage::MISSION_CLEAR_ALL(_)
        ))
        .is_empty()
    );
    assert!(
        c.start_download(Fence, link.now_us).is_ok(),
        "free once done"
    );
}

#[test]
fn a_plan_changed_elsewhere_shows_in_mission_current_on_px4_only() {
    let (mut c, ap) = px4();
    let mut ap = ap.with_plan(Mission, plan(Mission, 3, 0));
    let mut link = Link::lossless();
    c.start_download(Mission, 0).unwrap();
    assert!(matches!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Downloaded { .. })
    ));
    c.handle(&ap.mission_current(), 0);
    assert_eq!(c.poll_event(), None, "the plan we hold");
    c.start_upload(Fence, plan(Fence, 3, 0), 0).unwrap();
    assert!(matches!(
        link.run(&mut c, &mut ap, LIMIT),
        Some(MissionEvent::Uploaded { .. })
    ));
    c.handle(&ap.mission_current(), 0);
    assert_eq!(c.poll_event(), None, "our own upload is not news");
    ap.replace_plan(Mission, plan(Mission, 4, 0));
    c.handle(&ap.mission_current(), 0);
    assert_eq!(
        c.poll_event(),
        Some(MissionEvent::PlanChanged { kind: Mission })
    );
    assert_eq!(c.current().map(|m| m.total), Some(4));
    // ArduPilot has no ids: the same change goes unseen (re-download to know).
    let (mut c, ap) = ardupilot();
    let ap2 = ap.clone().with_plan(Mission, plan(Mission, 4, 0));
    c.handle(&ap.mission_current(), 0);
    c.handle(&ap2.mission_current(), 0);
    assert_eq!(c.poll_event(), None);
    assert_eq!(c.current().map(|m| m.total), Some(4), "total excludes home");
}

#[test]
fn random_traffic_never_panics_and_keeps_state_bounded() {
    for seed in 0..400u64 {
        let mut r = Rng(seed);
        let profiles = [Profile::Px4, Profile::ArduPilot];
        let mut c = MissionClient::new(profiles[(seed % 2) as usize], AP, US);
        let mut now = 0u64;
        let mut outcomes_undrained = 0usize;
        for _ in 0..300 {
            let kind = MissionKind::ALL[r.below(3) as usize];
            let started = match r.below(12) {
                0 => c.start_download(kind, now).is_ok(),
                1 => c
                    .start_upload(kind, plan(kind, r.below(80) as u16, 0), now)
                    .is_ok(),
                2 => c.start_clear(kind, now).is_ok(),
                3 => {
                    // Time jumps: forward a little or a lot, backwards, or to the end of time.
                    now = match r.below(4) {
                        0 => now.saturating_add(r.below(2_000) * MS),
                        1 => now.saturating_sub(r.below(5_000) * MS),
                        2 => c.poll_timeout().unwrap_or(now),
                        _ => u64::MAX - r.below(3),
                    };
                    c.handle_timeout(now);
                    false
                }
                4 => {
                    while c.poll_transmit().is_some() {}
                    false
                }
                5 => {
                    while let Some(e) = c.poll_event() {
                        if let MissionEvent::Downloaded { items, .. } = e {
                            assert!(
                                items.windows(2).all(|w| w[1].seq == w[0].seq + 1),
                                "seed {seed}"
                            );
                        }
                    }
                    // The transfer still running will add its outcome.
                    outcomes_undrained = usize::from(c.is_busy());
                    false
                }
                _ => {
                    c.handle(&random_message(&mut r, US), now);
                    false
                }
            };
            outcomes_undrained += usize::from(started);
            assert!(c.held_items() <= usize::from(Mission.cap()), "seed {seed}");
            let (out, events) = c.queued();
            assert!(out <= MAX_OUTBOX, "seed {seed}: outbox {out}");
            assert!(
                events <= 4 + outcomes_undrained,
                "seed {seed}: {events} events: {:?}",
                std::iter::from_fn(|| c.poll_event()).collect::<Vec<_>>()
            );
            assert_eq!(c.poll_timeout().is_some(), c.is_busy(), "seed {seed}");
        }
    }
}

#[test]
fn lossy_links_end_in_the_truth_or_a_typed_failure() {
    for seed in 0..150u64 {
        let mut r = Rng(seed ^ 0x5eed);
        let loss = r.below(50);
        let mut rr = Rng(seed);
        let mut link = Link::dropping(move |_, _| rr.below(100) < loss);
        let kind = MissionKind::ALL[r.below(3) as usize];
        let n = 1 + r.below(u64::from(FakePx4::cap(kind).min(20))) as u16;
        let upload = r.below(2) == 0;
        // Uploads go to an empty autopilot, so what it stores can only be what we sent.
        let stored = if upload { Vec::new() } else { plan(kind, n, 0) };
        let on_px4 = seed % 2 == 0;
        let (mut c, mut ap): (MissionClient, Box<dyn FakeAutopilot>) = if on_px4 {
            let (c, ap) = px4();
            (c, Box::new(ap.with_plan(kind, stored)))
        } else {
            let (c, ap) = ardupilot();
            (c, Box::new(ap.with_plan(kind, stored)))
        };
        let home = !on_px4 && kind == Mission;
        let expect = plan(kind, n, u16::from(home));
        if upload {
            c.start_upload(kind, plan(kind, n, 0), 0).unwrap();
        } else {
            c.start_download(kind, 0).unwrap();
        }
        match link.run(&mut c, ap.as_mut(), 3_600_000 * MS) {
            Some(MissionEvent::Downloaded { items, .. }) => {
                assert_eq!(items, expect, "seed {seed}")
            }
            Some(MissionEvent::Uploaded { .. }) => {
                assert!(upload, "seed {seed}");
                assert_eq!(&ap.plan(kind)[usize::from(home)..], expect, "seed {seed}");
            }
            Some(MissionEvent::Failed {
                why: MissionError::TimedOut { .. } | MissionError::Refused { .. },
                ..
            }) => {}
            other => panic!("seed {seed} (loss {loss}%, upload {upload}): {other:?}"),
        }
        assert!(!c.is_busy(), "seed {seed}");
    }
}
