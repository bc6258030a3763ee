//! [`Session`]: the whole companion side of one autopilot link as a sans-IO state machine,
//! in the manner of quinn-proto's `Connection`. The shell feeds it bytes and time
//! ([`handle_bytes`](Session::handle_bytes), [`handle_timeout`](Session::handle_timeout)), asks
//! it for frames to write ([`poll_transmit`](Session::poll_transmit)) and for when to wake it
//! ([`poll_timeout`](Session::poll_timeout)), and drains [`Event`]s. Time is microseconds on
//! the shell's monotonic clock; nothing here reads a clock or touches a socket.

mod binding;
mod config;
mod inbound;
mod outbound;

pub use binding::{ForeignFrames, Stranger};
pub use config::SessionConfig;

use crate::command::{CommandMachine, Target};
use crate::dialect::{MavMessage, mav};
use crate::error::HilError;
use crate::heartbeat::{AutopilotInfo, Heartbeats};
use crate::measure::{LinkMeasurement, LinkStats};
use crate::mission::{MissionClient, MissionEvent, MissionItem, MissionKind};
use crate::offboard::SetpointStream;
use crate::param::{ParamClient, ParamValue};
use crate::procedure::{ProcedureOutcome, ProcedureRunner};
use crate::profile::Profile;
use crate::readiness::{Readiness, ReadinessProbe};
use crate::statustext::{StatusText, StatusTexts};
use crate::streams::StreamRequests;
use crate::telemetry::TelemetryCache;
use crate::timesync::TimeSync;
use crate::translate::{Context, translate};
use crate::vehicle_clock::{ClockReading, VehicleClock};
use crate::wire::{Decoder, Encoder, Rejected, Signer, Verifier};
use alpha3_core::command::Command;
use alpha3_core::snapshot::VehicleSnapshot;
use binding::Binding;
use std::collections::{BTreeMap, VecDeque};

/// How long telemetry has to confirm a take-off (a climb), ms; see [`Session::start_command`].
const TAKEOFF_CONFIRM_MS: u64 = 10_000;

/// How a command ended, with the autopilot's own words meanwhile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcedureReport {
    pub id: u64,
    pub command: &'static str,
    pub outcome: ProcedureOutcome,
    pub at_ms: u64,
    /// STATUSTEXTs of WARNING or worse received while it ran.
    pub warnings: Vec<String>,
}

/// Something the shell (and the flight record) should know about.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    AutopilotFound {
        info: AutopilotInfo,
        profile: Profile,
    },
    /// The autopilot announces something this configuration cannot fly.
    AutopilotRefused(String),
    AutopilotLost,
    AutopilotBack,
    /// The bound autopilot's first heartbeat after the transport was reopened, or from a new
    /// address after it was lost (a reboot); `from` is where the link now sends.
    AutopilotRejoined {
        from: Option<std::net::SocketAddr>,
    },
    Text(StatusText),
    ProcedureDone(ProcedureReport),
    /// The hold sent to cancel a lost command ended.
    LostCommandHeld(ProcedureReport),
    /// An ACK for a command we had given up on: the autopilot may have acted on it.
    LateAck {
        command: mav::MavCmd,
        result: mav::MavResult,
    },
    Rejected(Rejected),
    /// A mission-protocol outcome or news of the autopilot's plans ([`MissionEvent`]).
    Mission(MissionEvent),
}

/// One mission-protocol transfer to start ([`Session::start_mission`]).
#[derive(Debug, Clone, PartialEq)]
pub enum MissionRequest {
    Download(MissionKind),
    Upload(MissionKind, Vec<MissionItem>),
    Clear(MissionKind),
}

/// The companion side of one autopilot link.
#[derive(Debug)]
pub struct Session {
    cfg: SessionConfig,
    decoder: Decoder,
    encoder: Encoder,
    heartbeats: Heartbeats,
    telemetry: TelemetryCache,
    texts: StatusTexts,
    commands: CommandMachine,
    procedure: Option<ProcedureRunner>,
    /// Set while the running procedure is our own hold after a lost command.
    procedure_is_hold: bool,
    next_procedure_id: u64,
    params: ParamClient,
    /// The mission, fence and rally plans' client, once the autopilot is known.
    missions: Option<MissionClient>,
    /// The `id` of our last multi-chunk STATUSTEXT.
    next_text_id: u16,
    timesync: TimeSync,
    /// The autopilot's own clock (time_boot_ms), which a sped-up SITL runs fast.
    clock: VehicleClock,
    stats: LinkStats,
    stream: SetpointStream,
    requests: StreamRequests,
    readiness: Readiness,
    probe: ReadinessProbe,
    outbox: VecDeque<MavMessage>,
    events: VecDeque<Event>,
    profile: Option<Profile>,
    target: Option<Target>,
    /// The speed moves without their own fly at: the last `set_speed`, else the config's.
    cruise_speed_mps: Option<f64>,
    /// Signing timestamp at session time 0 (10 µs ticks since 2015).
    signing_base: u64,
    /// Frames that passed the codec (CRC, signature, parse).
    accepted_frames: u64,
    /// Which frames are the autopilot's; the rest are counted as foreign.
    binding: Binding,
    /// Give up the running command when the autopilot comes back ([`Event::AutopilotBack`],
    /// [`Event::AutopilotRejoined`]).
    withdraw_on_return: bool,
}

impl Session {
    /// `signing_base` is the signing clock at time 0 (from the wall clock, by the shell).
    pub fn new(cfg: SessionConfig, signing_base: u64) -> Result<Self, HilError> {
        cfg.check()?;
        let (decoder, signer) = match &cfg.signing_key {
            Some(key) => (
                Decoder::with_signing(Verifier::new(key.clone()), cfg.require_signing),
                Some(Signer::new(key.clone(), cfg.signing_link_id)),
            ),
            None => (Decoder::new(), None),
        };
        Ok(Self {
            decoder,
            encoder: Encoder::new(cfg.system_id, signer),
            heartbeats: Heartbeats::new(
                cfg.heartbeat_interval_ms,
                cfg.component_id,
                cfg.gcs_component_id,
                cfg.heartbeat_lost_ms,
            ),
            telemetry: TelemetryCache::new().with_origin(cfg.frame_origin),
            texts: StatusTexts::default(),
            commands: CommandMachine::new(cfg.timing),
            procedure: None,
            procedure_is_hold: false,
            next_procedure_id: 1,
            params: ParamClient::new(cfg.param_timeout_ms, cfg.param_sends),
            missions: None,
            next_text_id: 0,
            timesync: TimeSync::new(cfg.timesync_interval_ms),
            clock: VehicleClock::new(),
            stats: LinkStats::new(cfg.measure_window_ms),
            stream: SetpointStream::new(cfg.setpoint_rate_hz),
            requests: StreamRequests::default(),
            readiness: Readiness::default(),
            probe: ReadinessProbe::default(),
            outbox: VecDeque::new(),
            events: VecDeque::new(),
            profile: None,
            target: None,
            signing_base,
            accepted_frames: 0,
            cruise_speed_mps: cfg.cruise_speed_mps,
            binding: Binding::default(),
            withdraw_on_return: false,
            cfg,
        })
    }

    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    pub fn profile(&self) -> Option<Profile> {
        self.profile
    }

    /// Frames accepted so far (CRC, signature and parse passed), the autopilot's or not.
    pub fn accepted_frames(&self) -> u64 {
        self.accepted_frames
    }

    /// Where the bound autopilot's datagrams come from: where ours must go.
    pub fn peer_address(&self) -> Option<std::net::SocketAddr> {
        self.binding.address()
    }

    /// Frames from anyone but the bound autopilot (dropped unread).
    pub fn foreign_frames(&self) -> ForeignFrames {
        self.binding.foreign()
    }

    /// The transport only talks to `address` (udpout): frames from elsewhere are foreign.
    pub fn fix_peer_address(&mut self, address: std::net::SocketAddr) {
        self.binding.fix(address);
    }

    /// The shell reopened the transport: the bound autopilot (the same system and component
    /// only) may now be heard from a new address.
    pub fn transport_reopened(&mut self) {
        self.binding.reopened();
    }

    pub fn autopilot(&self) -> Option<AutopilotInfo> {
        self.heartbeats.autopilot()
    }

    pub fn is_autopilot_lost(&self) -> bool {
        self.heartbeats.is_lost()
    }

    pub fn telemetry(&self) -> &TelemetryCache {
        &self.telemetry
    }

    pub fn snapshot(&self) -> VehicleSnapshot {
        self.telemetry.snapshot()
    }

    /// The autopilot's clock as last read; `None` before its first time-stamped message.
    pub fn vehicle_clock(&self) -> Option<ClockReading> {
        self.clock.reading()
    }

    /// Expresses positions relative to `origin` (a mission's origin) from now on, or to the
    /// autopilot's home again with `None`.
    pub fn set_frame_origin(&mut self, origin: Option<alpha3_core::frames::Geo>) {
        self.cfg.frame_origin = origin;
        self.telemetry.set_origin(origin);
    }

    pub fn texts(&self) -> &StatusTexts {
        &self.texts
    }

    /// Telemetry streams asked for that have not arrived yet (message ids).
    pub fn missing_streams(&self) -> Vec<u32> {
        self.requests.missing()
    }

    /// What the autopilot last said about being ready to arm.
    pub fn readiness(&self) -> &Readiness {
        &self.readiness
    }

    /// Whether to keep asking ArduPilot for its pre-arm verdict: only while it is disarmed
    /// and not ready (an armed ArduPilot refuses the request).
    fn probing_readiness(&self) -> bool {
        self.profile == Some(Profile::ArduPilot)
            && !self.telemetry.snapshot().armed
            && !self.readiness.is_ready(Profile::ArduPilot)
    }

    pub fn is_streaming(&self) -> bool {
        self.stream.is_streaming()
    }

    /// Whether a command is still running.
    pub fn is_busy(&self) -> bool {
        self.procedure.is_some()
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub fn measure(&mut self, now_us: u64) -> LinkMeasurement {
        let age = self.heartbeats.age_us(now_us);
        self.stats.measure(now_us, age)
    }

    /// Counts a transport error (the shell reports them; they are never dropped silently).
    pub fn note_io_error(&mut self) {
        self.stats.on_io_error();
    }

    /// Asks the autopilot for these parameters.
    pub fn read_params(&mut self, now_us: u64, names: &[String]) {
        self.params.request(now_us, names);
    }

    pub fn params_done(&self) -> bool {
        self.params.is_done()
    }

    pub fn params(&self) -> &BTreeMap<String, ParamValue> {
        self.params.values()
    }

    /// Parameters that were asked for (read or written) and never answered.
    pub fn params_failed(&self) -> &std::collections::BTreeSet<String> {
        self.params.failed()
    }

    /// Writes parameter `name` (read it first: the write keeps the type the autopilot gave
    /// it). Fence, failsafe, arming and system-id parameters are refused unless the config
    /// named them ([`SessionConfig::param_writes_allowed`]); allowed writes are logged.
    pub fn write_param(&mut self, now_us: u64, name: &str, value: f64) -> Result<(), HilError> {
        self.cfg.param_writes_allowed.check(name)?;
        let bad = |reason: String| HilError::Param {
            name: name.to_string(),
            reason,
        };
        let Some(profile) = self.profile else {
            return Err(bad("no autopilot yet".into()));
        };
        let Some(ty) = self.params.type_of(name) else {
            return Err(bad("not read from the autopilot yet (unknown type)".into()));
        };
        if !value.is_finite() {
            return Err(bad(format!("{value} is not a number")));
        }
        let typed = if matches!(
            ty,
            mav::MavParamType::MAV_PARAM_TYPE_REAL32 | mav::MavParamType::MAV_PARAM_TYPE_REAL64
        ) {
            ParamValue::Real(value as f32)
        } else if value.fract() == 0.0 && value.abs() <= f64::from(i32::MAX) {
            ParamValue::Int(value as i64)
        } else {
            return Err(bad(format!("{value} is not an integer ({ty:?})")));
        };
        let old = self.params.values().get(name).copied();
        tracing::warn!(param = name, ?old, new = %typed, "writing autopilot parameter");
        self.params
            .write(now_us, name, typed, ty, profile.param_encoding());
        Ok(())
    }

    /// Starts a mission-protocol transfer; its outcome arrives as [`Event::Mission`]. One at a
    /// time (the autopilots themselves refuse a second).
    pub fn start_mission(&mut self, now_us: u64, request: MissionRequest) -> Result<(), HilError> {
        let Some(m) = self.missions.as_mut() else {
            return Err(HilError::NotReady {
                missing: "no autopilot heartbeat yet".into(),
                timeout_ms: 0,
            });
        };
        let started = match request {
            MissionRequest::Download(kind) => m.start_download(kind, now_us),
            MissionRequest::Upload(kind, items) => m.start_upload(kind, items, now_us),
            MissionRequest::Clear(kind) => m.start_clear(kind, now_us),
        };
        started.map_err(HilError::Mission)
    }

    /// Says `text` to whoever listens on the autopilot's other links (its ground station: PX4
    /// forwards it, ArduPilot routes it), as STATUSTEXT from our component. Bounded: while 64
    /// frames wait to be sent, a new text is dropped.
    pub fn tell_ground_station(&mut self, severity: mav::MavSeverity, text: &str) {
        if self.outbox.len() >= 64 {
            tracing::debug!(text, "outbox full; STATUSTEXT dropped");
            return;
        }
        self.next_text_id = self.next_text_id.wrapping_add(1).max(1);
        for chunk in crate::statustext::outgoing(severity, text, self.next_text_id) {
            self.outbox.push_back(MavMessage::STATUSTEXT(chunk));
        }
    }

    /// The autopilot's last MISSION_CURRENT.
    pub fn mission_current(&self) -> Option<crate::mission::MissionCurrent> {
        self.missions.as_ref().and_then(|m| m.current().copied())
    }

    /// The mission client's events, as session events.
    fn drain_missions(&mut self) {
        if let Some(m) = self.missions.as_mut() {
            while let Some(e) = m.poll_event() {
                self.events.push_back(Event::Mission(e));
            }
        }
    }

    /// Starts `command`; a command still running is superseded. Returns the procedure id that its
    /// [`Event::ProcedureDone`] will carry.
    pub fn start_command(&mut self, now_us: u64, command: &Command) -> Result<u64, HilError> {
        let (Some(profile), Some(target)) = (self.profile, self.target) else {
            return Err(HilError::NotReady {
                missing: "no autopilot heartbeat yet".into(),
                timeout_ms: 0,
            });
        };
        let seen = self.telemetry.seen();
        let needs_position = !matches!(
            command,
            Command::Arm
                | Command::Disarm
                | Command::Hold
                | Command::ReturnToHome
                | Command::SetSpeed { .. }
                | Command::Land { site: None }
        );
        if needs_position && !(seen.home && seen.position) {
            return Err(HilError::NotReady {
                missing: "home and position not known yet".into(),
                timeout_ms: 0,
            });
        }
        let ctx = Context {
            target,
            snapshot: self.telemetry.snapshot(),
            frame: *self.telemetry.frame(),
            home_local: self.telemetry.home_local(),
            goto: self.cfg.goto,
            streaming: self.stream.is_streaming(),
            arm_ready_ms: self.cfg.arm_ready_ms,
            arm_interval_ms: self.cfg.arm_interval_ms,
            arrive_timeout_ms: self.cfg.arrive_timeout_ms,
            cruise_speed_mps: self.cruise_speed_mps,
        };
        let procedure = translate(command, profile, &ctx)?;
        if let Command::SetSpeed { speed_mps } = *command {
            self.cruise_speed_mps = Some(speed_mps);
        }
        self.supersede(now_us);
        let id = self.next_procedure_id;
        self.next_procedure_id += 1;
        // A take-off is confirmed by a climb, which ArduCopter starts only after spooling its
        // motors up: its SITL showed no 0.5 m of climb for 3-4 s after NAV_TAKEOFF's ACK
        // (its own smoke test: 0.01 m after 2.1 s, 0.82 m after 4.2 s), past the 3 s that
        // confirms every other command.
        let confirm_ms = if matches!(command, Command::Takeoff { .. }) {
            self.cfg.confirm_timeout_ms.max(TAKEOFF_CONFIRM_MS)
        } else {
            self.cfg.confirm_timeout_ms
        };
        self.procedure = Some(ProcedureRunner::new(id, procedure, now_us, confirm_ms));
        self.procedure_is_hold = false;
        self.advance_procedure(now_us);
        Ok(id)
    }

    /// From now on, an autopilot that comes back (heartbeat regained, or heard again after the
    /// transport was reopened) gets nothing that was meant for it before: see
    /// [`withdraw_commands`](Self::withdraw_commands). The shell asks for this when the
    /// autopilot must prove itself again first.
    pub fn withdraw_commands_on_return(&mut self) {
        self.withdraw_on_return = true;
    }

    /// Stops commanding the autopilot: the running command is given up (its report says
    /// `why`) and the setpoint stream ends — nothing meant for the autopilot as it was may
    /// reach the one that came back before it proved what it is.
    pub fn withdraw_commands(&mut self, now_us: u64, why: &str) {
        self.stream.stop();
        self.commands.abandon(now_us);
        if let Some(old) = self.procedure.take() {
            self.procedure_is_hold = false;
            let outcome = ProcedureOutcome::Withdrawn {
                reason: why.to_string(),
            };
            let report = self.report(&old, outcome, now_us);
            self.events.push_back(Event::ProcedureDone(report));
        }
    }

    fn supersede(&mut self, now_us: u64) {
        if let Some(old) = self.procedure.take() {
            self.commands.abandon(now_us);
            let report = self.report(&old, ProcedureOutcome::Superseded, now_us);
            self.events.push_back(Event::ProcedureDone(report));
        }
    }

    fn report(
        &self,
        runner: &ProcedureRunner,
        outcome: ProcedureOutcome,
        now_us: u64,
    ) -> ProcedureReport {
        ProcedureReport {
            id: runner.id,
            command: runner.procedure.command,
            outcome,
            at_ms: now_us / 1000,
            warnings: self
                .texts
                .since(runner.started_us / 1000)
                .filter(|t| t.is_warning())
                .map(|t| t.text.clone())
                .collect(),
        }
    }

    /// Moves the running procedure on; reports it when it ends.
    fn advance_procedure(&mut self, now_us: u64) {
        let (Some(runner), Some(target)) = (self.procedure.as_mut(), self.target) else {
            return;
        };
        let snap = self.telemetry.snapshot();
        let mut io = crate::procedure::ProcedureIo {
            commands: &mut self.commands,
            stream: &mut self.stream,
            outbox: &mut self.outbox,
            target,
        };
        let Some(outcome) = runner.advance(now_us, &snap, &mut io) else {
            return;
        };
        let Some(done) = self.procedure.take() else {
            return;
        };
        let lost = matches!(
            outcome,
            ProcedureOutcome::TimedOut { .. } | ProcedureOutcome::Unconfirmed { .. }
        );
        let report = self.report(&done, outcome, now_us);
        if self.procedure_is_hold {
            self.procedure_is_hold = false;
            self.events.push_back(Event::LostCommandHeld(report));
            return;
        }
        self.events.push_back(Event::ProcedureDone(report));
        if lost
            && done.procedure.hold_if_lost
            && self.cfg.hold_after_lost_command
            && snap.is_airborne()
            && self.start_command(now_us, &Command::Hold).is_ok()
        {
            self.procedure_is_hold = true;
        }
    }
}
