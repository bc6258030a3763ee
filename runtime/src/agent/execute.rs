//! One action, end to end: the tool's arguments are read, a vehicle command goes through the
//! gate and the slice policy before the world sees it, and the agent gets an observation back —
//! a tool result, or a structured denial naming the finding, the limit and the measured value.

use super::surroundings::Surroundings;
use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::gate::{GateContext, GateState, Verdict, VerdictOutcome, evaluate};
use alpha3_core::link::{LinkState, SliceDecision, decide};
use alpha3_core::protocol::tools::{
    CaptureArgs, CheckGeofenceArgs, CommandResult, CommandStatus, FindingObservation, HoldArgs,
    LandArgs, SensorArgs, SetAltitudeArgs, SetSpeedArgs, SetWaypointArgs, SwitchSliceArgs,
    TakeoffArgs, TelemetryResult,
};
use alpha3_core::protocol::{Action, ToolClass, ToolSpec, find};
use alpha3_core::record::{Event, FindingRecord};
use alpha3_core::vehicle::VehicleLink;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// What one action produced, for the record and for the next prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionOutcome {
    pub tool: String,
    pub result: Value,
    /// The action ran (a denial, deferral or bad argument did not).
    pub executed: bool,
    /// Record events in order: verdicts, slice decision, observation.
    pub events: Vec<Event>,
    /// Gate verdicts seen (one per command; `takeoff` may need arm and take-off).
    pub verdicts: Vec<VerdictOutcome>,
    /// A command that moves the vehicle was accepted: let it complete before the next action.
    pub moved: bool,
    /// An approved hold with a duration: let this much world time pass before the next action.
    pub wait_ms: Option<u64>,
    /// The route the gate holds for the handed-over mission changes.
    pub route: Option<RouteChange>,
}

/// What becomes of the gate's handed-over route after an action.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteChange {
    /// Uploaded: the gate judges `fly_mission` on it from now on.
    Adopt(alpha3_core::gate::Route),
    /// The autopilot no longer holds it.
    Drop,
}

/// Everything an action may touch.
pub struct Executor<'a, V: VehicleLink + Surroundings> {
    pub side: &'a mut V,
    pub gate: &'a GateContext,
    pub gate_state: &'a mut GateState,
    pub catalogue: &'a [ToolSpec],
    pub link: LinkState,
    /// Why the gate paused the handed-over mission last (`mission_status` says).
    pub paused_for: Option<String>,
    /// Each verdict's telemetry age (ms) and the gate's wall time for it (µs), for the
    /// episode's [`super::SafetyTiming`].
    pub judged: Vec<(u64, f64)>,
    /// The last command the vehicle accepted in this action, for the flight's own memory.
    pub sent: Option<Command>,
}

impl<V: VehicleLink + Surroundings> std::fmt::Debug for Executor<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("link", &self.link)
            .finish()
    }
}

/// How long a command refused only for stale telemetry waits for fresh telemetry, vehicle ms.
const STALE_WAIT_MS: u64 = 2_000;

fn args<T: DeserializeOwned>(v: &Value) -> Result<T, String> {
    let v = if v.is_null() { json!({}) } else { v.clone() };
    serde_json::from_value(v).map_err(|e| format!("bad arguments: {e}"))
}

impl<V: VehicleLink + Surroundings> Executor<'_, V> {
    /// Runs action `index` of decision `turn`.
    pub async fn run(&mut self, turn: u32, index: u32, action: &Action) -> ActionOutcome {
        let name = action.name().to_string();
        let mut out = ActionOutcome {
            tool: name.clone(),
            result: Value::Null,
            executed: false,
            events: Vec::new(),
            verdicts: Vec::new(),
            moved: false,
            wait_ms: None,
            route: None,
        };
        let Some(spec) = find(self.catalogue, &name) else {
            out.result = json!({"status": "failed", "message": format!("unknown tool `{name}`")});
            out.events.push(observation(turn, index, &out));
            return out;
        };
        let class = spec.class;
        let decision = decide(class, &self.link);
        out.events.push(Event::SliceDecision {
            turn,
            action: index,
            decision,
        });
        match decision {
            SliceDecision::Defer | SliceDecision::Buffer => {
                let status = if decision == SliceDecision::Defer {
                    CommandStatus::Deferred
                } else {
                    CommandStatus::Buffered
                };
                out.result = json!({"status": status, "message": "held back by the slice policy: the link is hard or lost"});
                out.events.push(observation(turn, index, &out));
                return out;
            }
            SliceDecision::SwitchFirst(slice) => {
                self.side.world_mut().switch_slice(slice);
            }
            SliceDecision::SendNow => {}
        }
        let result = if action.is_a2a() {
            let r = self.a2a(action);
            out.executed = r.is_ok();
            r
        } else {
            self.mcp(turn, index, &name, action.arguments(), class, &mut out)
                .await
        };
        match result {
            Ok(v) => out.result = v,
            Err(message) => {
                out.executed = false;
                out.result = json!({"status": "failed", "message": message});
            }
        }
        out.events.push(observation(turn, index, &out));
        out
    }

    fn a2a(&mut self, action: &Action) -> Result<Value, String> {
        let Action::A2a {
            task, to, payload, ..
        } = action
        else {
            return Err("not an A2A task".into());
        };
        let reply = self
            .side
            .world_mut()
            .a2a(task, to.as_deref(), payload)
            .map_err(|e| e.to_string())?;
        Ok(
            json!({"task": reply.task, "from": reply.from, "status": "ok", "payload": reply.payload}),
        )
    }

    async fn mcp(
        &mut self,
        turn: u32,
        index: u32,
        name: &str,
        raw: &Value,
        class: ToolClass,
        out: &mut ActionOutcome,
    ) -> Result<Value, String> {
        if super::execute_mission::is_mission_tool(name) {
            return self.mission(turn, index, name, out).await;
        }
        let commands: Vec<Command> = match name {
            "read_telemetry" => {
                out.executed = true;
                return Ok(self.telemetry());
            }
            "read_network" => {
                out.executed = true;
                let s = self.side.link_sample();
                return serde_json::to_value(s).map_err(|e| e.to_string());
            }
            "check_geofence" => {
                let a: CheckGeofenceArgs = args(raw)?;
                out.executed = true;
                // The gate's own target tests, with the snapshot and clock it judges moves by.
                let r = alpha3_sim::World::check_geofence(
                    self.gate,
                    &self.side.snapshot(),
                    self.side.now_ms(),
                    Enu::new(a.point.x, a.point.y, a.point.z),
                );
                return serde_json::to_value(r).map_err(|e| e.to_string());
            }
            "activate_sensor" | "deactivate_sensor" => {
                let a: SensorArgs = args(raw)?;
                let r = if name == "activate_sensor" {
                    self.side.world_mut().activate_sensor(&a.sensor)
                } else {
                    self.side.world_mut().deactivate_sensor(&a.sensor)
                };
                out.executed = r.status != CommandStatus::Failed;
                return serde_json::to_value(r).map_err(|e| e.to_string());
            }
            "capture" => {
                let a: CaptureArgs = args(raw)?;
                let r = self.side.world_mut().capture(&a.sensor, a.kind);
                out.executed = r.status != CommandStatus::Failed;
                return serde_json::to_value(r).map_err(|e| e.to_string());
            }
            "switch_network_slice" => {
                let a: SwitchSliceArgs = args(raw)?;
                let r = self.side.world_mut().switch_slice(a.slice);
                out.executed = true;
                return serde_json::to_value(r).map_err(|e| e.to_string());
            }
            "takeoff" => {
                let a: TakeoffArgs = args(raw)?;
                let arm = (!self.side.snapshot().armed).then_some(Command::Arm);
                arm.into_iter()
                    .chain([Command::Takeoff {
                        altitude_m: a.altitude_m,
                    }])
                    .collect()
            }
            "set_waypoint" => {
                let a: SetWaypointArgs = args(raw)?;
                let w = a.waypoint;
                vec![Command::GoTo {
                    target: Enu::new(w.x, w.y, w.z),
                    speed_mps: a.speed_mps,
                }]
            }
            "set_altitude" => {
                let a: SetAltitudeArgs = args(raw)?;
                vec![Command::SetAltitude {
                    altitude_m: a.altitude_m,
                }]
            }
            "set_speed" => {
                let a: SetSpeedArgs = args(raw)?;
                vec![Command::SetSpeed {
                    speed_mps: a.speed_mps,
                }]
            }
            "hold" => {
                let a: HoldArgs = args(raw)?;
                out.wait_ms = a
                    .duration_s
                    .filter(|d| d.is_finite() && *d > 0.0)
                    .map(|d| (d.min(600.0) * 1000.0) as u64);
                vec![Command::Hold]
            }
            "return_to_home" => vec![Command::ReturnToHome],
            "land" => {
                let a: LandArgs = args(raw)?;
                vec![Command::Land {
                    site: a.site.map(|s| [s.x, s.y]),
                }]
            }
            other => return Err(format!("tool `{other}` has no executor")),
        };
        debug_assert_eq!(class, ToolClass::ControlCritical);
        let mut last = CommandResult {
            status: CommandStatus::Completed,
            message: None,
            findings: Vec::new(),
        };
        for command in commands {
            last = self.command(turn, index, &command, out).await;
            if last.status != CommandStatus::Accepted {
                break;
            }
        }
        serde_json::to_value(last).map_err(|e| e.to_string())
    }

    /// The gate's verdict on `command` now. On a real-time link, a refusal only because the
    /// telemetry is too old waits up to [`STALE_WAIT_MS`] of vehicle time for fresh telemetry
    /// and is judged again (the link was late, not the agent); the refusal stands after that.
    /// Every judgement is timed into `judged`.
    async fn judged_when_fresh(&mut self, command: &Command) -> Verdict {
        let asked = self.side.now_ms();
        let before = *self.gate_state;
        loop {
            let snapshot = self.side.snapshot();
            let now = self.side.now_ms();
            let judging = std::time::Instant::now();
            let verdict = evaluate(self.gate, &snapshot, command, now, self.gate_state);
            self.judged.push((
                now.saturating_sub(snapshot.time_ms),
                judging.elapsed().as_secs_f64() * 1e6,
            ));
            let wait = self.side.realtime()
                && now < asked + STALE_WAIT_MS
                && crate::agent::onboard::start::only_stale(&verdict);
            if !wait {
                return verdict;
            }
            tracing::debug!(
                command = command.name(),
                "telemetry too old for the gate; waiting"
            );
            *self.gate_state = before;
            if self.side.advance_to(now + 100).await.is_err() {
                return verdict;
            }
        }
    }

    /// Gate, then the flight controller.
    pub(super) async fn command(
        &mut self,
        turn: u32,
        index: u32,
        command: &Command,
        out: &mut ActionOutcome,
    ) -> CommandResult {
        // A member that lost its swarm flies blind among its mates: it holds and lands where
        // it is, and the agent flies it no more (the gate is not asked).
        let now = self.side.now_ms();
        if self.side.swarm_lost(now) {
            return CommandResult {
                status: CommandStatus::Failed,
                message: Some(
                    "the swarm is lost (no mate heard): the vehicle holds and lands here".into(),
                ),
                findings: Vec::new(),
            };
        }
        self.side.wants(command);
        let verdict = self.judged_when_fresh(command).await;
        out.verdicts.push(verdict.outcome());
        out.events.push(Event::Verdict {
            turn,
            action: index,
            outcome: verdict.outcome(),
            findings: verdict.findings().iter().map(FindingRecord::from).collect(),
        });
        let findings: Vec<FindingObservation> = verdict
            .findings()
            .iter()
            .map(|f| FindingObservation {
                id: f.id.to_string(),
                reason: f.reason.to_string(),
                limit: Some(f.limit),
                measured: Some(f.measured),
            })
            .collect();
        let approved = match &verdict {
            Verdict::Approved(a) | Verdict::Clamped { approved: a, .. } => a.clone(),
            Verdict::Denied(found) => {
                if let Some(f) = found.first() {
                    self.side.tell_ground_station(&format!(
                        "alpha3: denied {}: {} ({})",
                        command.name(),
                        f.reason,
                        f.id
                    ));
                }
                return CommandResult {
                    status: CommandStatus::Denied,
                    message: Some(format!("{} denied by the safety gate", command.name())),
                    findings,
                };
            }
        };
        let receipt = self.side.execute(&approved).await;
        if receipt.accepted {
            self.sent = Some(*approved.command());
        }
        out.executed = receipt.accepted;
        if !receipt.accepted {
            out.wait_ms = None;
        }
        out.moved |= receipt.accepted && approved.command().moves_vehicle();
        CommandResult {
            status: if receipt.accepted {
                CommandStatus::Accepted
            } else {
                CommandStatus::Failed
            },
            message: receipt.message,
            findings,
        }
    }

    fn telemetry(&self) -> Value {
        let s = self.side.snapshot();
        let t = TelemetryResult {
            pose: alpha3_core::protocol::tools::Pose {
                x: round1(s.position.x),
                y: round1(s.position.y),
                z: round1(s.position.z),
                yaw: round1(s.yaw_deg),
            },
            speed_mps: round1(s.ground_speed_mps()),
            battery_pct: round1(s.battery.remaining_pct),
            armed: s.armed,
            mode: format!("{:?}", s.mode).to_lowercase(),
            airborne: s.is_airborne(),
        };
        serde_json::to_value(t).unwrap_or(Value::Null)
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn observation(turn: u32, index: u32, out: &ActionOutcome) -> Event {
    Event::Observation {
        turn,
        action: index,
        tool: out.tool.clone(),
        result: out.result.clone(),
        executed: out.executed,
    }
}
