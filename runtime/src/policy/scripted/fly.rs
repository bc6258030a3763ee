//! The legs of a turn: to the targets in order (revisits first), around static zones, over a
//! point aside when something stays in the way, with the captures the mission needs.

use super::leg::Step;
use super::turn_draft::{TurnDraft, far, set_waypoint};
use super::{ScriptedPolicy, Tag, actions, route};
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::snapshot::VehicleSnapshot;

/// How long to wait for a hard link to recover before sensing, seconds.
const LINK_WAIT_S: f64 = 15.0;

/// What a turn flies.
pub(super) enum Flown {
    /// Legs up to this target.
    Legs(usize),
    Nothing,
    EnergyShort,
}

impl ScriptedPolicy {
    /// Plans legs to the targets in order (revisits first) while the turn's time, the action
    /// budget and the announced outages allow.
    pub(super) fn fly(&mut self, draft: &mut TurnDraft, s: &VehicleSnapshot) -> Flown {
        let horizon = draft.start_s + self.allowance.turn_horizon_s;
        let mut reached: Option<usize> = None;
        // The way back to the mission's end is tried once per turn: a gate that will not take
        // it now must not keep this loop asking.
        let mut end_tried = false;
        'targets: loop {
            let n = self.targets().len();
            let (k, forward) = match self.revisit() {
                Some(k) => (k, false),
                None if self.next < n => (self.next, true),
                // Everything done elsewhere (a revisit): end the mission where it ends.
                None if n > 0 && !end_tried && far(draft.at, self.targets()[n - 1].point) => {
                    end_tried = true;
                    (n - 1, false)
                }
                None => break,
            };
            if self.itinerary.lands_at(k) {
                // A waypoint on the ground is a landing on it (the mission's pad): the turn
                // ends with that landing (`decide`), flown from above it.
                if forward {
                    self.next += 1;
                }
                break;
            }
            let goal = self.targets()[k].point;
            let path = match &self.check {
                Some(c) => route::around(c, &self.zones, s, draft.at, goal, draft.hi_s)
                    .unwrap_or_else(|| vec![goal]),
                None => vec![goal],
            };
            for p in &path {
                let before = draft.clone();
                let to = match self.leg(draft, s, *p, horizon) {
                    Step::Go(to) => to,
                    Step::Stop => break 'targets,
                    Step::Blocked => {
                        // Around whatever stays in the way (a peer parked on it, say): over a
                        // point aside, if that is clear; else wait as planned.
                        let mut around = before;
                        match self.detour(&mut around, s, *p, horizon, k) {
                            Some(to) => {
                                *draft = around;
                                to
                            }
                            None => break 'targets,
                        }
                    }
                    Step::Skip => {
                        // The gate will never take this target (inside a zone, outside the
                        // fence): leave it rather than insist.
                        if forward {
                            self.next += 1;
                        } else if let Some(t) = self.itinerary.targets.get_mut(k) {
                            t.captured = true;
                        }
                        continue 'targets;
                    }
                    Step::EnergyShort => return Flown::EnergyShort,
                };
                let pushed = draft.push(set_waypoint(to), Tag::Leg { target: k });
                if !pushed || to != *p {
                    // Out of actions, or part of the way: the next turn goes on from there.
                    if pushed {
                        reached = reached.or(Some(k));
                    }
                    break 'targets;
                }
            }
            if forward {
                self.next += 1;
            }
            reached = Some(k);
            if let Some(kind) = self.targets()[k].capture
                && !self.targets()[k].captured
                && !self.capture(draft, k, kind)
            {
                break;
            }
        }
        reached.map_or(Flown::Nothing, Flown::Legs)
    }

    /// Activates the sensor when needed and captures at target `k`.
    pub(super) fn capture(&mut self, draft: &mut TurnDraft, k: usize, kind: CaptureKind) -> bool {
        let Some(sensor) = self.itinerary.sensors.get(self.sensor).cloned() else {
            return true;
        };
        if !self.sensor_on {
            if !draft.push(actions::activate_sensor(&sensor), Tag::Activate) {
                return false;
            }
            self.sensor_on = true;
        }
        if self.link_hard && draft.lo_s - draft.start_s < self.allowance.min_turn_s {
            // Sensing is deferred on a hard link: give it time to recover first.
            draft.wait(LINK_WAIT_S);
        }
        let pushed = draft.push(actions::capture(&sensor, kind), Tag::Capture { target: k });
        if pushed {
            self.itinerary.targets[k].captured = true;
        }
        pushed
    }
}
