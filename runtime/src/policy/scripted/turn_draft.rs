//! One turn being put together: its actions, what each is for, and the world time its
//! commands are expected to take.

use super::Tag;
use crate::policy::actions;
use alpha3_core::protocol::Action;

/// One turn being put together, with the world time its commands are expected to take.
#[derive(Debug, Clone)]
pub(super) struct TurnDraft {
    pub actions: Vec<Action>,
    pub tags: Vec<Tag>,
    pub start_s: f64,
    /// Earliest and latest time the commands so far are done.
    pub lo_s: f64,
    pub hi_s: f64,
    pub at: [f64; 3],
    /// Something that takes world time is planned.
    pub busy: bool,
    pub room: usize,
}

impl TurnDraft {
    pub fn push(&mut self, action: Action, tag: Tag) -> bool {
        if self.actions.len() >= self.room {
            return false;
        }
        self.actions.push(action);
        self.tags.push(tag);
        true
    }

    /// A hop to `spot` (a refuge) taking `dlo`..`dhi` seconds; false when out of actions.
    pub fn hop(&mut self, spot: [f64; 3], dlo: f64, dhi: f64) -> bool {
        if !self.push(set_waypoint(spot), Tag::Other) {
            return false;
        }
        self.lo_s += dlo;
        self.hi_s += dhi;
        self.at = spot;
        self.busy = true;
        true
    }

    pub fn wait(&mut self, seconds: f64) -> bool {
        let d = (seconds.max(0.0) * 10.0).ceil() / 10.0;
        if !self.push(actions::hold(Some(d)), Tag::Other) {
            return false;
        }
        self.lo_s += d;
        self.hi_s += d;
        self.busy = true;
        true
    }
}

/// A `set_waypoint` action to `p`, at the cruise speed.
pub(super) fn set_waypoint(p: [f64; 3]) -> Action {
    actions::set_waypoint(p, None)
}

/// Whether `a` is off the point `b` by more than the waypoint tolerance.
pub(super) fn far(a: [f64; 3], b: [f64; 3]) -> bool {
    (a[0] - b[0]).hypot(a[1] - b[1]) > 4.0 || (a[2] - b[2]).abs() > 3.0
}
