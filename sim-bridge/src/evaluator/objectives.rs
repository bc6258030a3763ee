//! The mission's objectives as the world checks them: waypoints reached in order within
//! tolerance, payload tasks done near their waypoints, and the operator's changes (a new
//! waypoint, a hold, an abort).

use crate::payload::Capture;
use crate::scenario::MissionType;
use crate::vec3::{self, V3};
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::scenario::Scenario;

/// A waypoint is reached within this horizontal distance…
pub const WAYPOINT_TOLERANCE_H_M: f64 = 6.0;
/// …and this vertical distance (GNSS error included).
pub const WAYPOINT_TOLERANCE_V_M: f64 = 4.0;
/// A capture counts for a task within this horizontal distance of its waypoint.
pub const CAPTURE_RADIUS_M: f64 = 25.0;
/// Below this ground speed the vehicle counts as holding.
pub const HOLD_SPEED_MPS: f64 = 1.0;

/// A capture the mission needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PayloadTask {
    /// Index into the waypoints.
    pub waypoint: usize,
    pub kind: CaptureKind,
    pub done_at_s: Option<f64>,
}

/// An operator's hold order: stay still for `duration_s` after `issued_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoldOrder {
    pub issued_s: f64,
    pub duration_s: f64,
    still_since_s: Option<f64>,
    pub done_at_s: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Objectives {
    pub waypoints: Vec<V3>,
    /// When each waypoint was reached.
    pub reached_at_s: Vec<Option<f64>>,
    pub tasks: Vec<PayloadTask>,
    pub hold: Option<HoldOrder>,
    pub aborted_at_s: Option<f64>,
    pub time_budget_s: f64,
}

/// The captures each mission type needs: (waypoint index, kind).
fn tasks_for(kind: &str, n: usize) -> Vec<(usize, CaptureKind)> {
    if n == 0 {
        return Vec::new();
    }
    let (mid, last) = (n / 2, n - 1);
    match MissionType::from_name(kind) {
        Some(MissionType::Inspection) => {
            vec![(mid, CaptureKind::Image), (last, CaptureKind::Image)]
        }
        Some(MissionType::SearchAndRescue) => vec![(mid, CaptureKind::Image)],
        Some(MissionType::Mapping) => vec![(0, CaptureKind::Scan), (last, CaptureKind::Scan)],
        Some(MissionType::Surveillance) => vec![(mid, CaptureKind::Clip)],
        Some(MissionType::Delivery) | None => Vec::new(),
    }
}

impl Objectives {
    pub fn new(s: &Scenario) -> Self {
        let waypoints = s.mission.waypoints.clone();
        let mut tasks: Vec<PayloadTask> = tasks_for(&s.mission.kind, waypoints.len())
            .into_iter()
            .map(|(waypoint, kind)| PayloadTask {
                waypoint,
                kind,
                done_at_s: None,
            })
            .collect();
        tasks.dedup_by(|a, b| a.waypoint == b.waypoint && a.kind == b.kind);
        Self {
            reached_at_s: vec![None; waypoints.len()],
            waypoints,
            tasks,
            hold: None,
            aborted_at_s: None,
            time_budget_s: s.mission.time_budget_s,
        }
    }

    /// Index of the next waypoint to reach, if any.
    pub fn next_waypoint(&self) -> Option<usize> {
        self.reached_at_s.iter().position(Option::is_none)
    }

    pub fn observe(&mut self, t_s: f64, position: V3, ground_speed_mps: f64) {
        if let Some(i) = self.next_waypoint() {
            let w = self.waypoints[i];
            if vec3::hypot(position[0] - w[0], position[1] - w[1]) <= WAYPOINT_TOLERANCE_H_M
                && (position[2] - w[2]).abs() <= WAYPOINT_TOLERANCE_V_M
            {
                self.reached_at_s[i] = Some(t_s);
            }
        }
        if let Some(h) = &mut self.hold
            && h.done_at_s.is_none()
        {
            if ground_speed_mps < HOLD_SPEED_MPS {
                let since = *h.still_since_s.get_or_insert(t_s);
                if t_s - since >= h.duration_s {
                    h.done_at_s = Some(t_s);
                }
            } else {
                h.still_since_s = None;
            }
        }
    }

    /// Credits `capture` to the first open task it fits.
    pub fn on_capture(&mut self, c: &Capture) {
        let waypoints = &self.waypoints;
        if let Some(task) = self.tasks.iter_mut().find(|t| {
            let w = waypoints[t.waypoint];
            t.done_at_s.is_none()
                && t.kind == c.kind
                && vec3::hypot(c.position[0] - w[0], c.position[1] - w[1]) <= CAPTURE_RADIUS_M
        }) {
            task.done_at_s = Some(c.t_s);
        }
    }

    /// The operator adds `p` as the next waypoint to visit.
    pub fn insert_waypoint(&mut self, p: V3) {
        let at = self.next_waypoint().unwrap_or(self.waypoints.len());
        self.waypoints.insert(at, p);
        self.reached_at_s.insert(at, None);
        for t in &mut self.tasks {
            if t.waypoint >= at {
                t.waypoint += 1;
            }
        }
    }

    pub fn order_hold(&mut self, t_s: f64, duration_s: f64) {
        self.hold = Some(HoldOrder {
            issued_s: t_s,
            duration_s,
            still_since_s: None,
            done_at_s: None,
        });
    }

    pub fn abort(&mut self, t_s: f64) {
        self.aborted_at_s.get_or_insert(t_s);
    }

    /// When every objective was met (all waypoints, tasks and any hold), or `None`.
    pub fn completed_at_s(&self) -> Option<f64> {
        let mut last = 0.0f64;
        for t in self
            .reached_at_s
            .iter()
            .copied()
            .chain(self.tasks.iter().map(|t| t.done_at_s))
            .chain(self.hold.iter().map(|h| h.done_at_s))
        {
            last = last.max(t?);
        }
        Some(last)
    }

    pub fn waypoints_reached(&self) -> usize {
        self.reached_at_s.iter().filter(|r| r.is_some()).count()
    }

    pub fn tasks_done(&self) -> usize {
        self.tasks.iter().filter(|t| t.done_at_s.is_some()).count()
    }
}
