//! The policy whose decisions are an MCP client's tool calls: each valid `tools/call` is one
//! agent turn of one action, flown by the episode loop like any policy's action (slice policy →
//! gate → vehicle → telemetry), and answered once it has played out.
//!
//! How dialogue turns are cut: a decision waits (under the loop's deadline) for the next call.
//! A call that fails the schema check is a failed attempt of that decision (answered at once
//! with the errors, at most [`MAX_ATTEMPTS`] per decision, as the repair loop of an LLM policy);
//! the first valid call ends the decision and becomes the agent turn; the operator's turn
//! follows it. No call by the deadline is a missed decision (the watchdog acts); a client that
//! left ends the episode, and the failsafe brings the vehicle down.
//!
//! Before the schema check, a call over a cap ([`super::caps`]) is refused (only its excerpt
//! reaches the record), and an acting call from a session that does not hold control
//! ([`super::control`]) is refused naming the holder. Every recorded call names its session
//! and client.

use super::call::{CallReply, CallRequest};
use super::control::{Control, read_only_tools};
use super::presence::Presence;
use super::view::SessionView;
use crate::policy::{
    Attempt, BoxFuture, Decision, DecisionContext, GenerationFailure, MAX_ATTEMPTS, Policy,
};
use alpha3_core::protocol::{ToolKind, ToolObservation, ToolSpec, TurnParser};
use alpha3_core::snapshot::VehicleSnapshot;
use serde_json::{Value, json};
use std::collections::HashMap;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// The intent every call's turn carries (the action says what was asked).
const INTENT: &str = "mcp_tools_call";

/// The episode's reason when the client left.
pub const CLIENT_LEFT: &str = "client_left";

/// Failed calls of a session that is not the agent (see [`ClientPolicy`]) recorded each; past
/// them, only the powers of two, so a client that keeps calling cannot grow the record with
/// every call.
const FAILURES_RECORDED: u64 = 16;

/// Decides by waiting for the clients' calls.
///
/// The agent is the session that holds control, or any session while none does: its failed
/// calls count towards the decision's attempts. Another session's calls are recorded (sparsely
/// past `FAILURES_RECORDED` failures) but never fail the agent's decision.
#[derive(Debug)]
pub struct ClientPolicy {
    calls: mpsc::Receiver<CallRequest>,
    presence: watch::Receiver<Presence>,
    parser: TurnParser,
    view: SessionView,
    control: Control,
    /// The catalogue's tools any session may call.
    read_only: Vec<&'static str>,
    /// The catalogue's tools that need control.
    acting: Vec<&'static str>,
    /// Failed calls so far of each session that was not the agent.
    failures: HashMap<String, u64>,
    /// The call being flown, answered when its turn has played out.
    pending: Option<oneshot::Sender<CallReply>>,
    left: bool,
    /// The decision whose operator message was last passed on.
    heard: Option<usize>,
}

/// The policy could not be built.
#[derive(Debug, thiserror::Error)]
#[error("the turn schema of the catalogue: {0}")]
pub struct ClientPolicyError(String);

impl ClientPolicy {
    pub fn new(
        calls: mpsc::Receiver<CallRequest>,
        presence: watch::Receiver<Presence>,
        view: SessionView,
        control: Control,
        tools: Vec<ToolSpec>,
    ) -> Result<Self, ClientPolicyError> {
        let parser = TurnParser::new(&tools).map_err(|e| ClientPolicyError(e.to_string()))?;
        let read_only = read_only_tools(&tools);
        let acting = tools
            .iter()
            .filter(|t| t.kind == ToolKind::Mcp && !read_only.contains(&t.name))
            .map(|t| t.name)
            .collect();
        Ok(Self {
            calls,
            presence,
            parser,
            view,
            control,
            read_only,
            acting,
            failures: HashMap::new(),
            pending: None,
            left: false,
            heard: None,
        })
    }

    /// Passes what the loop shows before this decision to the resources.
    fn see(&mut self, ctx: &DecisionContext) {
        if let Ok(t) = serde_json::to_value(ctx.now.snapshot) {
            self.view.set_telemetry(t);
        }
        let decision = ctx.decision_index();
        if self.heard != Some(decision) {
            self.heard = Some(decision);
            if let Some(text) = &ctx.now.operator {
                self.view.heard_operator(decision, text);
            }
        }
    }

    async fn next_call(&mut self, deadline: Instant) -> Next {
        if *self.presence.borrow() == Presence::Left {
            return Next::Left;
        }
        tokio::select! {
            biased;
            () = left(&mut self.presence) => Next::Left,
            call = self.calls.recv() => call.map_or(Next::Left, Next::Call),
            () = tokio::time::sleep_until(deadline) => Next::Deadline,
        }
    }

    /// Why `call` may not act, if it may not: it acts and another session holds control.
    fn not_in_control(&self, call: &CallRequest) -> Option<String> {
        if !self.acting.contains(&call.name.as_str()) {
            return None;
        }
        let holder = self.control.may_act(&call.caller).err()?;
        Some(format!(
            "{holder} holds control of the vehicle; until that session ends, this session may call only {}",
            self.read_only.join(", ")
        ))
    }

    /// The error to record for a failed call of a session that is not the agent, `None` when
    /// this one goes unrecorded.
    fn sampled(&mut self, session: &str, error: &str) -> Option<String> {
        let n = self.failures.entry(session.to_string()).or_insert(0);
        *n += 1;
        (*n <= FAILURES_RECORDED || n.is_power_of_two())
            .then(|| format!("{error} [failed call {n} of this session]"))
    }
}

enum Next {
    Call(CallRequest),
    Left,
    Deadline,
}

/// Resolves when every session has gone (or nobody can say any more).
async fn left(presence: &mut watch::Receiver<Presence>) {
    let _ = presence.wait_for(|p| *p == Presence::Left).await;
}

fn attempt(n: usize, asked: Instant, completion: String, error: Option<String>) -> Attempt {
    Attempt {
        attempt: u32::try_from(n).unwrap_or(u32::MAX),
        prompt: String::new(),
        completion,
        prompt_tokens: 0,
        cached_tokens: 0,
        completion_tokens: 0,
        latency_ms: asked.elapsed().as_secs_f64() * 1000.0,
        ttft_ms: None,
        error,
        admissible: None,
    }
}

impl Policy for ClientPolicy {
    fn name(&self) -> &str {
        "mcp"
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            self.see(ctx);
            let asked = Instant::now();
            let mut attempts = Vec::new();
            // The agent's failed calls in this decision.
            let mut failed: u32 = 0;
            loop {
                if self.left {
                    let why = "the MCP client left".to_string();
                    attempts.push(attempt(
                        attempts.len() + 1,
                        asked,
                        String::new(),
                        Some(why.clone()),
                    ));
                    return Decision {
                        outcome: Err(GenerationFailure::Backend(why)),
                        attempts,
                    };
                }
                let call = match self.next_call(deadline).await {
                    Next::Call(c) => c,
                    Next::Left => {
                        self.left = true;
                        continue;
                    }
                    Next::Deadline => {
                        attempts.push(attempt(
                            attempts.len() + 1,
                            asked,
                            String::new(),
                            Some("the MCP client made no call by the deadline".into()),
                        ));
                        return Decision {
                            outcome: Err(GenerationFailure::Deadline),
                            attempts,
                        };
                    }
                };
                let agent = self.control.may_act(&call.caller).is_ok();
                let args = if call.arguments.is_null() {
                    json!({})
                } else {
                    call.arguments.clone()
                };
                // Who called is part of what was called: several sessions may share a flight.
                let completion = json!({
                    "tool": call.name,
                    "arguments": args,
                    "session": call.caller.session,
                    "client": call.caller.client,
                })
                .to_string();
                let (error, reply) = if let Some(over) = &call.over_cap {
                    let reason = over.to_string();
                    (reason.clone(), CallReply::Refused { reason })
                } else if let Some(reason) = self.not_in_control(&call) {
                    (reason.clone(), CallReply::Refused { reason })
                } else {
                    let turn = json!({
                        "intent": INTENT,
                        "actions": [{"type": "mcp", "name": call.name, "args": args}],
                    });
                    match self.parser.validate(turn) {
                        Ok(turn) => {
                            if self.acting.contains(&call.name.as_str()) {
                                // Nobody else holds it: `not_in_control` said so.
                                let _ = self.control.take(&call.caller);
                            }
                            attempts.push(attempt(attempts.len() + 1, asked, completion, None));
                            self.pending = Some(call.reply);
                            return Decision {
                                outcome: Ok(turn),
                                attempts,
                            };
                        }
                        Err(e) => {
                            let error = e.to_string();
                            (error.clone(), CallReply::Rejected { error })
                        }
                    }
                };
                let recorded = if agent {
                    Some(error.clone())
                } else {
                    self.sampled(&call.caller.session, &error)
                };
                if let Some(e) = recorded {
                    attempts.push(attempt(attempts.len() + 1, asked, completion, Some(e)));
                }
                // A client that hung up meanwhile hears nothing; the record has it.
                let _ = call.reply.send(reply);
                if agent {
                    failed += 1;
                    if failed >= MAX_ATTEMPTS {
                        return Decision {
                            outcome: Err(GenerationFailure::Invalid {
                                attempts: failed,
                                last_error: error,
                            }),
                            attempts,
                        };
                    }
                }
            }
        })
    }

    fn observe(&mut self, observations: &[ToolObservation], now: &VehicleSnapshot) {
        let telemetry = serde_json::to_value(now).unwrap_or(Value::Null);
        self.view.set_telemetry(telemetry.clone());
        let Some(reply) = self.pending.take() else {
            return;
        };
        let answer = match observations.first() {
            Some(o) => CallReply::observed(o.result.clone(), telemetry),
            None => CallReply::NotRun {
                reason: "the episode's tool-action budget is spent".into(),
            },
        };
        if reply.send(answer).is_ok() {
            self.view.update_status(|s| s.calls_run += 1);
        }
    }

    fn finished(&self) -> Option<String> {
        self.left.then(|| CLIENT_LEFT.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::caller::Caller;
    use crate::mcp::caps;
    use crate::mcp::presence::{Attendance, Seat};
    use crate::mcp::view::Status;
    use crate::policy::synthetic::first_context;
    use std::time::Duration;

    /// A policy with one client present (while the seat is held).
    fn policy() -> (ClientPolicy, mpsc::Sender<CallRequest>, Attendance, Seat) {
        let (tx, rx) = mpsc::channel(8);
        let attendance = Attendance::new();
        let seat = attendance.join();
        let view = SessionView::new(json!({}), Status::default());
        let control = Control::new(view.clone());
        let p = ClientPolicy::new(
            rx,
            attendance.watch(),
            view,
            control,
            alpha3_core::protocol::catalogue(),
        )
        .unwrap();
        (p, tx, attendance, seat)
    }

    fn send(
        tx: &mpsc::Sender<CallRequest>,
        name: &str,
        args: Value,
    ) -> oneshot::Receiver<CallReply> {
        send_as(tx, "s1", name, args)
    }

    fn send_as(
        tx: &mpsc::Sender<CallRequest>,
        session: &str,
        name: &str,
        args: Value,
    ) -> oneshot::Receiver<CallReply> {
        let (reply, answer) = oneshot::channel();
        tx.try_send(CallRequest {
            name: name.into(),
            over_cap: caps::check(name, &args).err(),
            arguments: args,
            caller: Caller::new(session, session, "1"),
            reply,
        })
        .unwrap();
        answer
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[tokio::test]
    async fn a_valid_call_is_the_turn_and_is_answered_with_its_observation() {
        let (mut p, tx, _a, _seat) = policy();
        let mut answer = send(&tx, "takeoff", json!({"altitude_m": 30.0}));
        let ctx = first_context();
        let d = p.decide(&ctx, soon()).await;
        let turn = d.outcome.unwrap();
        assert_eq!(turn.actions.len(), 1);
        assert_eq!(turn.actions[0].name(), "takeoff");
        assert_eq!(d.attempts.len(), 1);
        assert!(
            answer.try_recv().is_err(),
            "answered only after it played out"
        );
        let obs = [ToolObservation {
            name: "takeoff".into(),
            result: json!({"status": "denied", "findings": []}),
        }];
        p.observe(&obs, &ctx.now.snapshot);
        assert!(matches!(
            answer.try_recv().unwrap(),
            CallReply::Observed { refused: true, .. }
        ));
    }

    #[tokio::test]
    async fn schema_failures_are_attempts_answered_at_once_and_three_fail_the_decision() {
        let (mut p, tx, _a, _seat) = policy();
        let answers: Vec<_> = (0..3)
            .map(|_| send(&tx, "set_waypoint", json!({"waypoint": {"x": "far"}})))
            .collect();
        let d = p.decide(&first_context(), soon()).await;
        assert!(matches!(
            d.outcome,
            Err(GenerationFailure::Invalid { attempts: 3, .. })
        ));
        assert_eq!(d.attempts.len(), 3);
        for mut a in answers {
            assert!(matches!(a.try_recv().unwrap(), CallReply::Rejected { .. }));
        }
        // An unknown tool is refused the same way, then a valid call still makes the turn.
        let mut unknown = send(&tx, "fly_anywhere", json!({}));
        let _ok = send(&tx, "read_telemetry", json!({}));
        let d = p.decide(&first_context(), soon()).await;
        assert!(d.outcome.is_ok());
        assert_eq!(d.attempts.len(), 2);
        assert!(matches!(
            unknown.try_recv().unwrap(),
            CallReply::Rejected { .. }
        ));
    }

    #[tokio::test]
    async fn silence_misses_the_deadline_and_leaving_finishes_the_episode() {
        let (mut p, _tx, attendance, _seat) = policy();
        let d = p
            .decide(&first_context(), Instant::now() + Duration::from_millis(20))
            .await;
        assert_eq!(d.outcome, Err(GenerationFailure::Deadline));
        assert_eq!(p.finished(), None);
        attendance.all_leave();
        let d = p.decide(&first_context(), soon()).await;
        assert!(matches!(d.outcome, Err(GenerationFailure::Backend(_))));
        assert_eq!(p.finished().as_deref(), Some(CLIENT_LEFT));
    }

    #[tokio::test]
    async fn an_acting_call_of_another_session_is_refused_and_does_not_fail_the_holders_decision() {
        let (mut p, tx, _a, _seat) = policy();
        let _flown = send_as(&tx, "pilot", "takeoff", json!({"altitude_m": 30.0}));
        let d = p.decide(&first_context(), soon()).await;
        assert!(d.outcome.is_ok());
        let refused: Vec<_> = (0..4)
            .map(|_| send_as(&tx, "other", "set_speed", json!({"speed_mps": 5.0})))
            .collect();
        let _read = send_as(&tx, "other", "read_telemetry", json!({}));
        let d = p.decide(&first_context(), soon()).await;
        let turn = d.outcome.unwrap();
        assert_eq!(
            turn.actions[0].name(),
            "read_telemetry",
            "reads are open to all"
        );
        assert_eq!(d.attempts.len(), 5, "each refusal is recorded");
        assert!(d.attempts[0].completion.contains(r#""session":"other""#));
        for mut r in refused {
            let CallReply::Refused { reason } = r.try_recv().unwrap() else {
                panic!("not refused")
            };
            assert!(
                reason.starts_with("session pilot (client pilot 1) holds control"),
                "{reason}"
            );
        }
    }

    #[tokio::test]
    async fn a_call_over_a_cap_is_refused_and_recorded_as_an_excerpt() {
        let (mut p, tx, _a, _seat) = policy();
        let long = "A".repeat(100_000);
        let (reply, mut answer) = oneshot::channel();
        let args = json!({"sensor": long});
        tx.try_send(CallRequest {
            name: "activate_sensor".into(),
            over_cap: caps::check("activate_sensor", &args).err(),
            arguments: crate::mcp::excerpt::arguments(&args),
            caller: Caller::new("s1", "c", "1"),
            reply,
        })
        .unwrap();
        let _ok = send(&tx, "read_telemetry", json!({}));
        let d = p.decide(&first_context(), soon()).await;
        assert!(d.outcome.is_ok());
        let first = &d.attempts[0];
        assert!(first.completion.len() < 400, "{}", first.completion);
        assert!(first.completion.contains("[truncated, 100000 bytes]"));
        assert!(first.error.as_deref().unwrap().contains("256-byte cap"));
        assert!(matches!(
            answer.try_recv().unwrap(),
            CallReply::Refused { .. }
        ));
    }

    #[tokio::test]
    async fn a_session_that_keeps_failing_is_recorded_sparsely() {
        let (mut p, _tx, _a, _seat) = policy();
        let recorded = (0..40)
            .filter(|_| p.sampled("other", "refused").is_some())
            .count();
        assert_eq!(recorded, 17, "the first 16, then the 32nd");
        assert_eq!(
            p.sampled("third", "refused").as_deref(),
            Some("refused [failed call 1 of this session]")
        );
    }
}
