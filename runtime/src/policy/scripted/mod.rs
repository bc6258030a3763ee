//! The scripted reference agent: a deterministic baseline that flies the generated missions the
//! way a careful operator would, through the same tools, gate and slice policy as any LLM.
//!
//! It reads the mission plan it was given (waypoints and payload tasks, sensors, landing sites,
//! announced link outages, the airspace and the traffic picture the gate has too), the situation
//! of each decision (telemetry, link, the results of its last actions) and the operator's words
//! (a new waypoint, a hold, an abort, the status line). Each turn it:
//! - checks state (telemetry before the first command) and moves control to URLLC;
//! - obeys an ordered hold, then plans as many legs as the turn's world time allows, each one
//!   checked first with the gate's own checks at the time it will be flown: around static
//!   no-fly zones over via points, after a short wait when traffic or a moving zone is in the
//!   way, and never into an announced link outage (it holds through one instead, so no command
//!   is due while the link is down);
//! - captures where the mission needs it, with the mission's payload, and again — with a
//!   fallback sensor if one went offline — when a capture was deferred or failed;
//! - lands at the nearest authorised site when aborted or when the battery, after the next leg
//!   and the way down, would not keep the reserve;
//! - tells swarm peers over A2A which formation it flies.

mod check;
mod mission;
mod near;
mod route;
mod timing;
mod words;

use super::{BoxFuture, Decision, DecisionContext, Policy, actions};
use alpha3_core::config::Limits;
use alpha3_core::gate::ids;
use alpha3_core::link::{HardThresholds, Slice};
use alpha3_core::protocol::tools::CaptureKind;
use alpha3_core::protocol::{Action, AgentTurn, ToolObservation};
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;
use check::{PathCheck, STATIC_IDS, TIMED_IDS};
use mission::{Mission, Target};
use route::Zone;
use serde_json::Value;
use timing::{OUTAGE_LEAD_S, OUTAGE_TAIL_S, Outage, TURN_HORIZON_S, bounds, outage_between};
use tokio::time::Instant;
use words::Heard;

/// Agent turns the loop allows per episode (12 dialogue turns, every other one the operator's).
const AGENT_TURNS: u32 = 6;
/// Tool actions the loop allows per episode (ALPHA3.md §1), less one kept for a landing.
const ACTION_BUDGET: usize = 24;
/// Waits before a leg to try when traffic or a moving zone is in its way, seconds.
const WAITS_S: [f64; 9] = [0.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0];
/// Hold this much longer than the operator orders, seconds (the order counts from stillness).
const HOLD_EXTRA_S: f64 = 2.0;
/// The watchdog's ladder steps from hold to return after this long without a link, seconds
/// (the shipped `watchdog.step_interval_ms`).
const WATCHDOG_STEP_S: f64 = 15.0;
/// Every turn lets at least this much world time pass, seconds.
const MIN_TURN_S: f64 = 5.0;
/// How long to wait for a hard link to recover before sensing, seconds.
const LINK_WAIT_S: f64 = 15.0;
/// An outage closer than this (after the lead) is held through rather than flown towards, s.
const MIN_LEG_S: f64 = 15.0;
/// Arrive this long before an outage when the way offers no safe place to sit it out, so a
/// place aside can still be reached, seconds.
const REFUGE_LEAD_S: f64 = 30.0;
/// A partial leg shorter than this is not worth a command, metres.
const MIN_PART_M: f64 = 20.0;
/// Keep this much battery above the reserve, percent.
const ENERGY_MARGIN_PCT: f64 = 3.0;

/// What an action of the last turn was for, to read its observation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tag {
    Other,
    /// A leg towards target `target` (on the way or onto it).
    Leg {
        target: usize,
    },
    Activate,
    Capture {
        target: usize,
    },
}

/// The scripted agent for one scenario.
#[derive(Debug, Clone)]
pub struct ScriptedPolicy {
    name: String,
    mission: Mission,
    check: Option<PathCheck>,
    zones: Vec<Zone>,
    swarm: bool,
    /// The next target to reach.
    next: usize,
    /// Index into `mission.sensors` of the sensor in use.
    sensor: usize,
    /// Sensors that failed to activate or capture since the last switch.
    failed: Vec<bool>,
    /// The link was hard when this turn was decided: sensing here waits for it first.
    link_hard: bool,
    sensor_on: bool,
    aborted: bool,
    landing: bool,
    hold_s: Option<f64>,
    actions_used: usize,
    turns: u32,
    last: Vec<Tag>,
}

/// One turn being put together, with the world time its commands are expected to take.
#[derive(Debug, Clone)]
struct Plan {
    actions: Vec<Action>,
    tags: Vec<Tag>,
    start_s: f64,
    /// Earliest and latest time the commands so far are done.
    lo_s: f64,
    hi_s: f64,
    at: [f64; 3],
    /// Something that takes world time is planned.
    busy: bool,
    room: usize,
}

impl Plan {
    fn push(&mut self, action: Action, tag: Tag) -> bool {
        if self.actions.len() >= self.room {
            return false;
        }
        self.actions.push(action);
        self.tags.push(tag);
        true
    }

    /// A hop to `spot` (a refuge) taking `dlo`..`dhi` seconds; false when out of actions.
    fn hop(&mut self, spot: [f64; 3], dlo: f64, dhi: f64) -> bool {
        if !self.push(set_waypoint(spot), Tag::Other) {
            return false;
        }
        self.lo_s += dlo;
        self.hi_s += dhi;
        self.at = spot;
        self.busy = true;
        true
    }

    fn wait(&mut self, seconds: f64) -> bool {
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

impl ScriptedPolicy {
    /// The agent for `scenario` with its fitted `sensors`, planning under the runtime's default
    /// safety limits.
    pub fn new(name: impl Into<String>, scenario: &Scenario, sensors: &[String]) -> Self {
        Self::with_limits(
            name,
            scenario,
            sensors,
            &crate::episode_setup::EpisodeSettings::default().limits,
        )
    }

    /// The agent planning under `limits` (those the gate enforces).
    pub fn with_limits(
        name: impl Into<String>,
        scenario: &Scenario,
        sensors: &[String],
        limits: &Limits,
    ) -> Self {
        let mission = Mission::new(scenario, sensors);
        Self {
            name: name.into(),
            failed: vec![false; mission.sensors.len()],
            link_hard: false,
            mission,
            check: PathCheck::new(scenario, limits),
            zones: route::static_zones(scenario),
            swarm: alpha3_sim::scenario::swarm(scenario).enabled,
            next: 0,
            sensor: 0,
            sensor_on: false,
            aborted: false,
            landing: false,
            hold_s: None,
            actions_used: 0,
            turns: 0,
            last: Vec::new(),
        }
    }

    fn targets(&self) -> &[Target] {
        &self.mission.targets
    }

    /// Reads what the last turn's actions did: a leg that did not go through leaves its
    /// target (and any capture after it) to do again; a capture that did not complete is
    /// repeated, with the next sensor when this one failed.
    fn review(&mut self, observations: &[ToolObservation]) {
        let tags = std::mem::take(&mut self.last);
        let mut broken = false;
        // Whether this turn's activation went through (a capture without it fails, and that
        // says nothing about the sensor).
        let mut activated = true;
        for (i, tag) in tags.iter().enumerate() {
            let result = observations.get(i).map(|o| &o.result);
            let status = result
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                .unwrap_or("missing");
            match *tag {
                Tag::Leg { target, .. } if status != "accepted" && status != "completed" => {
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
                    }
                    if !broken && target < self.next {
                        self.next = target;
                    }
                    broken = true;
                }
                Tag::Capture { target } if broken || status != "completed" => {
                    if let Some(t) = self.mission.targets.get_mut(target) {
                        t.captured = false;
                    }
                    if status == "failed" && activated {
                        self.next_sensor();
                    }
                }
                Tag::Activate if status == "failed" => {
                    activated = false;
                    self.next_sensor();
                }
                Tag::Activate if status != "completed" => {
                    activated = false;
                    self.sensor_on = false;
                }
                _ => {}
            }
        }
    }

    /// The sensor in use failed (offline): use the next one that has not failed yet, or
    /// start over when all have (an offline sensor may come back).
    fn next_sensor(&mut self) {
        let n = self.mission.sensors.len();
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

    fn read_operator(&mut self, text: &str) {
        match words::hear(text) {
            Some(Heard::Abort) => self.aborted = true,
            Some(Heard::Hold { duration_s }) => self.hold_s = Some(duration_s),
            Some(Heard::AddWaypoint(p)) => {
                let at = self.next.min(self.targets().len());
                self.mission.targets.insert(
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
                    for t in &mut self.mission.targets[j..self.next.max(j)] {
                        t.captured = false;
                    }
                    self.next = j;
                }
            }
            Some(Heard::NoneLeft) => self.next = self.targets().len(),
            None => {}
        }
    }

    fn turn(&mut self, ctx: &DecisionContext) -> AgentTurn {
        let now = &ctx.now;
        let s = &now.snapshot;
        self.review(&now.observations);
        if let Some(text) = &now.operator {
            self.read_operator(text);
        }
        let t0 = s.time_ms as f64 / 1000.0;
        let pos = [s.position.x, s.position.y, s.position.z];
        let mut plan = Plan {
            actions: Vec::new(),
            tags: Vec::new(),
            start_s: t0,
            lo_s: t0,
            hi_s: t0,
            at: pos,
            busy: false,
            room: ACTION_BUDGET.saturating_sub(self.actions_used),
        };
        if self.turns == 0 {
            plan.push(actions::read_telemetry(), Tag::Other);
            if self.swarm {
                plan.push(
                    actions::swarm_coordination("swarm-1", "formation"),
                    Tag::Other,
                );
            }
        }
        self.turns += 1;
        // The link monitor leaves its hard state only after a few good samples, so a deferral
        // last turn counts as hard too.
        self.link_hard = now.link.is_hard(&HardThresholds::default())
            || now
                .observations
                .iter()
                .any(|o| o.result.get("status").and_then(Value::as_str) == Some("deferred"));
        if now.link.slice != Slice::Urllc {
            plan.push(actions::switch_network_slice(Slice::Urllc), Tag::Other);
        }
        let intent = self.decide(&mut plan, s);
        self.actions_used += plan.actions.len();
        self.last = plan.tags;
        AgentTurn {
            intent,
            actions: plan.actions,
        }
    }

    fn decide(&mut self, plan: &mut Plan, s: &VehicleSnapshot) -> String {
        let mut intent = String::new();
        if let Some(d) = self.hold_s.take() {
            // An ordered hold comes first: it counts from when the vehicle is still.
            plan.wait(d + HOLD_EXTRA_S);
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
            plan.push(actions::takeoff(z), Tag::Other);
            let (lo, hi) = bounds(
                self.mission
                    .pace
                    .leg_s(plan.at, [plan.at[0], plan.at[1], z]),
            );
            plan.lo_s += lo;
            plan.hi_s += hi;
            plan.at[2] = z;
            plan.busy = true;
        }
        let reserve = self.mission.reserve_pct + ENERGY_MARGIN_PCT;
        let short = s.battery.remaining_pct - self.mission.to_site_pct(plan.at) < reserve;
        if self.aborted || self.landing || short {
            return self.land(plan, s);
        }
        let first = self.next;
        if self.turns >= AGENT_TURNS {
            // The last turn: finish the mission in it, or put the vehicle down at a site rather
            // than leave it in the air when the episode ends.
            let mut trial = self.clone();
            let mut tried = plan.clone();
            trial.fly(&mut tried, s);
            let n = trial.targets().len();
            let finished = trial.next >= n
                && trial.revisit().is_none()
                && (n == 0 || !far(tried.at, trial.targets()[n - 1].point));
            if !finished {
                return self.land(plan, s);
            }
        }
        let flown = self.fly(plan, s);
        if plan.lo_s - plan.start_s < MIN_TURN_S {
            // A turn always lets some world time pass, so nothing waits on a frozen clock.
            self.safe_wait(plan, s, MIN_TURN_S);
        }
        match flown {
            Flown::Legs(last) if done => format!("return_to_mission_end_{last}"),
            Flown::Legs(last) => format!("fly_waypoints_{first}_to_{last}"),
            Flown::Nothing if !intent.is_empty() => intent,
            Flown::Nothing if done => "hold_at_mission_end".into(),
            Flown::Nothing => "wait_for_traffic_or_link".into(),
            Flown::EnergyShort => self.land(plan, s),
        }
    }

    /// The first target before `next` whose capture is still to do.
    fn revisit(&self) -> Option<usize> {
        self.targets()[..self.next.min(self.targets().len())]
            .iter()
            .position(|t| t.capture.is_some() && !t.captured)
    }

    /// Plans legs to the targets in order (revisits first) while the turn's time, the action
    /// budget and the announced outages allow.
    fn fly(&mut self, plan: &mut Plan, s: &VehicleSnapshot) -> Flown {
        let horizon = plan.start_s + TURN_HORIZON_S;
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
                None if n > 0 && !end_tried && far(plan.at, self.targets()[n - 1].point) => {
                    end_tried = true;
                    (n - 1, false)
                }
                None => break,
            };
            let goal = self.targets()[k].point;
            let path = match &self.check {
                Some(c) => route::around(c, &self.zones, s, plan.at, goal, plan.hi_s)
                    .unwrap_or_else(|| vec![goal]),
                None => vec![goal],
            };
            for p in &path {
                let before = plan.clone();
                let to = match self.leg(plan, s, *p, horizon) {
                    Step::Go(to) => to,
                    Step::Stop => break 'targets,
                    Step::Blocked => {
                        // Around whatever stays in the way (a peer parked on it, say): over a
                        // point aside, if that is clear; else wait as planned.
                        let mut around = before;
                        match self.detour(&mut around, s, *p, horizon, k) {
                            Some(to) => {
                                *plan = around;
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
                        } else if let Some(t) = self.mission.targets.get_mut(k) {
                            t.captured = true;
                        }
                        continue 'targets;
                    }
                    Step::EnergyShort => return Flown::EnergyShort,
                };
                let pushed = plan.push(set_waypoint(to), Tag::Leg { target: k });
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
                && !self.capture(plan, k, kind)
            {
                break;
            }
        }
        reached.map_or(Flown::Nothing, Flown::Legs)
    }

    /// Activates the sensor when needed and captures at target `k`.
    fn capture(&mut self, plan: &mut Plan, k: usize, kind: CaptureKind) -> bool {
        let Some(sensor) = self.mission.sensors.get(self.sensor).cloned() else {
            return true;
        };
        if !self.sensor_on {
            if !plan.push(actions::activate_sensor(&sensor), Tag::Activate) {
                return false;
            }
            self.sensor_on = true;
        }
        if self.link_hard && plan.lo_s - plan.start_s < MIN_TURN_S {
            // Sensing is deferred on a hard link: give it time to recover first.
            plan.wait(LINK_WAIT_S);
        }
        let pushed = plan.push(actions::capture(&sensor, kind), Tag::Capture { target: k });
        if pushed {
            self.mission.targets[k].captured = true;
        }
        pushed
    }

    /// Whether the leg to `to` goes into this turn, after which wait, and how far: a leg that
    /// would run past the turn's time or into an announced outage is flown part of the way.
    /// An outage about to begin is held through when nothing else is planned yet (so no
    /// command falls due while the link is down); otherwise the turn ends before it.
    fn leg(&self, plan: &mut Plan, s: &VehicleSnapshot, to: [f64; 3], horizon: f64) -> Step {
        let pace = self.mission.pace;
        let hi_s = |a: [f64; 3], b: [f64; 3]| bounds(pace.leg_s(a, b)).1;
        if let Some(c) = &self.check {
            let found = c.leg(s, plan.at, to, plan.hi_s);
            if found.iter().any(|id| STATIC_IDS.contains(id)) {
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
            let full_end = plan.hi_s + hi_s(plan.at, to) + WAITS_S[WAITS_S.len() - 1];
            if let Some(o) = outage_between(&self.mission.outages, plan.lo_s, full_end) {
                let room = o.start_s - OUTAGE_LEAD_S - plan.hi_s;
                // Sitting out an outage where traffic will pass needs time to find a better
                // place first.
                let unsafe_here = room < REFUGE_LEAD_S
                    && self
                        .check
                        .as_ref()
                        .is_some_and(|c| !self.outage_safe(c, s, plan.at, plan.lo_s, o));
                if room < MIN_LEG_S || unsafe_here {
                    let can_hold = !plan.busy && !outage_held && plan.hi_s < o.start_s - 1.0;
                    let until = o.end_s + OUTAGE_TAIL_S;
                    if !can_hold
                        || until - plan.start_s > TURN_HORIZON_S
                        || !self.outage_wait(plan, s, o)
                    {
                        return Step::Stop;
                    }
                    outage_held = true;
                    if o.end_s - o.start_s > WATCHDOG_STEP_S - 1.0 {
                        // The watchdog has started a return home by now: stop it at once, and
                        // plan the rest from wherever it left the vehicle.
                        plan.push(actions::hold(None), Tag::Other);
                        return Step::Stop;
                    }
                    continue;
                }
                limit = limit.min(o.start_s - OUTAGE_LEAD_S);
                before = Some(o);
            }
            let Some((wait, end)) = self.fit(plan, s, to, limit, before) else {
                if !plan.busy {
                    // Nothing clears within the turn: wait where it is safe, then look again.
                    self.safe_wait(plan, s, 20.0);
                }
                return Step::Blocked;
            };
            let (mut dlo, dhi) = bounds(pace.leg_s(plan.at, end));
            if !far(plan.at, end) {
                // Already there: the loop lets no time pass for it.
                dlo = 0.0;
            }
            let battery_after = s.battery.remaining_pct
                - self
                    .mission
                    .flight_pct(plan.hi_s + wait + dhi - plan.start_s);
            if battery_after - self.mission.to_site_pct(end)
                < self.mission.reserve_pct + ENERGY_MARGIN_PCT
            {
                return Step::EnergyShort;
            }
            if wait > 0.0 && !plan.wait(wait) {
                return Step::Stop;
            }
            plan.lo_s += dlo;
            plan.hi_s += dhi;
            plan.at = end;
            plan.busy = true;
            return Step::Go(end);
        }
    }

    /// The shortest wait after which the leg towards `to` is clear of traffic and moving zones,
    /// and where it ends: at `to`, or as far along as fits before `limit_s`. When it is the
    /// last leg before outage `before`, it stops short where holding through the outage is
    /// safe, if that is not at its end.
    fn fit(
        &self,
        plan: &Plan,
        s: &VehicleSnapshot,
        to: [f64; 3],
        limit_s: f64,
        before: Option<Outage>,
    ) -> Option<(f64, [f64; 3])> {
        let pace = self.mission.pace;
        let from = plan.at;
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
            let room = limit_s - plan.hi_s - w;
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
                    .any(|id| TIMED_IDS.contains(id))
            };
            let clear = clear_at(plan.lo_s + w)
                && clear_at(plan.hi_s + w)
                && (w == 0.0 || c.hold_is_clear(s, from, plan.lo_s, plan.hi_s + w));
            if !clear {
                return None;
            }
            let Some(o) = before else {
                return Some((w, end));
            };
            let nominal_end = |e: [f64; 3]| plan.lo_s + w + pace.leg_s(from, e);
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
                    if plan.hi_s + w + hi_s(along(mid)) <= o.start_s - REFUGE_LEAD_S {
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

    /// A way to `goal` over one point aside (a refuge around the start: another height, or up
    /// to 120 m off) when the direct leg is blocked at every wait: the leg there is planned
    /// into `plan` and the leg on towards `goal` checked as usual. Returns where that second
    /// leg ends (the caller plans it as its own), or `None` when no point aside helps.
    fn detour(
        &self,
        plan: &mut Plan,
        s: &VehicleSnapshot,
        goal: [f64; 3],
        horizon: f64,
        target: usize,
    ) -> Option<[f64; 3]> {
        self.check.as_ref()?;
        route::refuges(plan.at, self.mission.band)
            .into_iter()
            .find_map(|via| {
                let mut trial = plan.clone();
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
                *plan = trial;
                to
            })
    }

    /// Waits `seconds` where no traffic or moving zone comes: here when it is clear, else at
    /// the nearest spot around (another height in the band, or up to 120 m aside) that is.
    fn safe_wait(&self, plan: &mut Plan, s: &VehicleSnapshot, seconds: f64) {
        if let Some(c) = &self.check {
            let here = plan.at;
            if !c.hold_is_clear(s, here, plan.lo_s, plan.hi_s + seconds) {
                let pace = self.mission.pace;
                let refuge = route::refuges(here, self.mission.band)
                    .into_iter()
                    .find_map(|spot| {
                        let (dlo, dhi) = bounds(pace.leg_s(here, spot));
                        let clear = c.leg(s, here, spot, plan.lo_s).is_empty()
                            && c.leg(s, here, spot, plan.hi_s).is_empty()
                            && c.hold_is_clear(s, spot, plan.lo_s + dlo, plan.hi_s + dhi + seconds);
                        clear.then_some((spot, dlo, dhi))
                    });
                if let Some((spot, dlo, dhi)) = refuge {
                    plan.hop(spot, dlo, dhi);
                }
            }
        }
        plan.wait(seconds);
    }

    /// Holds through outage `o` (to its end and a little after) where that is safe: here, or
    /// at a spot nearby reached before the outage begins. Safe means no traffic or moving zone
    /// comes near the hold, and — when the outage outlasts the watchdog's first step, so it
    /// will start a return home before the link is back — the first stretch of that return is
    /// clear too.
    fn outage_wait(&self, plan: &mut Plan, s: &VehicleSnapshot, o: Outage) -> bool {
        let until = o.end_s + OUTAGE_TAIL_S;
        if let Some(c) = &self.check {
            let pace = self.mission.pace;
            let safe = |spot: [f64; 3], from_s: f64| self.outage_safe(c, s, spot, from_s, o);
            let here = plan.at;
            if !safe(here, plan.lo_s) {
                let refuge = route::refuges(here, self.mission.band)
                    .into_iter()
                    .find_map(|spot| {
                        let nominal = pace.leg_s(here, spot);
                        let (dlo, dhi) = bounds(nominal);
                        // A short hop first thing in the turn: its time is well known.
                        let done_by = plan.hi_s + 1.2 * nominal + 2.0;
                        let clear = done_by < o.start_s - 1.0
                            && c.leg(s, here, spot, plan.lo_s).is_empty()
                            && c.leg(s, here, spot, plan.hi_s).is_empty()
                            && safe(spot, plan.lo_s + dlo);
                        clear.then_some((spot, dlo, dhi))
                    });
                if let Some((spot, dlo, dhi)) = refuge {
                    plan.hop(spot, dlo, dhi);
                }
            }
        }
        plan.wait(until - plan.lo_s)
    }

    /// Whether holding at `spot` from `from_s` through outage `o` is safe (see
    /// [`Self::outage_wait`]).
    fn outage_safe(
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
        let drift_from = o.start_s + WATCHDOG_STEP_S;
        if drift_from >= until {
            return true;
        }
        if !c.return_ok(s, spot, drift_from) {
            return false;
        }
        let home = self.mission.sites[0];
        let (lo, hi) = self.mission.band;
        let (dx, dy) = (home[0] - spot[0], home[1] - spot[1]);
        let d = dx.hypot(dy);
        let reach = (until - drift_from) * self.mission.pace.cruise_mps() + 10.0;
        let f = if d > 1.0 { (reach / d).min(1.0) } else { 0.0 };
        let z = spot[2].clamp((lo + 10.0).min(hi), (hi - 10.0).max(lo));
        let drift = [spot[0] + f * dx, spot[1] + f * dy, z];
        c.leg(s, spot, drift, drift_from)
            .iter()
            .all(|id| !STATIC_IDS.contains(id) && !TIMED_IDS.contains(id))
    }

    /// Flies to the nearest authorised site (around zones) and lands there.
    fn land(&mut self, plan: &mut Plan, s: &VehicleSnapshot) -> String {
        self.landing = true;
        let intent = if self.aborted {
            "abort_and_land"
        } else {
            "land_at_site"
        };
        if !s.is_airborne() {
            return intent.into();
        }
        let site = self.mission.nearest_site(plan.at[0], plan.at[1]);
        let above = [site[0], site[1], plan.at[2]];
        let far = (above[0] - plan.at[0]).hypot(above[1] - plan.at[1]) > 5.0;
        if far {
            let path = match &self.check {
                Some(c) => route::around(c, &self.zones, s, plan.at, above, plan.hi_s)
                    .unwrap_or_else(|| vec![above]),
                None => vec![above],
            };
            for p in path {
                plan.push(set_waypoint(p), Tag::Other);
            }
        }
        // The landing is the one action the budget always keeps room for.
        plan.room += 1;
        plan.push(actions::land_at(site), Tag::Other);
        intent.into()
    }
}

/// How planning a leg went.
enum Step {
    /// Fly to this point (the leg's end, or part of the way).
    Go([f64; 3]),
    Stop,
    /// Traffic or a moving zone is in the way at every wait this turn allows.
    Blocked,
    Skip,
    EnergyShort,
}

/// What a turn flies.
enum Flown {
    /// Legs up to this target.
    Legs(usize),
    Nothing,
    EnergyShort,
}

impl Policy for ScriptedPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let turn = self.turn(ctx);
        Box::pin(async move {
            Decision {
                outcome: Ok(turn),
                attempts: Vec::new(),
            }
        })
    }
}

/// A `set_waypoint` action to `p`, at the cruise speed.
fn set_waypoint(p: [f64; 3]) -> Action {
    actions::set_waypoint(p, None)
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

/// Whether `a` is off the point `b` by more than the waypoint tolerance.
fn far(a: [f64; 3], b: [f64; 3]) -> bool {
    (a[0] - b[0]).hypot(a[1] - b[1]) > 4.0 || (a[2] - b[2]).abs() > 3.0
}

fn same(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.5)
}
