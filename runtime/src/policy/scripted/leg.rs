//! Whether one leg fits into the turn, after which wait and how far: clear of traffic and
//! moving zones at the time it is flown, within the turn's world time, short of an announced
//! outage (or held through it), and within the battery.

use super::itinerary::ENERGY_MARGIN_PCT;
use super::timing::{OUTAGE_LEAD_S, OUTAGE_TAIL_S, Outage, bounds, outage_between};
use super::turn_draft::{TurnDraft, far};
use super::{ScriptedPolicy, Tag, actions};
use alpha3_core::gate::ids;
use alpha3_core::snapshot::VehicleSnapshot;

/// Waits before a leg to try when traffic or a moving zone is in its way, seconds.
const WAITS_S: [f64; 9] = [0.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0];
/// An outage closer than this (after the lead) is held through rather than flown towards, s.
const MIN_LEG_S: f64 = 15.0;
/// Arrive this long before an outage when the way offers no safe place to sit it out, so a
/// place aside can still be reached, seconds.
const REFUGE_LEAD_S: f64 = 30.0;
/// A partial leg shorter than this is not worth a command, metres.
const MIN_PART_M: f64 = 20.0;

/// How planning a leg went.
pub(super) enum Step {
    /// Fly to this point (the leg's end, or part of the way).
    Go([f64; 3]),
    Stop,
    /// Traffic or a moving zone is in the way at every wait this turn allows.
    Blocked,
    Skip,
    EnergyShort,
}

impl ScriptedPolicy {
    /// Whether the leg to `to` goes into this turn, after which wait, and how far: a leg that
    /// would run past the turn's time or into an announced outage is flown part of the way.
    /// An outage about to begin is held through when nothing else is planned yet (so no
    /// command falls due while the link is down); otherwise the turn ends before it.
    pub(super) fn leg(
        &self,
        draft: &mut TurnDraft,
        s: &VehicleSnapshot,
        to: [f64; 3],
        horizon: f64,
    ) -> Step {
        let pace = self.itinerary.pace;
        let hi_s = |a: [f64; 3], b: [f64; 3]| bounds(pace.leg_s(a, b)).1;
        if let Some(c) = &self.check {
            let found = c.leg(s, draft.at, to, draft.hi_s);
            if found.iter().any(|id| ids::kind(id).detour_helps()) {
                return Step::Skip;
            }
            if found
                .iter()
                .any(|id| *id == ids::ENERGY_RESERVE || *id == ids::ENERGY_HARD_RESERVE)
            {
                return Step::EnergyShort;
            }
        }
        let mut outage_held = false;
        loop {
            let mut limit = horizon;
            let mut before = None;
            let full_end = draft.hi_s + hi_s(draft.at, to) + WAITS_S[WAITS_S.len() - 1];
            if let Some(o) = outage_between(&self.itinerary.outages, draft.lo_s, full_end) {
                let room = o.start_s - OUTAGE_LEAD_S - draft.hi_s;
                // Sitting out an outage where traffic will pass needs time to find a better
                // place first.
                let unsafe_here = room < REFUGE_LEAD_S
                    && self
                        .check
                        .as_ref()
                        .is_some_and(|c| !self.outage_safe(c, s, draft.at, draft.lo_s, o));
                if room < MIN_LEG_S || unsafe_here {
                    let can_hold = !draft.busy && !outage_held && draft.hi_s < o.start_s - 1.0;
                    let until = o.end_s + OUTAGE_TAIL_S;
                    if !can_hold
                        || until - draft.start_s > self.allowance.turn_horizon_s
                        || !self.outage_wait(draft, s, o)
                    {
                        return Step::Stop;
                    }
                    outage_held = true;
                    if o.end_s - o.start_s > self.allowance.watchdog_step_s - 1.0 {
                        // The watchdog has started a return home by now: stop it at once, and
                        // plan the rest from wherever it left the vehicle.
                        draft.push(actions::hold(None), Tag::Other);
                        return Step::Stop;
                    }
                    continue;
                }
                limit = limit.min(o.start_s - OUTAGE_LEAD_S);
                before = Some(o);
            }
            let Some((wait, end)) = self.fit(draft, s, to, limit, before) else {
                if !draft.busy {
                    // Nothing clears within the turn: wait where it is safe, then look again.
                    self.safe_wait(draft, s, 20.0);
                }
                return Step::Blocked;
            };
            let (mut dlo, dhi) = bounds(pace.leg_s(draft.at, end));
            if !far(draft.at, end) {
                // Already there: the loop lets no time pass for it.
                dlo = 0.0;
            }
            let battery_after = s.battery.remaining_pct
                - self
                    .itinerary
                    .flight_pct(draft.hi_s + wait + dhi - draft.start_s);
            if battery_after - self.itinerary.to_site_pct(end)
                < self.itinerary.reserve_pct + ENERGY_MARGIN_PCT
            {
                return Step::EnergyShort;
            }
            if wait > 0.0 && !draft.wait(wait) {
                return Step::Stop;
            }
            draft.lo_s += dlo;
            draft.hi_s += dhi;
            draft.at = end;
            draft.busy = true;
            return Step::Go(end);
        }
    }

    /// The shortest wait after which the leg towards `to` is clear of traffic and moving zones,
    /// and where it ends: at `to`, or as far along as fits before `limit_s`. When it is the
    /// last leg before outage `before`, it stops short where holding through the outage is
    /// safe, if that is not at its end.
    pub(super) fn fit(
        &self,
        draft: &TurnDraft,
        s: &VehicleSnapshot,
        to: [f64; 3],
        limit_s: f64,
        before: Option<Outage>,
    ) -> Option<(f64, [f64; 3])> {
        let pace = self.itinerary.pace;
        let from = draft.at;
        let hi_s = |b: [f64; 3]| bounds(pace.leg_s(from, b)).1;
        let along = |f: f64| {
            [
                from[0] + f * (to[0] - from[0]),
                from[1] + f * (to[1] - from[1]),
                from[2] + f * (to[2] - from[2]),
            ]
        };
        let dist = (to[0] - from[0])
            .hypot(to[1] - from[1])
            .hypot(to[2] - from[2]);
        WAITS_S.iter().copied().find_map(|w| {
            let room = limit_s - draft.hi_s - w;
            let end = if hi_s(to) <= room {
                to
            } else {
                // The farthest point along the leg that is reached in time.
                let (mut lo, mut hi) = (0.0, 1.0);
                for _ in 0..24 {
                    let mid = 0.5 * (lo + hi);
                    if hi_s(along(mid)) <= room {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                if lo * dist < MIN_PART_M {
                    return None;
                }
                along(lo)
            };
            let Some(c) = &self.check else {
                return Some((w, end));
            };
            let clear_at = |t: f64| {
                !c.leg(s, from, end, t)
                    .iter()
                    .any(|id| ids::kind(id).waiting_helps())
            };
            let clear = clear_at(draft.lo_s + w)
                && clear_at(draft.hi_s + w)
                && (w == 0.0 || c.hold_is_clear(s, from, draft.lo_s, draft.hi_s + w));
            if !clear {
                return None;
            }
            let Some(o) = before else {
                return Some((w, end));
            };
            let nominal_end = |e: [f64; 3]| draft.lo_s + w + pace.leg_s(from, e);
            let holds_there = |e: [f64; 3]| {
                nominal_end(e) + MIN_LEG_S > o.start_s - OUTAGE_LEAD_S
                    && !self.outage_safe(c, s, e, nominal_end(e), o)
            };
            if !holds_there(end) {
                return Some((w, end));
            }
            // Stop short where the outage can be sat out safely, if such a place is on the way.
            let reach = reach_of(&end, &from, &to);
            let shorter = [0.75, 0.5, 0.25].iter().find_map(|k| {
                let e = along(k * reach);
                (k * reach * dist >= MIN_PART_M && !holds_there(e)).then_some(e)
            });
            // None on the way: stop early enough to find a safe place off the way.
            let early = || {
                let (mut lo, mut hi) = (0.0, reach);
                for _ in 0..24 {
                    let mid = 0.5 * (lo + hi);
                    if draft.hi_s + w + hi_s(along(mid)) <= o.start_s - REFUGE_LEAD_S {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (lo * dist >= MIN_PART_M).then(|| along(lo))
            };
            Some((w, shorter.or_else(early).unwrap_or(end)))
        })
    }
}

/// How far along `from` → `to` the point `end` lies (0..1).
fn reach_of(end: &[f64; 3], from: &[f64; 3], to: &[f64; 3]) -> f64 {
    let d = |a: &[f64; 3], b: &[f64; 3]| (b[0] - a[0]).hypot(b[1] - a[1]).hypot(b[2] - a[2]);
    let total = d(from, to);
    if total > 0.0 {
        d(from, end) / total
    } else {
        1.0
    }
}
