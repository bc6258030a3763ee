//! The operator — the `user` speaker: a scripted, seeded, versioned person who briefs the
//! mission, approves requests, answers questions from the scenario's facts, and makes one
//! mid-mission change (a new waypoint, a hold, or an abort) on a turn drawn from the seed.
//! Bump [`OPERATOR_VERSION`] whenever a line or a rule changes; scores record it.

use crate::geometry::{area_contains, horizontal_margin};
use crate::rng::SimRng;
use crate::vec3::{self, V3};
use alpha3_core::protocol::{AgentTurn, num};
use alpha3_core::scenario::Scenario;
use serde::Serialize;

/// Version of the scripted operator.
pub const OPERATOR_VERSION: &str = "operator-v1";

/// A change the operator orders.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "directive", rename_all = "snake_case")]
pub enum Directive {
    /// Visit this point next.
    NewWaypoint { point: [f64; 3] },
    /// Hold position this long.
    Hold { duration_s: f64 },
    /// Stop the mission: land at an authorised site.
    Abort,
    /// A request of the agent is approved.
    Approve,
}

/// One operator turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorTurn {
    pub intent: String,
    pub text: String,
    pub directive: Option<Directive>,
}

/// What the operator sees of the mission when answering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OperatorView {
    pub t_s: f64,
    pub position: V3,
    pub battery_pct: f64,
    /// Next waypoint (index, point), if any remain.
    pub next_waypoint: Option<(usize, V3)>,
    pub waypoints_left: usize,
    pub aborted: bool,
}

#[derive(Debug, Clone)]
pub struct Operator {
    /// The user turn (0-based count of operator turns) of the change, and the change.
    change: Option<(u32, Directive)>,
    issued: bool,
    turns_taken: u32,
    mission: String,
    band: (f64, f64),
    budget_s: f64,
    waypoints: Vec<V3>,
    sites: Vec<[f64; 2]>,
    /// The planning reserve, percent; said to one decimal (100 × 0.28 is not 28 in binary).
    reserve_pct: f64,
}

/// A point 30–60 m off the longest leg, inside the fence and clear of static zones.
fn detour(s: &Scenario, rng: &mut SimRng) -> Option<[f64; 3]> {
    let w = &s.mission.waypoints;
    let leg = (1..w.len()).max_by(|&a, &b| {
        vec3::distance(w[a - 1], w[a]).total_cmp(&vec3::distance(w[b - 1], w[b]))
    })?;
    let (a, b) = (w[leg - 1], w[leg]);
    let len = vec3::hypot(b[0] - a[0], b[1] - a[1]).max(1.0);
    let off = rng.range(30.0, 60.0) * if rng.chance(0.5) { 1.0 } else { -1.0 };
    let p = [
        ((a[0] + b[0]) / 2.0 - off * (b[1] - a[1]) / len).round(),
        ((a[1] + b[1]) / 2.0 + off * (b[0] - a[0]) / len).round(),
        ((a[2] + b[2]) / 2.0).round(),
    ];
    let fence_ok = s
        .airspace
        .geofence
        .iter()
        .all(|g| horizontal_margin(g, [p[0], p[1]], 0.0) >= 20.0);
    let zones_ok = s.airspace.no_fly_zones.iter().all(|z| {
        !area_contains(z, vec3::to_enu(p), 0.0) && horizontal_margin(z, [p[0], p[1]], 0.0) < -15.0
    });
    (fence_ok && zones_ok).then_some(p)
}

fn any_of(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

impl Operator {
    pub fn new(s: &Scenario, seed: u64) -> Self {
        let mut rng = SimRng::stream(seed, "operator");
        let turn = rng.int_in(1, 3) as u32;
        let change = match rng.uniform() {
            u if u < 0.3 => detour(s, &mut rng).map(|p| Directive::NewWaypoint { point: p }),
            u if u < 0.5 => Some(Directive::Hold {
                duration_s: rng.int_in(2, 4) as f64 * 5.0,
            }),
            u if u < 0.6 => Some(Directive::Abort),
            _ => None,
        };
        let mut sites = vec![[s.spawn.xyz[0], s.spawn.xyz[1]]];
        if let Some(l) = &s.landing {
            sites.extend(l.emergency_sites.iter().map(|p| [p[0], p[1]]));
        }
        Self {
            change: change.map(|c| (turn, c)),
            issued: false,
            turns_taken: 0,
            mission: s.mission.kind.replace('_', " "),
            band: (s.airspace.altitude_agl_min_m, s.airspace.altitude_agl_max_m),
            budget_s: s.mission.time_budget_s,
            waypoints: s.mission.waypoints.clone(),
            sites,
            reserve_pct: 100.0 * s.uav.reserve_fraction.unwrap_or(0.2),
        }
    }

    /// The mission briefing, given before the first agent turn.
    pub fn briefing(&self) -> String {
        let wps: Vec<String> = self
            .waypoints
            .iter()
            .enumerate()
            .map(|(i, w)| format!("{i}: ({}, {}, {})", w[0], w[1], w[2]))
            .collect();
        format!(
            "Operator here. Your {} mission: fly waypoints {} in order, within {} s. Stay between {} and {} m AGL, inside the geofence and out of no-fly zones. Keep {} % battery in reserve. Authorised landing sites: {}.",
            self.mission,
            wps.join(", "),
            self.budget_s,
            self.band.0,
            self.band.1,
            num(self.reserve_pct, 1),
            self.sites_text()
        )
    }

    fn sites_text(&self) -> String {
        let s: Vec<String> = self
            .sites
            .iter()
            .map(|p| format!("({}, {})", p[0], p[1]))
            .collect();
        s.join(", ")
    }

    /// The scheduled change, if any (what the operator will order, and on which of its turns).
    pub fn planned_change(&self) -> Option<(u32, Directive)> {
        self.change
    }

    /// The operator's answer to the agent's last turn.
    pub fn respond(&mut self, agent: &AgentTurn, view: &OperatorView) -> OperatorTurn {
        let index = self.turns_taken;
        self.turns_taken += 1;
        let intent = agent.intent.to_ascii_lowercase();
        let words: String = std::iter::once(intent.as_str())
            .chain(agent.actions.iter().map(|a| a.name()))
            .collect::<Vec<_>>()
            .join(" ");
        let turn = |intent: &str, text: String, directive| OperatorTurn {
            intent: intent.into(),
            text,
            directive,
        };
        if any_of(&intent, &["ask", "question", "clarify", "query"]) {
            return turn("answer_question", self.answer(&words, view), None);
        }
        if any_of(&intent, &["approv", "permission", "request", "authori"]) {
            return if view.aborted {
                turn(
                    "deny",
                    "Denied: the mission is aborted; land at an authorised site.".into(),
                    None,
                )
            } else {
                turn(
                    "approve",
                    format!("Approved: proceed with {}.", agent.intent),
                    Some(Directive::Approve),
                )
            };
        }
        if let Some((at, change)) = self.change
            && !self.issued
            && index >= at
        {
            self.issued = true;
            let text = match change {
                Directive::NewWaypoint { point } => format!(
                    "Change of plan: add a waypoint at ({}, {}, {}) and visit it next, then continue.",
                    point[0], point[1], point[2]
                ),
                Directive::Hold { duration_s } => {
                    format!(
                        "Hold your position for {duration_s} s: traffic is being cleared ahead."
                    )
                }
                Directive::Abort => format!(
                    "Abort the mission now and land at the nearest authorised site: {}.",
                    self.sites_text()
                ),
                Directive::Approve => "Approved.".into(),
            };
            let intent = match change {
                Directive::NewWaypoint { .. } => "add_waypoint",
                Directive::Hold { .. } => "order_hold",
                Directive::Abort => "abort_mission",
                Directive::Approve => "approve",
            };
            return turn(intent, text, Some(change));
        }
        turn("acknowledge", format!("Copy. {}", self.status(view)), None)
    }

    fn status(&self, v: &OperatorView) -> String {
        let left = (self.budget_s - v.t_s).max(0.0);
        let next = match v.next_waypoint {
            Some((i, w)) if !v.aborted => {
                format!("Next is waypoint {i} at ({}, {}, {}); ", w[0], w[1], w[2])
            }
            _ => String::new(),
        };
        format!(
            "{next}{} waypoint(s) left, {left:.0} s of budget, battery {:.1} %.",
            v.waypoints_left, v.battery_pct
        )
    }

    fn answer(&self, words: &str, v: &OperatorView) -> String {
        if any_of(words, &["land", "site", "home"]) {
            format!("Authorised landing sites: {}.", self.sites_text())
        } else if any_of(words, &["battery", "energy", "reserve"]) {
            format!(
                "Battery {:.1} %; keep at least {} % in reserve.",
                v.battery_pct,
                num(self.reserve_pct, 1)
            )
        } else if any_of(words, &["altitude", "band", "height"]) {
            format!("Stay between {} and {} m AGL.", self.band.0, self.band.1)
        } else if any_of(words, &["time", "budget", "deadline"]) {
            format!(
                "{:.0} s of the {} s budget remain.",
                (self.budget_s - v.t_s).max(0.0),
                self.budget_s
            )
        } else {
            self.status(v)
        }
    }
}
