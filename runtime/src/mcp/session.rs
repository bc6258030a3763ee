//! One `alpha3 mcp` run: the transport serves MCP sessions while one episode flies. The episode
//! starts when the first client has initialised, runs the ordinary closed loop with the
//! [`ClientPolicy`] as its policy (so the gate, slice policy, watchdog, hand-over and record
//! are `fly`'s), and ends like any episode or when every client left; the server then answers
//! calls with the episode's end until the last client goes.

use super::call::CallRequest;
use super::client_policy::ClientPolicy;
use super::control::Control;
use super::http;
use super::listen::Listen;
use super::presence::{Attendance, Presence};
use super::server::McpServer;
use super::stdio::GuardedStdio;
use super::tools;
use super::view::SessionView;
use crate::agent::{EpisodeOutcome, Surroundings, run_episode_on};
use crate::episode_setup::{EpisodeSettings, HandoverCut};
use crate::recorder::Recorder;
use alpha3_core::gate::GateContext;
use alpha3_core::protocol::catalogue;
use alpha3_core::record::Event;
use alpha3_core::vehicle::VehicleLink;
use rmcp::ServiceExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;

/// Calls that may wait for the loop at once (a client's calls are flown one at a time).
const CALL_QUEUE: usize = 8;

/// How clients reach the server.
#[derive(Debug, Clone)]
pub enum Transport {
    /// Standard input and output (one client: the process that started us).
    Stdio,
    /// Streamable HTTP on `/mcp`.
    Http(Listen),
}

/// The session's failures (the episode's own end is an outcome, not an error).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("listening for MCP clients: {0}")]
    Listen(#[source] std::io::Error),
    #[error(transparent)]
    Policy(#[from] super::client_policy::ClientPolicyError),
    #[error(transparent)]
    Record(#[from] crate::recorder::RecorderError),
}

/// What the episode is flown with.
#[derive(Debug)]
pub struct Episode<'a, V> {
    pub side: &'a mut V,
    pub gate: &'a mut GateContext,
    pub settings: &'a EpisodeSettings,
    pub recorder: &'a mut Recorder,
    /// The record's first line; its policy and model are filled in with the client's name.
    pub header: Event,
}

/// Serves `transport` and flies `episode` for the clients; returns the episode's outcome, or
/// `None` when every client left before one initialised.
pub async fn run<V: VehicleLink + Surroundings>(
    transport: Transport,
    episode: Episode<'_, V>,
    view: SessionView,
) -> Result<Option<EpisodeOutcome>, SessionError> {
    let (calls_tx, calls_rx) = mpsc::channel::<CallRequest>(CALL_QUEUE);
    let attendance = Attendance::new();
    let control = Control::new(view.clone());
    // The benchmark's catalogue; a plan flown on an autopilot adds the handed-over mission's.
    let mut offered = catalogue();
    if episode.side.handed_route().is_some() {
        offered.extend(alpha3_core::protocol::mission_tools());
    }
    let tools = Arc::new(tools::tools(&offered));
    let make = {
        let (view, attendance, control) = (view.clone(), attendance.clone(), control.clone());
        let stdio = matches!(transport, Transport::Stdio);
        let sessions = AtomicU64::new(0);
        move || {
            // Named by the transport's session id once it has one; this is for calls without.
            let n = sessions.fetch_add(1, Ordering::Relaxed) + 1;
            let fallback = if stdio {
                "stdio".to_string()
            } else {
                format!("http-{n}")
            };
            McpServer::new(
                calls_tx.clone(),
                view.clone(),
                attendance.clone(),
                tools.clone(),
                control.clone(),
                fallback,
            )
        }
    };
    let stop_http = match transport {
        Transport::Stdio => {
            let server = make();
            let attendance = attendance.clone();
            tokio::spawn(async move {
                match server.serve(GuardedStdio::stdio()).await {
                    Ok(running) => {
                        let _ = running.waiting().await;
                    }
                    Err(e) => tracing::warn!("MCP over stdio: {e}"),
                }
                attendance.all_leave();
            });
            None
        }
        Transport::Http(listen) => {
            let running = http::start(listen, make)
                .await
                .map_err(SessionError::Listen)?;
            eprintln!(
                "alpha3 mcp: listening on http://{}{}",
                running.addr,
                http::PATH
            );
            Some(running)
        }
    };
    tokio::spawn(stop_on_signal(
        attendance.clone(),
        episode.settings.handover_cut.clone(),
    ));
    let mut presence = attendance.watch();
    let _ = presence.wait_for(|p| *p != Presence::Waiting).await;
    if attendance.now() == Presence::Left {
        return Ok(None);
    }
    let mut policy =
        ClientPolicy::new(calls_rx, attendance.watch(), view.clone(), control, offered)?;
    let Episode {
        side,
        gate,
        settings,
        recorder,
        mut header,
    } = episode;
    if let Event::Header { policy, model, .. } = &mut header {
        *policy = "mcp".into();
        *model = view.status().client;
    }
    view.update_status(|s| s.started = true);
    recorder.append(side.now_ms(), header)?;
    recorder.flush()?;
    let outcome = run_episode_on(side, &mut policy, gate, settings, recorder).await?;
    view.update_status(|s| {
        s.ended = Some(outcome.reason.clone());
        s.success = Some(outcome.success);
    });
    // Calls waiting for the loop are answered with the episode's end from here on.
    drop(policy);
    eprintln!(
        "alpha3 mcp: {} after {} turns ({} tool actions)",
        outcome.reason, outcome.turns, outcome.tool_actions
    );
    let _ = presence.wait_for(|p| *p == Presence::Left).await;
    if let Some(running) = stop_http {
        running.stop();
    }
    Ok(Some(outcome))
}

/// SIGINT or SIGTERM: every client is taken to have left, so the episode ends and the failsafe
/// brings the vehicle down before the process exits. A signal once the clients have left (an
/// MCP SDK sends SIGTERM two seconds after its client leaves, SIGKILL two seconds later) cuts
/// the wait for the landing short: the vehicle keeps its failsafe command, and the record gets
/// its last line before the kill.
async fn stop_on_signal(attendance: Attendance, cut: HandoverCut) {
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    let Ok(mut term) = term else {
        let _ = tokio::signal::ctrl_c().await;
        attendance.all_leave();
        cut.cut();
        return;
    };
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        if attendance.now() == Presence::Left {
            eprintln!("alpha3 mcp: stopping now: the vehicle is left to its failsafe command");
            cut.cut();
            return;
        }
        eprintln!("alpha3 mcp: stopping: the episode ends and the failsafe lands the vehicle");
        attendance.all_leave();
    }
}
