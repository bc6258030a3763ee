//! What the agent learns before it decides: what its last turn's actions did (a leg that did
//! not go through, a capture to do again, a sensor that failed) and what the operator said.

use super::words::{self, Heard};
use super::{ScriptedPolicy, Tag, Target};
use alpha3_core::gate::ids;
use alpha3_core::protocol::ToolObservation;
use alpha3_core::protocol::tools::CommandStatus;
use serde_json::Value;

impl ScriptedPolicy {
    /// Reads what the last turn's actions did: a leg that did not go through leaves its
    /// target (and any capture after it) to do again; a capture that did not complete is
    /// repeated, with the next sensor when this one failed.
    pub(super) fn review(&mut self, observations: &[ToolObservation]) {
        let tags = std::mem::take(&mut self.last);
        let mut broken = false;
        // Whether this turn's activation went through (a capture without it fails, and that
        // says nothing about the sensor).
        let mut activated = true;
        for (i, tag) in tags.iter().enumerate() {
            let result = observations.get(i).map(|o| &o.result);
            // No observation, or one without a command outcome, confirms nothing.
            let status = observations.get(i).and_then(ToolObservation::status);
            let completed = status == Some(CommandStatus::Completed);
            let failed = status == Some(CommandStatus::Failed);
            match *tag {
                Tag::Leg { target, .. }
                    if !completed && status != Some(CommandStatus::Accepted) =>
                {
                    let energy = result
                        .and_then(|r| r.get("findings"))
                        .and_then(Value::as_array)
                        .is_some_and(|f| {
                            f.iter().any(|f| {
                                f["id"].as_str().is_some_and(|id| {
                                    id == ids::ENERGY_RESERVE || id == ids::ENERGY_HARD_RESERVE
                                })
                            })
                        });
                    if energy {
                        self.landing = true;
                    } else if self.landing_on_pad {
                        // The pad is not reached before this leg is: no landing yet.
                        self.landing = false;
                        self.landing_on_pad = false;
                    }
                    if !broken && target < self.next {
                        self.next = target;
                    }
                    broken = true;
                }
                Tag::Capture { target } if broken || !completed => {
                    if let Some(t) = self.itinerary.targets.get_mut(target) {
                        t.captured = false;
                    }
                    if failed && activated {
                        self.next_sensor();
                    }
                }
                Tag::Activate if failed => {
                    activated = false;
                    self.next_sensor();
                }
                Tag::Activate if !completed => {
                    activated = false;
                    self.sensor_on = false;
                }
                _ => {}
            }
        }
    }

    /// The sensor in use failed (offline): use the next one that has not failed yet, or
    /// start over when all have (an offline sensor may come back).
    pub(super) fn next_sensor(&mut self) {
        let n = self.itinerary.sensors.len();
        if n == 0 || self.failed.get(self.sensor).copied().unwrap_or(true) {
            return;
        }
        self.failed[self.sensor] = true;
        if self.failed.iter().all(|f| *f) {
            self.failed.iter_mut().for_each(|f| *f = false);
        }
        while self.failed[self.sensor] {
            self.sensor = (self.sensor + 1) % n;
        }
        self.sensor_on = false;
    }

    pub(super) fn read_operator(&mut self, text: &str) {
        match words::hear(text) {
            Some(Heard::Abort) => self.aborted = true,
            Some(Heard::Hold { duration_s }) => self.hold_s = Some(duration_s),
            Some(Heard::AddWaypoint(p)) => {
                let at = self.next.min(self.targets().len());
                self.itinerary.targets.insert(
                    at,
                    Target {
                        point: p,
                        capture: None,
                        captured: false,
                    },
                );
            }
            Some(Heard::Next(p)) => {
                let found = self
                    .targets()
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| same(&t.point, &p))
                    .map(|(j, _)| j)
                    .min_by_key(|j| j.abs_diff(self.next));
                if let Some(j) = found {
                    // Targets the world has not counted yet are flown (and captured) again.
                    for t in &mut self.itinerary.targets[j..self.next.max(j)] {
                        t.captured = false;
                    }
                    self.next = j;
                }
            }
            Some(Heard::NoneLeft) => self.next = self.targets().len(),
            None => {}
        }
    }
}

fn same(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.5)
}
