//! Places aside: a way over a point off the direct leg when something stays in its way, a
//! safe spot to wait where no traffic or moving zone comes, and a safe spot to hold through an
//! announced link outage (and the start of the watchdog's return during it).

use super::check::PathCheck;
use super::leg::Step;
use super::timing::{OUTAGE_TAIL_S, Outage, bounds};
use super::turn_draft::{TurnDraft, set_waypoint};
use super::{ScriptedPolicy, Tag, route};
use alpha3_core::gate::ids;
use alpha3_core::snapshot::VehicleSnapshot;

impl ScriptedPolicy {
    /// A way to `goal` over one point aside (a refuge around the start: another height, or up
    /// to 120 m off) when the direct leg is blocked at every wait: the leg there is planned
    /// into `draft` and the leg on towards `goal` checked as usual. Returns where that second
    /// leg ends (the caller plans it as its own), or `None` when no point aside helps.
    pub(super) fn detour(
        &self,
        draft: &mut TurnDraft,
        s: &VehicleSnapshot,
        goal: [f64; 3],
        horizon: f64,
        target: usize,
    ) -> Option<[f64; 3]> {
        self.check.as_ref()?;
        route::refuges(draft.at, self.itinerary.band)
            .into_iter()
            .find_map(|via| {
                let mut trial = draft.clone();
                let Step::Go(reached) = self.leg(&mut trial, s, via, horizon) else {
                    return None;
                };
                if reached != via || !trial.push(set_waypoint(via), Tag::Leg { target }) {
                    return None;
                }
                match self.leg(&mut trial, s, goal, horizon) {
                    Step::Go(to) => Some((trial, to)),
                    _ => None,
                }
            })
            .map(|(trial, to)| {
                *draft = trial;
                to
            })
    }

    /// Waits `seconds` where no traffic or moving zone comes: here when it is clear, else at
    /// the nearest spot around (another height in the band, or up to 120 m aside) that is.
    pub(super) fn safe_wait(&self, draft: &mut TurnDraft, s: &VehicleSnapshot, seconds: f64) {
        if let Some(c) = &self.check {
            let here = draft.at;
            if !c.hold_is_clear(s, here, draft.lo_s, draft.hi_s + seconds) {
                let pace = self.itinerary.pace;
                let refuge = route::refuges(here, self.itinerary.band)
                    .into_iter()
                    .find_map(|spot| {
                        let (dlo, dhi) = bounds(pace.leg_s(here, spot));
                        let clear = c.leg(s, here, spot, draft.lo_s).is_empty()
                            && c.leg(s, here, spot, draft.hi_s).is_empty()
                            && c.hold_is_clear(
                                s,
                                spot,
                                draft.lo_s + dlo,
                                draft.hi_s + dhi + seconds,
                            );
                        clear.then_some((spot, dlo, dhi))
                    });
                if let Some((spot, dlo, dhi)) = refuge {
                    draft.hop(spot, dlo, dhi);
                }
            }
        }
        draft.wait(seconds);
    }

    /// Holds through outage `o` (to its end and a little after) where that is safe: here, or
    /// at a spot nearby reached before the outage begins. Safe means no traffic or moving zone
    /// comes near the hold, and — when the outage outlasts the watchdog's first step, so it
    /// will start a return home before the link is back — the first stretch of that return is
    /// clear too.
    pub(super) fn outage_wait(
        &self,
        draft: &mut TurnDraft,
        s: &VehicleSnapshot,
        o: Outage,
    ) -> bool {
        let until = o.end_s + OUTAGE_TAIL_S;
        if let Some(c) = &self.check {
            let pace = self.itinerary.pace;
            let safe = |spot: [f64; 3], from_s: f64| self.outage_safe(c, s, spot, from_s, o);
            let here = draft.at;
            if !safe(here, draft.lo_s) {
                let refuge = route::refuges(here, self.itinerary.band)
                    .into_iter()
                    .find_map(|spot| {
                        let nominal = pace.leg_s(here, spot);
                        let (dlo, dhi) = bounds(nominal);
                        // A short hop first thing in the turn: its time is well known.
                        let done_by = draft.hi_s + 1.2 * nominal + 2.0;
                        let clear = done_by < o.start_s - 1.0
                            && c.leg(s, here, spot, draft.lo_s).is_empty()
                            && c.leg(s, here, spot, draft.hi_s).is_empty()
                            && safe(spot, draft.lo_s + dlo);
                        clear.then_some((spot, dlo, dhi))
                    });
                if let Some((spot, dlo, dhi)) = refuge {
                    draft.hop(spot, dlo, dhi);
                }
            }
        }
        draft.wait(until - draft.lo_s)
    }

    /// Whether holding at `spot` from `from_s` through outage `o` is safe (see
    /// [`Self::outage_wait`]).
    pub(super) fn outage_safe(
        &self,
        c: &PathCheck,
        s: &VehicleSnapshot,
        spot: [f64; 3],
        from_s: f64,
        o: Outage,
    ) -> bool {
        let until = o.end_s + OUTAGE_TAIL_S;
        if !c.hold_is_clear(s, spot, from_s, until) {
            return false;
        }
        let drift_from = o.start_s + self.allowance.watchdog_step_s;
        if drift_from >= until {
            return true;
        }
        if !c.return_ok(s, spot, drift_from) {
            return false;
        }
        let home = self.itinerary.sites[0];
        let (lo, hi) = self.itinerary.band;
        let (dx, dy) = (home[0] - spot[0], home[1] - spot[1]);
        let d = dx.hypot(dy);
        let reach = (until - drift_from) * self.itinerary.pace.cruise_mps() + 10.0;
        let f = if d > 1.0 { (reach / d).min(1.0) } else { 0.0 };
        let z = spot[2].clamp((lo + 10.0).min(hi), (hi - 10.0).max(lo));
        let drift = [spot[0] + f * dx, spot[1] + f * dy, z];
        c.leg(s, spot, drift, drift_from)
            .iter()
            .all(|id| ids::kind(id).obstacle.is_none())
    }
}
