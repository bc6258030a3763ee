//! What one vehicle knows of its swarm-mates, as the gate's peer plans.
//!
//! A peer's position is what its autopilot broadcasts, never what its A2A messages claim: the
//! intent says only where it means to go. The plan handed to the gate starts at the last
//! broadcast position and follows the intent from there; its radius is how far the peer could
//! have flown since that position was heard (`max_speed × age`), so a peer that falls silent
//! grows until the gate keeps clear of all of it. A peer whose broadcast track leaves its own
//! intent by more than the tolerance on several reports running, against as many intents, is
//! flagged: from then on its
//! intent is ignored and it is flown around as non-cooperative traffic (straight on at its
//! broadcast velocity).
//!
//! Silence: a member that hears none of its mates for [`PeerBookSettings::silent_after_s`]
//! holds and lands where it is (the runtime's rule), so a mate heard no more for that long is
//! no longer its intent but a region around its last position: as far as it could fly before
//! it noticed, plus its stopping distance. The region grows until then, and stays. An intent
//! not renewed for that long while the autopilot is still heard (the mate's episode ended, its
//! runtime stopped) says nothing about now: the mate is flown around as traffic, and its track
//! is not held against the old intent.
//!
//! Right of way: the lower system id. A mate with the right of way is its position and its
//! intent; one that gives way to us is its position held, with the distance it needs to stop
//! added to its radius — its own gate judges our intent and holds it clear, so two gates never
//! both wait on each other, nor both go. Time is an argument; nothing here reads a clock.

use super::intent::{Intent, IntentState};
use crate::frames::{Enu, Geo, LocalFrame};
use crate::gate::geometry::point_edge_distance;
use crate::gate::{PeerPlan, PlanKnot};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the book judges its peers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerBookSettings {
    /// The fastest a peer can fly, m/s: how fast a silent peer's uncertainty grows.
    pub max_speed_mps: f64,
    /// How far a broadcast position may be from the peer's own intent, m.
    pub conformance_m: f64,
    /// Reports beyond the tolerance in a row, each against a different intent, before the peer
    /// is flagged.
    pub strikes: u32,
    /// How far ahead a non-cooperative peer is extrapolated, s.
    pub extrapolate_s: f64,
    /// How hard a mate that gives way brakes, m/s² (its stopping distance grows its radius).
    pub braking_mps2: f64,
    /// A mate heard of no more for this long has lost the swarm and lands where it is, s.
    pub silent_after_s: f64,
    /// Closer than this to the wanted path of a waiting mate with the right of way, we are
    /// what it waits on, m (its gate will not let it go while we are there).
    pub blocking_m: f64,
}

impl Default for PeerBookSettings {
    fn default() -> Self {
        Self {
            max_speed_mps: 15.0,
            conformance_m: 30.0,
            strikes: 3,
            extrapolate_s: 120.0,
            braking_mps2: 3.0,
            silent_after_s: 3.0,
            blocking_m: 35.0,
        }
    }
}

/// A broadcast position, in our frame, with the time we heard it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fix {
    at_ms: u64,
    position: Enu,
    velocity: Enu,
}

#[derive(Debug, Clone, PartialEq)]
struct HeldIntent {
    seq: u32,
    received_ms: u64,
    state: IntentState,
    knots: Vec<PlanKnot>,
}

#[derive(Debug, Clone, PartialEq, Default)]
struct Peer {
    name: Option<String>,
    fix: Option<Fix>,
    intent: Option<HeldIntent>,
    strikes: u32,
    /// The intent the last strike was against: one intent earns one strike at most.
    struck_seq: Option<u32>,
    flagged: Option<Flag>,
}

/// Why and when a peer's intent stopped being trusted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Flag {
    pub at_ms: u64,
    /// How far its broadcast position was from its intent at the last strike, m.
    pub off_by_m: f64,
}

/// One peer as the record shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerView {
    pub system: u8,
    pub name: String,
    /// Age of the last broadcast position, ms (none heard: `None`).
    pub position_age_ms: Option<u64>,
    /// Age of the last intent, ms.
    pub intent_age_ms: Option<u64>,
    pub flagged: Option<Flag>,
    /// The radius the gate keeps clear of around it now, m.
    pub radius_m: f64,
}

/// What an intent did to the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntentTaken {
    Taken,
    /// Not newer than the one held (a late or repeated message).
    Stale,
    /// The peer is flagged: its intents are not used.
    Ignored,
}

/// The swarm-mates one vehicle knows, by MAVLink system id.
#[derive(Debug, Clone)]
pub struct PeerBook {
    /// Our own system id: mates above it give way to us.
    own: u8,
    frame: LocalFrame,
    settings: PeerBookSettings,
    peers: BTreeMap<u8, Peer>,
    /// Where we are, last told.
    own_position: Option<Enu>,
}

impl PeerBook {
    /// `own`: our system id; `frame`: this vehicle's local frame (peers' positions are mapped
    /// into it).
    pub fn new(own: u8, frame: LocalFrame, settings: PeerBookSettings) -> Self {
        Self {
            own,
            frame,
            settings,
            peers: BTreeMap::new(),
            own_position: None,
        }
    }

    /// Where we are now (our own autopilot's position, our frame): whether we stand in a
    /// waiting mate's way depends on it.
    pub fn set_own_position(&mut self, position: Enu) {
        self.own_position = finite(position).then_some(position);
    }

    /// A peer autopilot's broadcast position and velocity (east-north-up), heard at `now_ms`.
    pub fn on_position(&mut self, system: u8, now_ms: u64, geo: Geo, velocity: Enu) {
        let position = self.frame.to_enu(geo);
        if !(finite(position) && finite(velocity)) {
            return;
        }
        let settings = self.settings;
        let peer = self.peers.entry(system).or_default();
        if peer.fix.is_some_and(|f| f.at_ms > now_ms) {
            return;
        }
        peer.fix = Some(Fix {
            at_ms: now_ms,
            position,
            velocity,
        });
        if peer.flagged.is_some() {
            return;
        }
        // An intent its runtime no longer renews (the episode ended, the runtime stopped) is no
        // claim about now: nothing to hold the autopilot's track to.
        let fresh_ms = (settings.silent_after_s.max(0.0) * 1000.0) as u64;
        let claim = peer
            .intent
            .as_ref()
            .filter(|i| now_ms.saturating_sub(i.received_ms) <= fresh_ms);
        // A waiting mate says where it wants to go, not that it goes: it must be where it waits.
        let expected = claim.and_then(|i| match i.state {
            IntentState::Waiting => i.knots.first().map(|k| k.position),
            _ => at(&i.knots, now_ms),
        });
        let Some(expected) = expected else {
            return;
        };
        let seq = claim.map(|i| i.seq);
        let off_by_m = expected.distance(position);
        if off_by_m > settings.conformance_m {
            // Strikes against different intents only: one stale or glitched intent (an
            // autopilot's position jumping at boot, say) is not a liar.
            if peer.struck_seq == seq {
                return;
            }
            peer.struck_seq = seq;
            peer.strikes += 1;
            if peer.strikes >= settings.strikes {
                peer.flagged = Some(Flag {
                    at_ms: now_ms,
                    off_by_m,
                });
            }
        } else {
            peer.strikes = 0;
            peer.struck_seq = None;
        }
    }

    /// A peer's intent, received at `now_ms`.
    pub fn on_intent(&mut self, system: u8, now_ms: u64, intent: &Intent) -> IntentTaken {
        let frame = self.frame;
        let peer = self.peers.entry(system).or_default();
        peer.name = Some(intent.from.clone());
        if peer.flagged.is_some() {
            return IntentTaken::Ignored;
        }
        if peer
            .intent
            .as_ref()
            .is_some_and(|held| held.seq >= intent.seq)
        {
            return IntentTaken::Stale;
        }
        let knots = intent
            .path
            .iter()
            .map(|p| PlanKnot {
                time_ms: now_ms + u64::from(p.in_ms()),
                position: frame.to_enu(p.geo()),
            })
            .collect();
        peer.intent = Some(HeldIntent {
            seq: intent.seq,
            received_ms: now_ms,
            state: intent.state,
            knots,
        });
        IntentTaken::Taken
    }

    /// The gate's plans for every peer known at `now_ms`.
    pub fn plans(&self, now_ms: u64) -> Vec<PeerPlan> {
        self.peers
            .iter()
            .filter_map(|(system, peer)| self.plan(*system, peer, now_ms))
            .collect()
    }

    /// Every peer as the record shows it at `now_ms`.
    pub fn views(&self, now_ms: u64) -> Vec<PeerView> {
        self.peers
            .iter()
            .map(|(system, peer)| PeerView {
                system: *system,
                name: name(*system, peer),
                position_age_ms: peer.fix.map(|f| now_ms.saturating_sub(f.at_ms)),
                intent_age_ms: peer
                    .intent
                    .as_ref()
                    .map(|i| now_ms.saturating_sub(i.received_ms)),
                flagged: peer.flagged,
                radius_m: self.plan(*system, peer, now_ms).map_or(0.0, |p| p.radius_m),
            })
            .collect()
    }

    fn plan(&self, system: u8, peer: &Peer, now_ms: u64) -> Option<PeerPlan> {
        let settings = self.settings;
        let silent_ms = (settings.silent_after_s.max(0.0) * 1000.0) as u64;
        let grow = |since_ms: u64| {
            let age_ms = now_ms.saturating_sub(since_ms);
            let v = settings.max_speed_mps;
            if age_ms > silent_ms {
                // It has stopped by now: as far as it flew before noticing, and its braking.
                v * silent_ms as f64 / 1000.0 + v * v / (2.0 * settings.braking_mps2.max(0.1))
            } else {
                v * age_ms as f64 / 1000.0
            }
        };
        let silent = peer
            .fix
            .is_some_and(|f| now_ms.saturating_sub(f.at_ms) > silent_ms);
        let held = peer
            .intent
            .as_ref()
            .filter(|_| peer.flagged.is_none() && !silent);
        // An intent not renewed for as long as it takes a mate to be taken for silent no longer
        // says where a mate we still see goes: it is flown around as traffic.
        let intent = held.filter(|i| now_ms.saturating_sub(i.received_ms) <= silent_ms);
        // A cooperative mate that gives way to us: where it is, plus what it needs to stop.
        if let (Some(fix), Some(_), true) = (peer.fix, intent, system > self.own) {
            let speed = fix.velocity.to_vector().norm();
            let stop_m = speed * speed / (2.0 * self.settings.braking_mps2.max(0.1));
            return Some(PeerPlan {
                peer: name(system, peer),
                knots: vec![PlanKnot {
                    time_ms: fix.at_ms,
                    position: fix.position,
                }],
                radius_m: grow(fix.at_ms) + stop_m,
            });
        }
        let (knots, radius_m) = match (peer.fix, intent) {
            (Some(fix), Some(intent)) => {
                let mut knots = vec![PlanKnot {
                    time_ms: fix.at_ms,
                    position: fix.position,
                }];
                if intent.state == IntentState::Waiting
                    && system < self.own
                    && self.blocks(fix.position, &intent.knots)
                {
                    // A waiting mate with the right of way whose wanted path we stand in waits
                    // on us: its gate holds it while we are there (we are its mate that gives
                    // way, held where we are). It stays where it is until we have left its way,
                    // so we are free to leave it — to go on with our own legs, or away.
                } else if intent.state != IntentState::Ground {
                    // A waiting mate may set off at any moment: its whole wanted path is ahead.
                    let first = match intent.state {
                        IntentState::Waiting => 1.min(intent.knots.len()),
                        _ => intent.knots.partition_point(|k| k.time_ms <= fix.at_ms),
                    };
                    knots.extend(retimed(&intent.knots, first, fix));
                }
                (knots, grow(fix.at_ms))
            }
            (Some(fix), None) => {
                let ahead_ms = (self.settings.extrapolate_s.max(0.0) * 1000.0) as u64;
                let ahead = fix.velocity.to_vector() * (ahead_ms as f64 / 1000.0);
                let mut knots = vec![PlanKnot {
                    time_ms: fix.at_ms,
                    position: fix.position,
                }];
                // A silent mate has stopped; only live traffic is carried on along its velocity.
                if ahead_ms > 0 && !silent {
                    knots.push(PlanKnot {
                        time_ms: fix.at_ms + ahead_ms,
                        position: Enu::from_vector(&(fix.position.to_vector() + ahead)),
                    });
                }
                (knots, grow(fix.at_ms))
            }
            (None, _) => match held {
                // Never seen, only told of: its intent, growing from when it was told.
                Some(intent) => (intent.knots.clone(), grow(intent.received_ms)),
                None => return None,
            },
        };
        Some(PeerPlan {
            peer: name(system, peer),
            knots,
            radius_m,
        })
    }
}

impl PeerBook {
    /// Whether we stand within [`PeerBookSettings::blocking_m`] of the path from `from` along
    /// a waiting mate's wanted points.
    fn blocks(&self, from: Enu, wanted: &[PlanKnot]) -> bool {
        let Some(own) = self.own_position else {
            return false;
        };
        let mut a = from;
        let mut closest = own.distance(from);
        for k in wanted.iter().skip(1) {
            closest = closest.min(point_edge_distance(
                own.to_vector(),
                a.to_vector(),
                k.position.to_vector(),
            ));
            a = k.position;
        }
        closest < self.settings.blocking_m
    }
}

/// The intent's points from `first` on (those still ahead of `fix`), timed from where the peer is at the intent's own
/// speeds: a peer late on its timetable (still accelerating, or slowed) is where its broadcast
/// says, and it will reach each point that much later.
fn retimed(knots: &[PlanKnot], first: usize, fix: Fix) -> Vec<PlanKnot> {
    let mut out = Vec::with_capacity(knots.len() - first);
    let (mut at, mut from) = (fix.at_ms, fix.position);
    for i in first..knots.len() {
        let k = knots[i];
        let time_ms = match i.checked_sub(1).map(|j| knots[j]) {
            Some(before) => {
                let span_m = before.position.distance(k.position);
                let span_ms = (k.time_ms - before.time_ms) as f64;
                let speed = span_m / span_ms.max(1.0);
                if speed > 1e-6 {
                    at + (from.distance(k.position) / speed).ceil().max(1.0) as u64
                } else {
                    at + (k.time_ms - before.time_ms)
                }
            }
            None => k.time_ms,
        };
        let time_ms = time_ms.max(at + 1);
        out.push(PlanKnot {
            time_ms,
            position: k.position,
        });
        (at, from) = (time_ms, k.position);
    }
    out
}

fn name(system: u8, peer: &Peer) -> String {
    peer.name
        .clone()
        .unwrap_or_else(|| format!("system-{system}"))
}

/// Where a plan's knots put the peer at `t_ms` (holding before the first and after the last).
fn at(knots: &[PlanKnot], t_ms: u64) -> Option<Enu> {
    let i = knots.partition_point(|k| k.time_ms <= t_ms);
    match (i.checked_sub(1).and_then(|j| knots.get(j)), knots.get(i)) {
        (Some(a), Some(b)) => {
            let f = (t_ms - a.time_ms) as f64 / (b.time_ms - a.time_ms) as f64;
            Some(Enu::from_vector(
                &(a.position.to_vector() * (1.0 - f) + b.position.to_vector() * f),
            ))
        }
        (Some(a), None) => Some(a.position),
        (None, Some(b)) => Some(b.position),
        (None, None) => None,
    }
}

fn finite(p: Enu) -> bool {
    p.x.is_finite() && p.y.is_finite() && p.z.is_finite()
}

#[cfg(test)]
mod tests {
    use super::super::intent::{INTENT_FORMAT, IntentPoint};
    use super::*;

    const HOME: Geo = Geo {
        lat_deg: 47.397_742,
        lon_deg: 8.545_594,
        alt_amsl_m: 488.0,
    };

    fn book() -> (PeerBook, LocalFrame) {
        let frame = LocalFrame::new(HOME);
        // We are system 9: the peer (3) has the right of way.
        (PeerBook::new(9, frame, PeerBookSettings::default()), frame)
    }

    /// A peer flying east at 5 m/s from 100 m north, 30 m up, sending `seq` at `now_ms`.
    fn intent(frame: &LocalFrame, seq: u32, x0: f64) -> Intent {
        Intent {
            v: INTENT_FORMAT,
            from: "uav-3".into(),
            seq,
            state: IntentState::Flying,
            path: vec![
                IntentPoint::new(0, frame.to_geo(Enu::new(x0, 100.0, 30.0))),
                IntentPoint::new(20_000, frame.to_geo(Enu::new(x0 + 100.0, 100.0, 30.0))),
            ],
        }
    }

    fn hear(book: &mut PeerBook, frame: &LocalFrame, t_ms: u64, x: f64) {
        book.on_position(
            3,
            t_ms,
            frame.to_geo(Enu::new(x, 100.0, 30.0)),
            Enu::new(5.0, 0.0, 0.0),
        );
    }

    #[test]
    fn a_cooperative_peer_is_its_position_then_its_intent() {
        let (mut b, f) = book();
        assert_eq!(
            b.on_intent(3, 1_000, &intent(&f, 1, 0.0)),
            IntentTaken::Taken
        );
        hear(&mut b, &f, 2_000, 5.0);
        let plans = b.plans(2_000);
        assert_eq!(plans.len(), 1);
        let p = &plans[0];
        assert_eq!(p.peer, "uav-3");
        assert_eq!(p.radius_m, 0.0);
        assert_eq!(p.knots[0].time_ms, 2_000);
        assert!((p.knots[0].position.x - 5.0).abs() < 0.01);
        assert_eq!(p.knots.last().unwrap().time_ms, 21_000);
        assert!((p.knots.last().unwrap().position.x - 100.0).abs() < 0.05);
        assert!(p.knots.windows(2).all(|w| w[0].time_ms < w[1].time_ms));
        // A late, older intent changes nothing.
        assert_eq!(
            b.on_intent(3, 2_500, &intent(&f, 1, 50.0)),
            IntentTaken::Stale
        );
    }

    #[test]
    fn a_peer_late_on_its_timetable_is_timed_from_where_it_is() {
        let (mut b, f) = book();
        b.on_intent(3, 0, &intent(&f, 1, 0.0));
        // Renewed: the same leg, to x = 100.
        b.on_intent(3, 9_000, &intent(&f, 2, 0.0));
        // 10 s in it should be at x = 50; it is only at x = 20.
        hear(&mut b, &f, 10_000, 20.0);
        let p = &b.plans(10_000)[0];
        let end = p.knots.last().unwrap();
        // 80 m left at the intent's 5 m/s: 16 s from now, not the timetable's 10.
        assert!((end.time_ms as f64 - 26_000.0).abs() < 50.0, "{p:?}");
    }

    #[test]
    fn a_waiting_mate_is_its_wanted_path_and_is_judged_where_it_waits() {
        let (mut b, f) = book();
        let mut waiting = intent(&f, 1, 0.0);
        waiting.state = IntentState::Waiting;
        b.on_intent(3, 0, &waiting);
        // Still where it waits 20 s on: no strike, however far its timetable would have taken it.
        for (seq, t) in [10_000, 15_000, 20_000, 25_000].into_iter().enumerate() {
            waiting.seq = seq as u32 + 2;
            b.on_intent(3, t, &waiting);
            hear(&mut b, &f, t, 0.0);
        }
        assert!(b.views(25_000)[0].flagged.is_none());
        let p = &b.plans(25_000)[0];
        assert_eq!(p.knots.len(), 2, "its wanted path, from where it is: {p:?}");
        assert!((p.knots[1].time_ms as f64 - 45_000.0).abs() < 50.0, "{p:?}");
    }

    #[test]
    fn a_waiting_mate_whose_way_we_stand_in_waits_on_us() {
        // CI's deadlock, as flown: uav-2 (right of way) waits at (128, 72) to fly to (0, 200);
        // we (uav-3) hold at (97, 75), 20 m from its wanted path. Its gate holds it while we
        // are there, so its path is not ahead of us now: it is where it waits, and we may leave.
        let frame = LocalFrame::new(HOME);
        let mut b = PeerBook::new(3, frame, PeerBookSettings::default());
        let waiting = Intent {
            v: INTENT_FORMAT,
            from: "uav-2".into(),
            seq: 1,
            state: IntentState::Waiting,
            path: vec![
                IntentPoint::new(0, frame.to_geo(Enu::new(128.0, 72.0, 40.0))),
                IntentPoint::new(22_600, frame.to_geo(Enu::new(0.0, 200.0, 40.0))),
            ],
        };
        b.on_intent(2, 1_000, &waiting);
        b.on_position(
            2,
            1_000,
            frame.to_geo(Enu::new(128.0, 72.0, 40.0)),
            Enu::default(),
        );
        b.set_own_position(Enu::new(97.0, 75.0, 40.0));
        let p = &b.plans(1_000)[0];
        assert_eq!(p.knots.len(), 1, "held where it waits: {p:?}");
        // Out of its way (60 m off its path): its whole wanted path is ahead of us again.
        b.set_own_position(Enu::new(60.0, 60.0, 40.0));
        let p = &b.plans(1_000)[0];
        assert_eq!(p.knots.len(), 2, "its wanted path: {p:?}");
        // A waiting mate that gives way to us is held anyway; one flying is its intent.
        let mut giving_way = PeerBook::new(1, frame, PeerBookSettings::default());
        giving_way.on_intent(2, 1_000, &waiting);
        giving_way.on_position(
            2,
            1_000,
            frame.to_geo(Enu::new(128.0, 72.0, 40.0)),
            Enu::default(),
        );
        giving_way.set_own_position(Enu::new(500.0, 500.0, 40.0));
        assert_eq!(giving_way.plans(1_000)[0].knots.len(), 1);
    }

    #[test]
    fn a_silent_peer_grows_until_it_must_have_stopped() {
        let (mut b, f) = book();
        b.on_intent(3, 0, &intent(&f, 1, 0.0));
        hear(&mut b, &f, 0, 0.0);
        assert_eq!(b.plans(0)[0].radius_m, 0.0);
        let r2 = b.plans(2_000)[0].radius_m;
        let r10 = b.plans(10_000)[0].radius_m;
        let r40 = b.plans(40_000)[0].radius_m;
        assert!((r2 - 30.0).abs() < 1e-9, "{r2}");
        // Silent beyond 3 s: it has landed where it was — 15 m/s × 3 s, plus 15²/(2·3) m.
        assert!((r10 - 82.5).abs() < 1e-9, "{r10}");
        assert_eq!(r40, r10);
        // Its intent is no longer where it goes: only the region around where it was.
        assert_eq!(b.plans(10_000)[0].knots.len(), 1);
        // Hearing it again shrinks it back.
        hear(&mut b, &f, 40_000, 200.0);
        assert_eq!(b.plans(40_000)[0].radius_m, 0.0);
    }

    #[test]
    fn a_peer_that_leaves_its_intent_is_flagged_and_flown_around_as_traffic() {
        let (mut b, f) = book();
        b.on_intent(3, 0, &intent(&f, 1, 0.0));
        // On its intent (5 m/s east): no strike.
        hear(&mut b, &f, 4_000, 20.0);
        assert!(b.views(4_000)[0].flagged.is_none());
        // Renewed every second, the same timetable: 60 m behind where it says it is, three
        // reports running, each against a new intent.
        b.on_intent(3, 13_500, &intent(&f, 2, 67.5));
        hear(&mut b, &f, 14_000, 10.0);
        b.on_intent(3, 14_500, &intent(&f, 3, 72.5));
        hear(&mut b, &f, 15_000, 15.0);
        hear(&mut b, &f, 15_200, 16.0);
        hear(&mut b, &f, 15_400, 17.0);
        assert!(
            b.views(15_400)[0].flagged.is_none(),
            "two strikes only: one per intent"
        );
        b.on_intent(3, 15_500, &intent(&f, 4, 77.5));
        hear(&mut b, &f, 16_000, 20.0);
        let flag = b.views(16_000)[0].flagged.expect("flagged");
        assert!(flag.off_by_m > 30.0);
        // Its intent is ignored from now on: straight on at its broadcast velocity.
        assert_eq!(
            b.on_intent(3, 16_500, &intent(&f, 5, 20.0)),
            IntentTaken::Ignored
        );
        let p = &b.plans(16_000)[0];
        assert_eq!(p.knots.len(), 2);
        assert!((p.knots[1].position.x - (20.0 + 5.0 * 120.0)).abs() < 0.1);
    }

    #[test]
    fn an_autopilot_jumping_at_boot_against_one_intent_is_no_liar() {
        let (mut b, f) = book();
        // Its first intent from a position its autopilot gave before its home was set (PX4
        // SIH at its default place), then the autopilot's broadcasts 107 m away, many of them.
        let mut ground = intent(&f, 1, 0.0);
        ground.state = IntentState::Ground;
        ground.path.truncate(1);
        b.on_intent(3, 0, &ground);
        for t in (200..3_000).step_by(200) {
            hear(&mut b, &f, t, 100.0);
        }
        assert!(
            b.views(3_000)[0].flagged.is_none(),
            "one intent, one strike"
        );
        // Its next intent is where its autopilot is: cleared.
        b.on_intent(3, 3_100, &intent(&f, 2, 100.0));
        hear(&mut b, &f, 3_200, 100.5);
        assert!(b.views(3_200)[0].flagged.is_none());
    }

    #[test]
    fn a_strike_clears_when_the_peer_is_back_on_its_intent() {
        let (mut b, f) = book();
        b.on_intent(3, 0, &intent(&f, 1, 0.0));
        b.on_intent(3, 9_500, &intent(&f, 2, 47.5));
        hear(&mut b, &f, 10_000, 0.0);
        hear(&mut b, &f, 11_000, 0.0);
        hear(&mut b, &f, 12_000, 60.0);
        hear(&mut b, &f, 13_000, 0.0);
        hear(&mut b, &f, 14_000, 0.0);
        assert!(b.views(14_000)[0].flagged.is_none());
    }

    #[test]
    fn a_mate_whose_runtime_stopped_is_traffic_and_never_called_a_liar() {
        let (mut b, f) = book();
        b.on_intent(3, 0, &intent(&f, 1, 0.0));
        hear(&mut b, &f, 1_000, 5.0);
        // Its episode ended at 1 s: no intent since; its autopilot flies elsewhere (a hand-over
        // landing, a pilot) and goes on broadcasting.
        for t in [10_000, 11_000, 12_000, 13_000] {
            b.on_position(
                3,
                t,
                f.to_geo(Enu::new(5.0, 100.0, 0.0)),
                Enu::new(0.0, 0.0, -1.0),
            );
        }
        assert!(b.views(13_000)[0].flagged.is_none());
        let p = &b.plans(13_000)[0];
        // Traffic: where it is, on along its velocity; not its stale intent eastwards.
        assert_eq!(p.knots.len(), 2, "{p:?}");
        assert!((p.knots[1].position.x - 5.0).abs() < 0.01, "{p:?}");
        assert_eq!(p.radius_m, 0.0);
    }

    #[test]
    fn a_mate_that_gives_way_is_held_where_it_is_with_its_stopping_distance() {
        let frame = LocalFrame::new(HOME);
        // We are system 5: system 3 has the right of way, system 7 gives way to us.
        let mut b = PeerBook::new(5, frame, PeerBookSettings::default());
        for system in [3, 7] {
            b.on_intent(system, 0, &intent(&frame, 1, 0.0));
            b.on_position(
                system,
                0,
                frame.to_geo(Enu::new(0.0, 100.0, 30.0)),
                Enu::new(6.0, 0.0, 0.0),
            );
        }
        let plans = b.plans(0);
        assert_eq!(plans.len(), 2);
        assert!(
            plans[0].knots.len() > 1,
            "the mate with the right of way: its intent"
        );
        assert_eq!(plans[1].knots.len(), 1, "the one giving way: held");
        assert!(
            (plans[1].radius_m - 6.0).abs() < 1e-9,
            "6²/(2·3) = 6 m: {}",
            plans[1].radius_m
        );
    }

    #[test]
    fn a_peer_heard_only_by_position_is_extrapolated_and_one_never_heard_is_absent() {
        let (mut b, f) = book();
        assert!(b.plans(0).is_empty());
        hear(&mut b, &f, 1_000, 0.0);
        let p = &b.plans(1_000)[0];
        assert_eq!(p.peer, "system-3");
        assert_eq!(p.knots[1].time_ms, 121_000);
        // A non-finite position is not taken.
        b.on_position(
            4,
            0,
            Geo {
                lat_deg: f64::NAN,
                ..HOME
            },
            Enu::default(),
        );
        assert_eq!(b.plans(1_000).len(), 1);
    }
}
