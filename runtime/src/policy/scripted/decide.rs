//! What a turn does, in order: an ordered hold, a take-off, then landing (aborted, out of
//! energy, the last turn with the mission unfinished, or the mission's last waypoint on the
//! ground: its pad) or flying on; and the intent it reports.

use super::fly::Flown;
use super::itinerary::ENERGY_MARGIN_PCT;
use super::timing::bounds;
use super::turn_draft::{TurnDraft, far, set_waypoint};
use super::{ScriptedPolicy, Tag, actions, route};
use alpha3_core::snapshot::VehicleSnapshot;

/// Hold this much longer than the operator orders, seconds (the order counts from stillness).
const HOLD_EXTRA_S: f64 = 2.0;

impl ScriptedPolicy {
    /// Puts this turn's flying into `draft` and returns its intent.
    pub(super) fn decide(&mut self, draft: &mut TurnDraft, s: &VehicleSnapshot) -> String {
        let mut intent = String::new();
        if let Some(d) = self.hold_s.take() {
            // An ordered hold comes first: it counts from when the vehicle is still.
            draft.wait(d + HOLD_EXTRA_S);
            intent = "hold_as_ordered".into();
        }
        let airborne = s.is_airborne();
        let done = self.next >= self.targets().len() && self.revisit().is_none();
        if !airborne {
            if self.aborted || self.landing || done {
                return if intent.is_empty() {
                    "report_landed".into()
                } else {
                    intent
                };
            }
            let z = self.targets()[self.next.min(self.targets().len() - 1)].point[2];
            draft.push(actions::takeoff(z), Tag::Other);
            let (lo, hi) = bounds(
                self.itinerary
                    .pace
                    .leg_s(draft.at, [draft.at[0], draft.at[1], z]),
            );
            draft.lo_s += lo;
            draft.hi_s += hi;
            draft.at[2] = z;
            draft.busy = true;
        }
        let reserve = self.itinerary.reserve_pct + ENERGY_MARGIN_PCT;
        let short = s.battery.remaining_pct - self.itinerary.to_site_pct(draft.at) < reserve;
        if self.aborted || self.landing || short {
            return self.land(draft, s);
        }
        let first = self.next;
        if self.turns >= self.allowance.agent_turns {
            // The last turn: finish the mission in it, or put the vehicle down at a site rather
            // than leave it in the air when the episode ends.
            let mut trial = self.clone();
            let mut tried = draft.clone();
            trial.fly(&mut tried, s);
            let n = trial.targets().len();
            let finished = trial.next >= n
                && trial.revisit().is_none()
                && (n == 0 || !far(tried.at, trial.targets()[n - 1].point));
            if !finished {
                return self.land(draft, s);
            }
        }
        let flown = self.fly(draft, s);
        let here = [s.position.x, s.position.y, s.position.z];
        let over_pad = self.approach().map(|k| self.targets()[k].point);
        let flying_there =
            matches!(flown, Flown::Legs(_)) && over_pad.is_some_and(|o| far(here, o));
        if self.pad().is_some() && !flying_there {
            // The mission's last waypoint is on the ground: land on it now — from the waypoint
            // over it. A turn that flies there lands the turn after, from where it got to: a
            // leg the watchdog cuts short (a mate's right of way) is reported accepted, and a
            // landing after it in the same turn would start from wherever it stopped.
            self.landing_on_pad = true;
            return self.land(draft, s);
        }
        if draft.lo_s - draft.start_s < self.allowance.min_turn_s {
            // A turn always lets some world time pass, so nothing waits on a frozen clock.
            self.safe_wait(draft, s, self.allowance.min_turn_s);
        }
        match flown {
            Flown::Legs(last) if done => format!("return_to_mission_end_{last}"),
            Flown::Legs(last) => format!("fly_waypoints_{first}_to_{last}"),
            Flown::Nothing if !intent.is_empty() => intent,
            Flown::Nothing if done => "hold_at_mission_end".into(),
            Flown::Nothing => "wait_for_traffic_or_link".into(),
            Flown::EnergyShort => self.land(draft, s),
        }
    }

    /// The mission's pad, once every waypoint before it is flown: its last waypoint, when that
    /// is on the ground.
    pub(super) fn pad(&self) -> Option<[f64; 2]> {
        let n = self.targets().len();
        let last = n.checked_sub(1)?;
        (self.next >= n && self.revisit().is_none() && self.itinerary.lands_at(last)).then(|| {
            let p = self.targets()[last].point;
            [p[0], p[1]]
        })
    }

    /// The mission's waypoint over its pad, if the one before the pad is (within the waypoint
    /// tolerance across, and in the air): the height the landing is flown from.
    pub(super) fn approach(&self) -> Option<usize> {
        let n = self.targets().len();
        let k = n.checked_sub(2)?;
        let (over, pad) = (self.targets()[k].point, self.targets()[n - 1].point);
        let across = (over[0] - pad[0]).hypot(over[1] - pad[1]);
        (self.itinerary.lands_at(n - 1) && !self.itinerary.lands_at(k) && across <= 4.0)
            .then_some(k)
    }

    /// The first target before `next` whose capture is still to do.
    pub(super) fn revisit(&self) -> Option<usize> {
        self.targets()[..self.next.min(self.targets().len())]
            .iter()
            .position(|t| t.capture.is_some() && !t.captured)
    }

    /// Flies to the nearest authorised site (around zones) and lands there.
    pub(super) fn land(&mut self, draft: &mut TurnDraft, s: &VehicleSnapshot) -> String {
        self.landing = true;
        let intent = if self.aborted {
            "abort_and_land"
        } else {
            "land_at_site"
        };
        if !s.is_airborne() {
            return intent.into();
        }
        // The mission's own pad once it is flown to its end, else the nearest site.
        let pad = self.pad().filter(|_| !self.aborted);
        let site = pad.unwrap_or_else(|| self.itinerary.nearest_site(draft.at[0], draft.at[1]));
        if pad.is_some()
            && !self.over_pad
            && let Some(k) = self.approach()
            && far(draft.at, self.targets()[k].point)
        {
            // Off the waypoint over the pad (a mate's right of way or the watchdog moved the
            // vehicle aside or down on its way there): that waypoint is the mission's too, so
            // this turn flies back to it, and the landing follows from there next turn. A
            // refused leg takes the landing back (`review`).
            let goal = self.targets()[k].point;
            let path = match &self.check {
                Some(c) => route::around(c, &self.zones, s, draft.at, goal, draft.hi_s)
                    .unwrap_or_else(|| vec![goal]),
                None => vec![goal],
            };
            for p in path {
                draft.push(set_waypoint(p), Tag::Leg { target: k });
            }
            self.landing_on_pad = true;
            return format!("fly_waypoints_{k}_to_{k}");
        }
        self.over_pad = pad.is_some();
        let above = [site[0], site[1], draft.at[2]];
        let far = (above[0] - draft.at[0]).hypot(above[1] - draft.at[1]) > 5.0;
        if far {
            let path = match &self.check {
                Some(c) => route::around(c, &self.zones, s, draft.at, above, draft.hi_s)
                    .unwrap_or_else(|| vec![above]),
                None => vec![above],
            };
            for p in path {
                draft.push(set_waypoint(p), Tag::Other);
            }
        }
        // The landing is the one action the budget always keeps room for.
        draft.room += 1;
        draft.push(actions::land_at(site), Tag::Other);
        intent.into()
    }
}
