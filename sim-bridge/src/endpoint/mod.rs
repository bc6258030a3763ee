//! # The world as a PX4 SITL vehicle on the MAVLink wire
//!
//! [`Endpoint`] runs a [`World`] in real time behind a MAVLink endpoint that looks like PX4 SITL
//! (the PX4 facts in the shared folder, `PX4-FACTS.md` there) to whoever connects —
//! `alpha3-hil`, QGroundControl, MAVSDK, pymavlink:
//! - ports and ids: instance N is system N + 1, component 1; the companion link sends from
//!   14580 + N to 14540 + N, the ground-station link from 18570 + N to 14550; replies go to
//!   the last sender;
//! - HEARTBEAT autopilot 12 (PX4), type 2 (quadrotor), `custom_mode = main << 16 | sub << 24`;
//! - telemetry at PX4's rates (companion link ~270 messages/s: ATTITUDE 100 Hz,
//!   GLOBAL_POSITION_INT and HIGHRES_IMU 50 Hz, LOCAL_POSITION_NED and ODOMETRY 30 Hz,
//!   EXTENDED_SYS_STATE 5 Hz, SYS_STATUS 1 Hz, HOME_POSITION and BATTERY_STATUS 0.5 Hz), changed
//!   per link by SET_MESSAGE_INTERVAL, plus REQUEST_MESSAGE, TIMESYNC answers and the PARAM
//!   protocol (INT32 byte-wise) over PX4's failsafe parameters;
//! - the mission protocol as PX4 serves it (`mission`): mission, fence and rally plans
//!   uploaded, downloaded and cleared, their CRC32 ids in MISSION_ACK, MISSION_COUNT and
//!   MISSION_CURRENT (1 Hz), and the FENCE plan enforced (`geofence`: repositions outside it
//!   ACKed and not flown, breaches acted on, arming refused outside it); the MISSION plan
//!   flown (`mission_flight`: Mission mode or MISSION_START, MISSION_ITEM_REACHED, pause in
//!   Hold, resume, "Mission finished");
//! - commands with PX4's ACK semantics and quirks: silent for ~1.5 s after start, arming denied
//!   until ~4 s, take-off altitude AMSL (param7), DO_REPOSITION z AMSL whatever the frame and
//!   ACKed-but-ignored outside GF_MAX_HOR_DIST, OFFBOARD only with a live setpoint stream and
//!   COM_OBL_RC_ACT when it stops for COM_OF_LOSS_T, hold/land/return (climb to
//!   RTL_RETURN_ALT, fly home, land), geofence action after a breach, home moved at every
//!   arming, auto-disarm 2 s after landing and 10 s after an idle arming (and back to Hold
//!   from Return or Land), NAV_DLL_ACT after COM_DL_LOSS_T without a ground-station heartbeat
//!   (once one was heard), an injected battery failure (low, critical, emergency as
//!   COM_LOW_BAT_ACT says), a Return or Land failsafe held for COM_FAIL_ACT_T first,
//!   STATUSTEXT (PX4's texts and severities, chunked when long) only to links that sent a
//!   ground-station heartbeat — checked against a real PX4 by `runtime/tests/px4_conformance.rs`
//!   (`docs/PX4-CONFORMANCE.md`);
//! - optional link impairment per link — a fixed delay/jitter/loss/bandwidth, or the world's
//!   own network model (`World::link_sample`) — applied to every frame both ways.
//!
//! With [`Autopilot::ArduCopter`] ([`EndpointOptions::ardupilot_sitl`]) it is ArduCopter 4.7
//! SITL instead, where that matters to a companion (`copter`): one companion link to
//! 127.0.0.1:14660 + N, system id 1, nothing streamed until asked (SET_MESSAGE_INTERVAL or
//! REQUEST_DATA_STREAM), STABILIZE at boot and ~40 s to get ready (pre-arm texts, SYS_STATUS's
//! pre-arm bit, EKF_STATUS_REPORT), GUIDED, take-off above home, DO_REPOSITION only as
//! COMMAND_INT, Copter mode numbers and ArduPilot's ACK results, parameters under 4.7's
//! names sent as numbers, texts to every link, and the mission protocol as ArduPilot serves it
//! (home at mission seq 0, MISSION_REQUEST, live writes, no plan ids).
//!
//! What the world cannot do is approximated and said so in the code: terminate/lockdown
//! actions land instead, manual-control modes are refused (SITL has no RC), attitude is derived
//! from the point-mass world's accelerations. Serial links that fail stay down.
//!
//! The vehicle itself is sans-IO ([`Station`] → [`Px4Machine`] → [`Px4Vehicle`] over the
//! world); this module's async part only moves bytes and time.
//!
//! One file per concept: `station` (framing and impairment per link) → `machine` (each link's
//! protocol: streams, replies, texts; the mission protocol's server in `mission/`) →
//! `vehicle` (PX4's state over the world: identity, uptime, local frame and home, and the
//! sub-states in `state`, over `modes`' wire numbers), whose behaviour is split into `arming`,
//! `mode_change` (entering a mode), `commands`, `offboard`, `failsafe`, `geofence` (the FENCE
//! plan enforced), `mission_flight` (the MISSION plan flown, ArduCopter's AUTO too), `telemetry` (attitude from `kinematics`), `params` and `streams`, with
//! ArduCopter's differences in `copter`; the behaviour files import `vehicle` and `state`, never
//! the other way. `codec`, `impairment`, `transport` and `runner` move the bytes; `options` sets
//! it all up.
//!
//! ## Library use
//!
//! ```no_run
//! # async fn demo(world: alpha3_sim::World) -> Result<(), alpha3_sim::endpoint::EndpointError> {
//! use alpha3_sim::endpoint::{Endpoint, EndpointOptions, Impairment, ImpairmentSpec};
//! // PX4 SITL instance 0 on its usual ports (companion on udpin:0.0.0.0:14540).
//! let mut options = EndpointOptions::px4_sitl(0);
//! options.links[0].impairment = Impairment::Fixed(ImpairmentSpec::delay_loss(30.0, 2.0));
//! let endpoint = Endpoint::spawn(world, options).await?;
//! println!("vehicle on {:?}", endpoint.local_addr());
//! // The world stays reachable for the tools that are not MAVLink (network, traffic, ...).
//! let sample = endpoint.with_world(|w| w.link_sample());
//! # let _ = sample;
//! endpoint.shutdown().await?;
//! # Ok(()) }
//! ```
//!
//! [`EndpointOptions::single`] gives one companion link on any transport
//! ([`EndpointTransport::from_address`] reads `udpout:`/`udpin:`/`serial:` addresses from the
//! vehicle's side). `alpha3 sim-vehicle --scenario FILE --instance N` runs this until SIGINT.

mod arming;
mod codec;
mod commands;
mod copter;
mod failsafe;
mod geofence;
mod impairment;
mod kinematics;
mod machine;
mod mission;
mod mission_flight;
mod mode_change;
mod modes;
mod offboard;
mod options;
mod params;
mod runner;
mod state;
mod station;
mod streams;
mod telemetry;
mod transport;
mod vehicle;

pub use codec::{COMP_AUTOPILOT, Frame, FrameDecoder, FrameEncoder, MavMessage, mav};
pub use commands::CommandIn;
pub use impairment::{Impairment, ImpairmentSpec, MAX_QUEUE_MS, Pipe, PipeStats};
pub use machine::Px4Machine;
pub use mission::{Item as PlanItem, MissionServer, Output as MissionOutput, PlanKind, Situation};
pub use modes::Px4Mode;
pub use options::{
    ARDUPILOT_REMOTE_BASE, Autopilot, BootTiming, EndpointOptions, EndpointTransport,
    GCS_LOCAL_BASE, GCS_REMOTE_PORT, LinkOptions, ONBOARD_LOCAL_BASE, ONBOARD_REMOTE_BASE,
    StartFaults, StreamSet,
};
pub use params::{Params, Value as ParamValue};
pub use station::{LinkCounters, Station};
pub use streams::id as message_id;
pub use vehicle::Px4Vehicle;

/// ArduCopter's mode numbers (HEARTBEAT `custom_mode`), the table both ends of the link share.
pub use alpha3_core::copter_modes as copter_mode;

use crate::world::World;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// An endpoint failure: bad options, or a transport that would not open or broke.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    #[error("endpoint options: {0}")]
    Config(String),
    #[error("cannot open {what}: {source}")]
    Open {
        what: String,
        source: std::io::Error,
    },
    #[error("the endpoint task stopped: {0}")]
    Stopped(String),
}

/// What a running endpoint reports about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointStatus {
    /// Time since the endpoint started ("boot"), ms.
    pub boot_ms: u64,
    /// The world's own clock, ms.
    pub world_ms: u64,
    pub armed: bool,
    pub mode: Px4Mode,
    pub links: Vec<LinkCounters>,
}

/// A running PX4-like vehicle. Dropping it stops it; [`Endpoint::shutdown`] also reports how
/// the task ended.
#[derive(Debug)]
pub struct Endpoint {
    station: Arc<Mutex<Station>>,
    local_addrs: Vec<Option<SocketAddr>>,
    system_id: u8,
    clock: runner::BootClock,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), EndpointError>>>,
    readers: Vec<JoinHandle<()>>,
}

impl Endpoint {
    /// Opens every link and starts the vehicle on the current tokio runtime. The world's clock
    /// goes on from where it stands, following the wall clock.
    pub async fn spawn(world: World, options: EndpointOptions) -> Result<Self, EndpointError> {
        options.check()?;
        let (tx, rx) = mpsc::channel(1024);
        let mut ports = Vec::new();
        let mut local_addrs = Vec::new();
        let mut readers = Vec::new();
        for (i, link) in options.links.iter().enumerate() {
            match transport::open(i, &link.transport, tx.clone()).await {
                Ok(o) => {
                    ports.push(o.port);
                    local_addrs.push(o.local);
                    readers.push(o.reader);
                }
                Err(e) => {
                    for r in &readers {
                        r.abort();
                    }
                    return Err(e);
                }
            }
        }
        drop(tx);
        let station = Arc::new(Mutex::new(Station::new(world, &options)));
        let clock = runner::BootClock {
            epoch: Instant::now(),
            speed: options.speed_factor,
        };
        let (stop_tx, stop_rx) = oneshot::channel();
        let task = tokio::spawn(runner::run(station.clone(), ports, rx, stop_rx, clock));
        tracing::info!(
            system_id = options.system_id(),
            ?local_addrs,
            "PX4-like endpoint up"
        );
        Ok(Self {
            station,
            local_addrs,
            system_id: options.system_id(),
            clock,
            stop: Some(stop_tx),
            task: Some(task),
            readers,
        })
    }

    /// The first link's local UDP address (where a peer's replies arrive).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local_addrs.first().copied().flatten()
    }

    /// Every link's local UDP address (`None` for serial links).
    pub fn local_addrs(&self) -> &[Option<SocketAddr>] {
        &self.local_addrs
    }

    pub fn system_id(&self) -> u8 {
        self.system_id
    }

    /// Milliseconds since the endpoint started, on the vehicle's (possibly sped-up) clock.
    pub fn boot_ms(&self) -> u64 {
        self.clock.now_us() / 1000
    }

    /// Runs `f` on the world (briefly: the vehicle waits meanwhile).
    pub fn with_world<R>(&self, f: impl FnOnce(&mut World) -> R) -> R {
        f(runner::lock(&self.station)
            .machine_mut()
            .vehicle_mut()
            .world_mut())
    }

    /// Runs `f` on the PX4 layer (parameters, mode, home).
    pub fn with_vehicle<R>(&self, f: impl FnOnce(&mut Px4Vehicle) -> R) -> R {
        f(runner::lock(&self.station).machine_mut().vehicle_mut())
    }

    pub fn status(&self) -> EndpointStatus {
        let s = runner::lock(&self.station);
        let v = s.machine().vehicle();
        EndpointStatus {
            boot_ms: self.boot_ms(),
            world_ms: v.world().now_ms(),
            armed: v.is_armed(),
            mode: v.mode(),
            links: (0..s.link_count()).filter_map(|i| s.counters(i)).collect(),
        }
    }

    /// Whether the task still runs.
    pub fn is_running(&self) -> bool {
        self.task.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops the vehicle and closes its links; the task's own error if it had failed.
    pub async fn shutdown(mut self) -> Result<(), EndpointError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        for r in &self.readers {
            r.abort();
        }
        match self.task.take() {
            Some(task) => match task.await {
                Ok(result) => result,
                Err(e) => Err(EndpointError::Stopped(e.to_string())),
            },
            None => Ok(()),
        }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
        for r in &self.readers {
            r.abort();
        }
    }
}

#[cfg(test)]
mod tests;
