//! The link task: owns the transport and the [`Session`], moves bytes and time between them,
//! reopens the transport when it fails (autopilot reboot, cable pull) while the session — and
//! with it the snapshot, the statistics and any pending command — lives on.

use super::foreign_log::ForeignLog;
use super::simulator_watch::SimulatorWatch;
use super::transport::{Transport, open};
use crate::error::HilError;
use crate::heartbeat::AutopilotInfo;
use crate::measure::LinkMeasurement;
use crate::mission::MissionEvent;
use crate::param::ParamValue;
use crate::profile::Profile;
use crate::readiness::Readiness;
use crate::session::{Event, ForeignFrames, MissionRequest, ProcedureReport, Session};
use crate::simulator::{SimulatorCheck, SimulatorPolicy};
use crate::telemetry::Seen;
use crate::tlog::TlogWriter;
use crate::vehicle_clock::ClockReading;
use alpha3_core::command::Command;
use alpha3_core::config::Address;
use alpha3_core::snapshot::VehicleSnapshot;
use std::collections::BTreeMap;
use std::io;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

/// A write that does not finish in this time counts as a dead transport.
const WRITE_STALL: Duration = Duration::from_millis(1000);
/// Opening (TCP connect/accept, a serial port) may take this long per try.
const OPEN_TIMEOUT: Duration = Duration::from_millis(500);
const PUBLISH_EVERY_US: u64 = 100_000;
const MAX_BACKOFF_MS: u64 = 2000;

type ParamReply = oneshot::Sender<BTreeMap<String, ParamValue>>;

/// A request from a [`HilLink`](super::HilLink) handle.
#[derive(Debug)]
pub(crate) enum Request {
    Command {
        command: Command,
        reply: oneshot::Sender<Result<ProcedureReport, HilError>>,
    },
    ReadParams {
        names: Vec<String>,
        reply: ParamReply,
    },
    WriteParams {
        writes: Vec<(String, f64)>,
        reply: WriteReply,
    },
    /// One mission-protocol transfer; the reply is its outcome event.
    Mission {
        request: MissionRequest,
        reply: MissionReply,
    },
    /// A STATUSTEXT for the ground station.
    Tell {
        severity: crate::dialect::mav::MavSeverity,
        text: String,
    },
    /// Positions relative to this point from now on (`None`: the autopilot's home).
    SetOrigin {
        origin: Option<alpha3_core::frames::Geo>,
        reply: oneshot::Sender<()>,
    },
}

type WriteReply = oneshot::Sender<Result<BTreeMap<String, ParamValue>, HilError>>;
pub(crate) type MissionReply = oneshot::Sender<Result<MissionEvent, HilError>>;

/// The link as the task last saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkStatus {
    pub autopilot: Option<AutopilotInfo>,
    pub profile: Option<Profile>,
    pub seen: Seen,
    pub autopilot_lost: bool,
    pub transport_open: bool,
    /// Times the transport had to be reopened.
    pub reopened: u32,
    pub last_error: Option<String>,
    /// Why the autopilot cannot be flown with this configuration, if it cannot.
    pub refused: Option<String>,
    /// The network address of the autopilot's end (none for a serial port).
    pub peer: Option<std::net::SocketAddr>,
    pub measurement: LinkMeasurement,
    /// What the autopilot last said about being ready to arm.
    pub readiness: Readiness,
    /// Telemetry streams asked for that have not arrived (message ids).
    pub missing_streams: Vec<u32>,
    /// Frames from anyone but the autopilot the link is bound to, dropped unread.
    pub foreign: ForeignFrames,
    /// Whether the autopilot is a simulator, as it says itself ([`crate::simulator`]).
    pub simulator: SimulatorCheck,
    /// How often the autopilot said a plan of each kind changed under us (PX4's MISSION_CURRENT
    /// ids; by [`crate::mission::MissionKind::index`]): a copy downloaded before a change is
    /// stale, so a caller compares with the count it last acted on.
    pub plan_changes: [u32; 3],
    /// The autopilot's last MISSION_CURRENT: where it is in its mission.
    pub mission_current: Option<crate::mission::MissionCurrent>,
    /// The last mission item the autopilot said it reached (MISSION_ITEM_REACHED).
    pub mission_reached: Option<u16>,
}

/// Channels from the task to the handle.
#[derive(Debug)]
pub(crate) struct Outputs {
    pub snapshot: watch::Sender<VehicleSnapshot>,
    pub clock: watch::Sender<Option<ClockReading>>,
    pub status: watch::Sender<LinkStatus>,
    pub events: broadcast::Sender<Event>,
}

#[derive(Debug)]
pub(crate) struct Driver {
    pub address: Address,
    pub session: Session,
    pub transport: Option<Transport>,
    pub epoch: Instant,
    pub requests: mpsc::Receiver<Request>,
    pub out: Outputs,
    pub status: LinkStatus,
    pending_commands: Vec<(u64, oneshot::Sender<Result<ProcedureReport, HilError>>)>,
    pending_params: Vec<(Vec<String>, ParamReply)>,
    pending_writes: Vec<(Vec<String>, WriteReply)>,
    /// The caller of the transfer in progress (one at a time).
    pending_mission: Option<MissionReply>,
    next_publish_us: u64,
    reopen_at_us: u64,
    backoff_ms: u64,
    /// The telemetry log of every frame both ways, when asked for.
    tlog: Option<TlogWriter>,
    simulator: SimulatorWatch,
    foreign_log: ForeignLog,
}

/// What the link task is given besides its channels.
#[derive(Debug)]
pub(crate) struct DriverSetup {
    pub address: Address,
    pub session: Session,
    pub transport: Transport,
    pub epoch: Instant,
    pub tlog: Option<TlogWriter>,
    pub simulator: SimulatorPolicy,
}

impl Driver {
    pub fn new(setup: DriverSetup, requests: mpsc::Receiver<Request>, out: Outputs) -> Self {
        let DriverSetup {
            address,
            mut session,
            transport,
            epoch,
            tlog,
            simulator,
        } = setup;
        if let Some(peer) = transport.fixed_peer() {
            session.fix_peer_address(peer);
        }
        let simulator = SimulatorWatch::new(simulator);
        simulator.configure(&mut session);
        Self {
            address,
            session,
            transport: Some(transport),
            epoch,
            requests,
            out,
            status: LinkStatus {
                transport_open: true,
                simulator: simulator.initial(),
                ..LinkStatus::default()
            },
            pending_commands: Vec::new(),
            pending_params: Vec::new(),
            pending_writes: Vec::new(),
            pending_mission: None,
            next_publish_us: 0,
            reopen_at_us: 0,
            backoff_ms: 100,
            tlog,
            simulator,
            foreign_log: ForeignLog::default(),
        }
    }

    /// Logs bytes that crossed the link; a log that cannot be written is closed, never the link.
    fn tap(&mut self, incoming: bool, bytes: &[u8]) {
        let Some(log) = self.tlog.as_mut() else {
            return;
        };
        let unix_us = crate::tlog::unix_now_us();
        let written = if incoming {
            log.incoming(unix_us, bytes)
        } else {
            log.write_frame(unix_us, bytes)
        };
        if let Err(e) = written {
            tracing::error!(path = %log.path().display(), error = %e, "telemetry log failed; closing it");
            self.tlog = None;
        }
    }

    fn now_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// Runs until every handle is gone.
    pub async fn run(mut self) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut frame = Vec::with_capacity(300);
        loop {
            if self.transport.is_none() && self.now_us() >= self.reopen_at_us {
                self.reopen().await;
            }
            let now = self.now_us();
            self.session.handle_timeout(now);
            if let Err(e) = self.flush(now, &mut frame).await {
                self.lost_transport(e);
            }
            // The snapshot first: a reply must never arrive before the telemetry behind it.
            self.publish_snapshot();
            self.drain_events();
            self.publish_status(now);
            let wake = self.wake_at(now);
            tokio::select! {
                r = recv(&mut self.transport, &mut buf) => match r {
                    Ok(n) => {
                        let now = self.now_us();
                        self.tap(true, &buf[..n]);
                        self.ingest(now, &buf[..n]);
                    }
                    Err(e) => self.lost_transport(e),
                },
                request = self.requests.recv() => match request {
                    Some(r) => self.handle_request(r),
                    None => return,
                },
                () = tokio::time::sleep_until(wake) => {}
            }
        }
    }

    /// Hands what was read to the session, with its sender for datagrams; replies go to the
    /// address the session bound the autopilot to, never simply to the last sender.
    fn ingest(&mut self, now: u64, bytes: &[u8]) {
        let Some(t) = self.transport.as_mut() else {
            return;
        };
        match t.last_sender() {
            Some(from) => self.session.handle_datagram(now, from, bytes),
            None => self.session.handle_bytes(now, bytes),
        }
        if let Some(peer) = self.session.peer_address() {
            t.aim(peer);
        }
    }

    fn wake_at(&self, now: u64) -> Instant {
        let mut at = self.session.poll_timeout().unwrap_or(now + 1_000_000);
        at = at.min(self.next_publish_us);
        if self.transport.is_none() {
            at = at.min(self.reopen_at_us);
        }
        self.epoch + Duration::from_micros(at.max(now))
    }

    /// Writes every frame due; without a transport they are dropped, never queued for later.
    async fn flush(&mut self, now: u64, frame: &mut Vec<u8>) -> io::Result<()> {
        loop {
            frame.clear();
            if self.session.poll_transmit(now, frame).is_none() {
                return Ok(());
            }
            if let Some(t) = self.transport.as_mut() {
                let sent = tokio::time::timeout(WRITE_STALL, t.send(frame))
                    .await
                    .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "write stalled"))??;
                if sent {
                    self.tap(false, frame);
                }
            }
        }
    }

    fn lost_transport(&mut self, e: io::Error) {
        tracing::warn!(address = %self.address, error = %e, "link lost; reopening");
        self.session.note_io_error();
        self.status.last_error = Some(e.to_string());
        self.status.transport_open = false;
        self.simulator.reset(&mut self.status.simulator);
        self.transport = None;
        self.reopen_at_us = self.now_us() + self.backoff_ms * 1000;
        self.next_publish_us = 0;
    }

    async fn reopen(&mut self) {
        match tokio::time::timeout(OPEN_TIMEOUT, open(&self.address)).await {
            Ok(Ok(mut t)) => {
                tracing::info!(address = %self.address, "link reopened");
                self.session.transport_reopened();
                if let Some(peer) = t.fixed_peer() {
                    self.session.fix_peer_address(peer);
                } else if let Some(peer) = self.session.peer_address() {
                    t.aim(peer);
                }
                self.transport = Some(t);
                self.status.transport_open = true;
                self.status.reopened += 1;
                self.backoff_ms = 100;
            }
            Ok(Err(e)) => {
                self.session.note_io_error();
                self.status.last_error = Some(e.to_string());
                self.backoff_ms = (self.backoff_ms * 2).min(MAX_BACKOFF_MS);
            }
            Err(_) => self.backoff_ms = (self.backoff_ms * 2).min(MAX_BACKOFF_MS),
        }
        self.reopen_at_us = self.now_us() + self.backoff_ms * 1000;
        self.next_publish_us = 0;
    }

    fn handle_request(&mut self, request: Request) {
        let now = self.now_us();
        match request {
            Request::Command { command, reply } => {
                if let Err(e) = self.simulator.allows(&self.status.simulator) {
                    let _ = reply.send(Err(e));
                    return;
                }
                match self.session.start_command(now, &command) {
                    Ok(id) => self.pending_commands.push((id, reply)),
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Request::Mission { request, reply } => {
                if self.pending_mission.is_some() {
                    let _ = reply.send(Err(HilError::Busy("a mission transfer")));
                    return;
                }
                match self.session.start_mission(now, request) {
                    Ok(()) => self.pending_mission = Some(reply),
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Request::Tell { severity, text } => self.session.tell_ground_station(severity, &text),
            Request::SetOrigin { origin, reply } => {
                self.session.set_frame_origin(origin);
                // Published before the reply: the caller's next snapshot is in the new frame.
                self.publish_snapshot();
                let _ = reply.send(());
            }
            Request::ReadParams { names, reply } => {
                self.session.read_params(now, &names);
                self.pending_params.push((names, reply));
            }
            Request::WriteParams { writes, reply } => {
                // All or nothing: every name is checked before anything is sent.
                let refused = self
                    .simulator
                    .allows(&self.status.simulator)
                    .err()
                    .or_else(|| {
                        writes.iter().find_map(|(name, _)| {
                            self.session.config().param_writes_allowed.check(name).err()
                        })
                    });
                if let Some(e) = refused {
                    let _ = reply.send(Err(e));
                    return;
                }
                for (name, value) in &writes {
                    if let Err(e) = self.session.write_param(now, name, *value) {
                        let _ = reply.send(Err(e));
                        return;
                    }
                }
                let names = writes.into_iter().map(|(n, _)| n).collect();
                self.pending_writes.push((names, reply));
            }
        }
    }

    fn drain_events(&mut self) {
        while let Some(event) = self.session.poll_event() {
            match &event {
                Event::ProcedureDone(report) => {
                    if let Some(i) = self
                        .pending_commands
                        .iter()
                        .position(|(id, _)| *id == report.id)
                    {
                        let (_, reply) = self.pending_commands.swap_remove(i);
                        // The caller may have given up waiting; the procedure still ran.
                        let _ = reply.send(Ok(report.clone()));
                    }
                }
                Event::AutopilotRefused(why) => self.status.refused = Some(why.clone()),
                Event::AutopilotFound { .. }
                | Event::AutopilotBack
                | Event::AutopilotRejoined { .. } => {
                    tracing::info!(?event, "link");
                    let now = self.now_us();
                    self.simulator
                        .ask(now, &mut self.session, &mut self.status.simulator);
                }
                Event::Text(t) => {
                    tracing::info!(severity = ?t.severity, text = %t.text, "autopilot")
                }
                Event::LateAck { command, result } => {
                    tracing::warn!(?command, ?result, "late ACK for a command given up on");
                }
                Event::Rejected(r) => tracing::debug!(reason = ?r.reason, "frame refused"),
                Event::Mission(m) => {
                    tracing::info!(event = ?MissionNews(m), "mission protocol");
                    if let MissionEvent::PlanChanged { kind } = m {
                        let n = &mut self.status.plan_changes[kind.index()];
                        *n = n.saturating_add(1);
                    }
                    if let MissionEvent::Reached { seq } = m {
                        self.status.mission_reached = Some(*seq);
                    }
                    if m.is_outcome()
                        && let Some(reply) = self.pending_mission.take()
                    {
                        let _ = reply.send(Ok(m.clone()));
                    }
                }
                _ => tracing::info!(?event, "link"),
            }
            self.next_publish_us = 0;
            // No subscriber is not an error: the events are also in the status and replies.
            let _ = self.out.events.send(event);
        }
        let peer = self.transport.as_ref().and_then(Transport::peer);
        if self
            .simulator
            .judge(&self.session, peer, &mut self.status.simulator)
        {
            self.next_publish_us = 0;
        }
        if self.session.params_done() && !self.pending_writes.is_empty() {
            let values = self.session.params();
            let failed = self.session.params_failed();
            for (names, reply) in self.pending_writes.drain(..) {
                let answer = match names.iter().find(|n| failed.contains(*n)) {
                    Some(n) => Err(HilError::Param {
                        name: n.clone(),
                        reason: "the autopilot did not confirm the new value".into(),
                    }),
                    None => Ok(names
                        .iter()
                        .filter_map(|n| values.get(n).map(|v| (n.clone(), *v)))
                        .collect()),
                };
                let _ = reply.send(answer);
            }
        }
        if self.session.params_done() && !self.pending_params.is_empty() {
            let values = self.session.params();
            for (names, reply) in self.pending_params.drain(..) {
                let wanted = names
                    .iter()
                    .filter_map(|n| values.get(n).map(|v| (n.clone(), *v)))
                    .collect();
                let _ = reply.send(wanted);
            }
        }
    }

    fn publish_snapshot(&mut self) {
        let clock = self.session.vehicle_clock();
        self.out.clock.send_if_modified(|c| {
            let changed = *c != clock;
            *c = clock;
            changed
        });
        let snap = self.session.snapshot();
        self.out.snapshot.send_if_modified(|s| {
            let changed = *s != snap;
            *s = snap;
            changed
        });
    }

    fn publish_status(&mut self, now: u64) {
        if now < self.next_publish_us {
            return;
        }
        self.next_publish_us = now + PUBLISH_EVERY_US;
        if let Some(log) = self.tlog.as_mut()
            && let Err(e) = log.flush()
        {
            tracing::error!(error = %e, "telemetry log failed; closing it");
            self.tlog = None;
        }
        self.status.autopilot = self.session.autopilot();
        self.status.profile = self.session.profile();
        self.status.seen = self.session.telemetry().seen();
        self.status.autopilot_lost = self.session.is_autopilot_lost();
        self.status.peer = self.transport.as_ref().and_then(Transport::peer);
        self.status.measurement = self.session.measure(now);
        self.status.readiness = self.session.readiness().clone();
        self.status.missing_streams = self.session.missing_streams();
        self.status.foreign = self.session.foreign_frames();
        self.status.mission_current = self.session.mission_current();
        self.foreign_log.note(now, self.status.foreign);
        self.out.status.send_replace(self.status.clone());
    }
}

/// A mission event for the log: a downloaded plan by its size, not every item.
struct MissionNews<'a>(&'a MissionEvent);

impl std::fmt::Debug for MissionNews<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            MissionEvent::Downloaded {
                kind,
                items,
                opaque_id,
                ..
            } => write!(
                f,
                "downloaded {kind}: {} items, id {opaque_id}",
                items.len()
            ),
            other => write!(f, "{other:?}"),
        }
    }
}

/// Reads from the transport, or waits forever while there is none.
async fn recv(transport: &mut Option<Transport>, buf: &mut [u8]) -> io::Result<usize> {
    match transport {
        Some(t) => t.recv(buf).await,
        None => std::future::pending().await,
    }
}
