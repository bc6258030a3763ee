//! [`HilLink`]: the `VehicleLink` of a real autopilot. Connecting waits for the autopilot's
//! heartbeat, home and position, then runs preflight; sending forwards only gate-approved
//! commands to the link task and returns once telemetry confirmed them (or did not).

use super::clock::LinkClock;
use super::driver::{Driver, DriverSetup, LinkStatus, Outputs, Request};
use super::transport::open;
use crate::error::HilError;
use crate::measure::LinkMeasurement;
use crate::mission::{MissionEvent, MissionItem, MissionKind};
use crate::param::ParamValue;
use crate::preflight::PreflightReport;
use crate::procedure::ProcedureOutcome;
use crate::session::{Event, MissionRequest, ProcedureReport, Session, SessionConfig};
use crate::simulator::{SimulatorCheck, SimulatorPolicy};
use crate::tlog::TlogWriter;
use crate::vehicle_clock::ClockReading;
use crate::wire::signing_now;
use alpha3_core::command::Command;
use alpha3_core::config::{Address, LinkConfig};
use alpha3_core::gate::ApprovedCommand;
use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::{LinkError, SendReceipt, VehicleLink};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// What [`HilLink::connect`] waits for and checks.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectOptions {
    /// For the heartbeat, and then for home and a position.
    pub ready_timeout_ms: u64,
    /// Read the autopilot's failsafe parameters before returning.
    pub preflight: bool,
    /// Failsafe parameters that must be on; connecting fails otherwise.
    pub required_failsafes: Vec<String>,
    /// Write every frame of the link, both ways, to this `.tlog` file.
    pub tlog: Option<std::path::PathBuf>,
    /// Ask the autopilot whether it is a simulator (at connect, which then waits for the
    /// answer, and on every reconnect), and whether to fly nothing else.
    pub simulator: SimulatorPolicy,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            ready_timeout_ms: 30_000,
            preflight: true,
            required_failsafes: Vec::new(),
            tlog: None,
            simulator: SimulatorPolicy::Ignore,
        }
    }
}

/// A connected autopilot.
#[derive(Debug)]
pub struct HilLink {
    address: Address,
    requests: mpsc::Sender<Request>,
    snapshot: watch::Receiver<VehicleSnapshot>,
    status: watch::Receiver<LinkStatus>,
    events: broadcast::Sender<Event>,
    clock: LinkClock,
    preflight: Option<PreflightReport>,
    simulator: SimulatorPolicy,
    task: JoinHandle<()>,
}

impl HilLink {
    /// Connects as the `[link]` config section says.
    pub async fn connect(link: &LinkConfig) -> Result<Self, HilError> {
        let address = Address::parse(&link.connect).map_err(|e| HilError::Config(e.to_string()))?;
        let options = ConnectOptions {
            required_failsafes: link.required_failsafes.clone(),
            ..ConnectOptions::default()
        };
        Self::connect_with(address, SessionConfig::from_link_config(link)?, options).await
    }

    /// Connects with explicit session settings.
    pub async fn connect_with(
        address: Address,
        cfg: SessionConfig,
        options: ConnectOptions,
    ) -> Result<Self, HilError> {
        let session = Session::new(cfg, signing_now())?;
        let tlog = match &options.tlog {
            Some(path) => Some(TlogWriter::create(path).map_err(|source| HilError::Open {
                address: path.display().to_string(),
                source,
            })?),
            None => None,
        };
        let transport = open(&address).await.map_err(|source| HilError::Open {
            address: address.to_string(),
            source,
        })?;
        let epoch = Instant::now();
        let (req_tx, req_rx) = mpsc::channel(16);
        let (snap_tx, snap_rx) = watch::channel(session.snapshot());
        let (clock_tx, clock_rx) = watch::channel(None);
        let (status_tx, status_rx) = watch::channel(LinkStatus::default());
        let (event_tx, _) = broadcast::channel(256);
        let out = Outputs {
            snapshot: snap_tx,
            clock: clock_tx,
            status: status_tx,
            events: event_tx.clone(),
        };
        let driver = Driver::new(
            DriverSetup {
                address: address.clone(),
                session,
                transport,
                epoch,
                tlog,
                simulator: options.simulator,
            },
            req_rx,
            out,
        );
        let task = tokio::spawn(driver.run());
        let mut link = Self {
            address,
            requests: req_tx,
            snapshot: snap_rx,
            status: status_rx,
            events: event_tx,
            clock: LinkClock::new(epoch, clock_rx),
            preflight: None,
            simulator: options.simulator,
            task,
        };
        link.wait_ready(options.ready_timeout_ms).await?;
        if options.simulator != SimulatorPolicy::Ignore {
            link.wait_simulator_verdict(options.ready_timeout_ms)
                .await?;
        }
        if options.preflight {
            let report = link.run_preflight(&options.required_failsafes).await?;
            let refusals = report.refusals();
            if !refusals.is_empty() {
                return Err(HilError::PreflightRefused(format!(
                    "{}\n{report}",
                    refusals.join("; ")
                )));
            }
            link.preflight = Some(report);
        }
        Ok(link)
    }

    /// The first status that satisfies `ready`, or `None` at the deadline.
    async fn wait_status(
        &mut self,
        deadline: Instant,
        ready: impl FnMut(&LinkStatus) -> bool,
    ) -> Result<Option<LinkStatus>, HilError> {
        let waited = tokio::time::timeout_at(deadline, async {
            self.status.wait_for(ready).await.map(|s| s.clone())
        })
        .await;
        match waited {
            Ok(Ok(s)) => Ok(Some(s)),
            Ok(Err(_)) => Err(HilError::Stopped),
            Err(_) => Ok(None),
        }
    }

    async fn wait_ready(&mut self, timeout_ms: u64) -> Result<(), HilError> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let found = self
            .wait_status(deadline, |s| {
                s.autopilot.is_some() && (s.profile.is_some() || s.refused.is_some())
            })
            .await?;
        let Some(status) = found else {
            return Err(HilError::NoAutopilot {
                address: self.address.to_string(),
                timeout_ms,
            });
        };
        if let Some(why) = status.refused {
            return Err(HilError::Config(why));
        }
        let ready = self
            .wait_status(deadline, |s| {
                s.seen.home && s.seen.position && s.seen.heartbeat
            })
            .await?;
        if ready.is_some() {
            return Ok(());
        }
        let s = self.status.borrow().seen;
        let mut missing = vec![];
        if !s.home {
            missing.push("HOME_POSITION");
        }
        if !s.position {
            missing.push("a position");
        }
        Err(HilError::NotReady {
            missing: missing.join(", "),
            timeout_ms,
        })
    }

    /// Waits until the autopilot's answer to "are you a simulator?" was judged.
    async fn wait_simulator_verdict(&mut self, timeout_ms: u64) -> Result<(), HilError> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let judged = self
            .wait_status(deadline, |s| s.simulator != SimulatorCheck::Checking)
            .await?;
        match judged {
            Some(_) => Ok(()),
            None => Err(HilError::NotReady {
                missing: "an answer to the simulator check".into(),
                timeout_ms,
            }),
        }
    }

    async fn run_preflight(&self, required: &[String]) -> Result<PreflightReport, HilError> {
        let profile = self.status.borrow().profile.ok_or(HilError::Stopped)?;
        let names = PreflightReport::names(profile, required);
        let values = self.read_params(names).await?;
        Ok(PreflightReport::evaluate(profile, required, &values))
    }

    /// Reads parameters (values decoded per the autopilot's encoding); unanswered names are
    /// missing from the map.
    pub async fn read_params(
        &self,
        names: Vec<String>,
    ) -> Result<BTreeMap<String, ParamValue>, HilError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request::ReadParams { names, reply })
            .await
            .map_err(|_| HilError::Stopped)?;
        answer.await.map_err(|_| HilError::Stopped)
    }

    /// Writes autopilot parameters (each read first, so the write keeps its type) and returns
    /// the values the autopilot confirmed. Fence, failsafe, arming and system-id parameters
    /// are refused — before any PARAM_SET is sent — unless the session's config named each one.
    pub async fn write_params(
        &self,
        writes: Vec<(String, f64)>,
    ) -> Result<BTreeMap<String, ParamValue>, HilError> {
        let names: Vec<String> = writes.iter().map(|(n, _)| n.clone()).collect();
        let known = self.read_params(names.clone()).await?;
        if let Some(missing) = names.iter().find(|n| !known.contains_key(*n)) {
            return Err(HilError::Param {
                name: missing.clone(),
                reason: "the autopilot does not have it".into(),
            });
        }
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request::WriteParams { writes, reply })
            .await
            .map_err(|_| HilError::Stopped)?;
        answer.await.map_err(|_| HilError::Stopped)?
    }

    /// Hands one mission-protocol transfer to the link task and waits for its outcome.
    async fn mission(&self, request: MissionRequest) -> Result<MissionEvent, HilError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request::Mission { request, reply })
            .await
            .map_err(|_| HilError::Stopped)?;
        match answer.await.map_err(|_| HilError::Stopped)?? {
            MissionEvent::Failed { why, .. } => Err(HilError::Mission(why)),
            outcome => Ok(outcome),
        }
    }

    /// Reads the autopilot's `kind` plan (its mission, fence or rally points), with the
    /// protocol's retries and timeouts; a partial transfer is an error, never a short plan.
    pub async fn download_plan(&self, kind: MissionKind) -> Result<DownloadedPlan, HilError> {
        match self.mission(MissionRequest::Download(kind)).await? {
            MissionEvent::Downloaded {
                items,
                home,
                opaque_id,
                ..
            } => Ok(DownloadedPlan {
                items,
                home,
                opaque_id,
            }),
            other => Err(HilError::Config(format!(
                "download of the {kind} plan ended in {other:?}"
            ))),
        }
    }

    /// Replaces the autopilot's `kind` plan with `items`; returns the plan's id (PX4's CRC,
    /// 0 on ArduPilot).
    pub async fn upload_plan(
        &self,
        kind: MissionKind,
        items: Vec<MissionItem>,
    ) -> Result<u32, HilError> {
        match self.mission(MissionRequest::Upload(kind, items)).await? {
            MissionEvent::Uploaded { opaque_id, .. } => Ok(opaque_id),
            other => Err(HilError::Config(format!(
                "upload of the {kind} plan ended in {other:?}"
            ))),
        }
    }

    /// Clears the autopilot's `kind` plan.
    pub async fn clear_plan(&self, kind: MissionKind) -> Result<(), HilError> {
        self.mission(MissionRequest::Clear(kind)).await.map(|_| ())
    }

    /// Says `text` to the ground station as a STATUSTEXT WARNING (why alpha3 refused something,
    /// where the pilot looks). Never waits: when the link task is busy the text is dropped and
    /// logged, since the record holds it anyway.
    pub fn tell_ground_station(&self, text: &str) {
        let request = Request::Tell {
            severity: crate::dialect::mav::MavSeverity::MAV_SEVERITY_WARNING,
            text: text.to_string(),
        };
        if self.requests.try_send(request).is_err() {
            tracing::debug!(text, "link busy; STATUSTEXT for the ground station dropped");
        }
    }

    /// The failsafe report read at connect time.
    pub fn preflight(&self) -> Option<&PreflightReport> {
        self.preflight.as_ref()
    }

    pub fn status(&self) -> LinkStatus {
        self.status.borrow().clone()
    }

    /// Why this link will not fly its autopilot: connected under [`SimulatorPolicy::Require`],
    /// the autopilot (after a reconnect, say) is not proven a simulator. Commands are refused
    /// meanwhile, by the link task itself.
    pub fn refusal(&self) -> Option<String> {
        match (self.simulator, &self.status.borrow().simulator) {
            (SimulatorPolicy::Require, SimulatorCheck::NotProven(why)) => Some(why.clone()),
            _ => None,
        }
    }

    /// Link measurements (refreshed every 100 ms by the link task).
    pub fn measurement(&self) -> LinkMeasurement {
        self.status.borrow().measurement
    }

    /// Every session event, for the flight record.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Runs `command` without the gate. Only this crate's tests may do that.
    #[cfg(feature = "test-support")]
    pub async fn execute_unchecked(&mut self, command: &Command) -> Result<SendReceipt, LinkError> {
        self.send_command(command).await
    }

    /// Hands `command` to the link task and waits for its procedure's end.
    async fn send_command(&mut self, command: &Command) -> Result<SendReceipt, LinkError> {
        let (reply, answer) = oneshot::channel();
        let stopped = || LinkError::Disconnected(format!("{}: link task stopped", self.address));
        self.requests
            .send(Request::Command {
                command: *command,
                reply,
            })
            .await
            .map_err(|_| stopped())?;
        let report = answer.await.map_err(|_| stopped())??;
        receipt(report)
    }

    /// Expresses positions — telemetry and commands alike — relative to `origin` from now on
    /// (a mission anchored at the autopilot's home), or to the autopilot's home with `None`.
    /// The next snapshot is already in the new frame.
    pub async fn set_origin(
        &self,
        origin: Option<alpha3_core::frames::Geo>,
    ) -> Result<(), HilError> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request::SetOrigin { origin, reply })
            .await
            .map_err(|_| HilError::Stopped)?;
        answer.await.map_err(|_| HilError::Stopped)
    }

    /// The autopilot's clock as last read (its rate tells how fast a SITL runs).
    pub fn vehicle_clock(&self) -> Option<ClockReading> {
        self.clock.reading()
    }

    /// Stops the link task.
    pub async fn close(self) {
        self.task.abort();
        // An aborted task reports a cancellation, which is what we asked for.
        let _ = self.task.await;
    }
}

/// A plan as the autopilot holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadedPlan {
    /// The plan's items, wire `seq` kept (1.. on ArduPilot, after its home).
    pub items: Vec<MissionItem>,
    /// ArduPilot's home (its mission's seq 0), which is not a plan item.
    pub home: Option<MissionItem>,
    /// PX4's CRC of the plan (0 on ArduPilot and when empty).
    pub opaque_id: u32,
}

/// The caller's view of a finished procedure.
fn receipt(report: ProcedureReport) -> Result<SendReceipt, LinkError> {
    let said = if report.warnings.is_empty() {
        String::new()
    } else {
        format!(" (autopilot: {})", report.warnings.join("; "))
    };
    let refused = |message: String| {
        Ok(SendReceipt {
            accepted: false,
            message: Some(message),
            at_ms: report.at_ms,
        })
    };
    match report.outcome {
        ProcedureOutcome::Confirmed => Ok(SendReceipt {
            accepted: true,
            message: report.warnings.last().cloned(),
            at_ms: report.at_ms,
        }),
        ProcedureOutcome::Refused { result } => {
            refused(format!("{} refused: {result:?}{said}", report.command))
        }
        ProcedureOutcome::Unconfirmed { expected } => refused(format!(
            "{} acknowledged, but telemetry showed no {expected}{said}",
            report.command
        )),
        ProcedureOutcome::Superseded => {
            refused(format!("{} superseded by a newer command", report.command))
        }
        ProcedureOutcome::Withdrawn { reason } => {
            refused(format!("{} withdrawn: {reason}", report.command))
        }
        ProcedureOutcome::TimedOut { what, waited_ms } => Err(LinkError::Timeout {
            what,
            timeout_ms: waited_ms,
        }),
    }
}

impl VehicleLink for HilLink {
    /// The newest telemetry, stamped on the link's clock.
    fn snapshot(&self) -> VehicleSnapshot {
        let mut s = *self.snapshot.borrow();
        s.time_ms = self.clock.at_local_ms(s.time_ms);
        s
    }

    async fn send(&mut self, command: ApprovedCommand) -> Result<SendReceipt, LinkError> {
        self.send_command(command.command()).await
    }

    /// Waits until the link's clock (the autopilot's, once read) shows `until_ms`; the link
    /// task keeps ingesting meanwhile.
    async fn advance_to(&mut self, until_ms: u64) -> Result<(), LinkError> {
        loop {
            if self.task.is_finished() {
                return Err(LinkError::Disconnected(format!(
                    "{}: link task stopped",
                    self.address
                )));
            }
            let Some(wait) = self.clock.wait_for(until_ms) else {
                return Ok(());
            };
            tokio::time::sleep(wait).await;
        }
    }

    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The autopilot's clock runs on its own.
    fn realtime(&self) -> bool {
        true
    }

    /// The autopilot is out of reach: its heartbeat lost, or the transport closed.
    fn vehicle_lost(&self) -> bool {
        let s = self.status.borrow();
        s.autopilot_lost || !s.transport_open
    }
}
