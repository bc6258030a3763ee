//! The swarm network on one machine: a MAVLink router as a radio mesh or `mavlink-router`
//! would be in the field, plus the swarm's truth.
//!
//! - Each autopilot's ground-station port streams to the hub (it learns the hub from the
//!   hub's heartbeat, as it would a ground station's). Of that stream the hub forwards each
//!   autopilot's own `GLOBAL_POSITION_INT`, at most [`POSITION_RATE_HZ`] of autopilot time, to
//!   every member — what a telemetry radio carries — and reads every report for the truth.
//! - Every other sender (a runtime, a listener such as pymavlink) is a member: what it sends is
//!   forwarded unchanged to every other member. Signatures are the receivers' business.
//! - A vehicle can be silenced from a time on (a radio that died): nothing from its runtime or
//!   its autopilot is forwarded, nothing reaches its runtime. Its truth is still read.
//!
//! Truth: [`SeparationMonitor`] over the autopilots' own positions on the hub's clock (wall
//! time since start × the speed factor), in the swarm's common frame.

use alpha3_core::frames::{Geo, LocalFrame};
use alpha3_core::swarm::track::AIRBORNE_M;
use alpha3_core::swarm::{PairSeparation, SeparationMonitor, SwarmTrack};
use alpha3_hil::a2a::tunnel::TUNNEL_ID;
use alpha3_hil::dialect::{COMP_GCS, MavMessage, Message, id, mav};
use alpha3_hil::heartbeat::heartbeat as component_heartbeat;
use alpha3_hil::telemetry::BroadcastPosition;
use alpha3_hil::wire::Encoder;
use alpha3_wire::RawFrames;
use mavlink::MAVLinkMessageRaw;
use serde::Serialize;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::UdpSocket;

/// Positions forwarded per autopilot per second of its own time (a telemetry radio's rate).
pub const POSITION_RATE_HZ: f64 = 5.0;
/// Members kept at most (a flood of new source ports cannot grow the table).
const MAX_MEMBERS: usize = 64;
/// The hub's MAVLink system id when it speaks to the autopilots' ground-station ports.
const HUB_SYSTEM: u8 = 250;

/// One autopilot of the swarm, as the hub reaches it.
#[derive(Debug, Clone)]
pub struct HubAutopilot {
    pub name: String,
    pub system_id: u8,
    /// Its ground-station port (PX4 SITL: 18570 + instance).
    pub gcs: SocketAddr,
}

#[derive(Debug, Clone)]
pub struct HubOptions {
    pub autopilots: Vec<HubAutopilot>,
    /// The swarm's common frame (its origin on earth).
    pub origin: Geo,
    pub speed_factor: f64,
    pub min_separation_m: f64,
    /// Silence this system from this many seconds of swarm time on.
    pub silence: Option<(u8, f64)>,
}

/// Per autopilot, what went through the hub.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HubVehicle {
    pub name: String,
    pub system_id: u8,
    pub positions_heard: u64,
    pub positions_forwarded: u64,
    /// A2A `TUNNEL` frames its runtime sent, and how many the hub forwarded (to each member).
    pub a2a_frames_sent: u64,
    pub a2a_frames_forwarded: u64,
    /// Datagrams dropped because the vehicle was silenced.
    pub silenced_drops: u64,
    /// Its highest relative altitude, m (it flew).
    pub max_relative_alt_m: f64,
}

/// What the hub saw over the whole flight.
#[derive(Debug, Clone, Serialize)]
pub struct HubReport {
    pub members: usize,
    pub vehicles: Vec<HubVehicle>,
    pub min_separation_limit_m: f64,
    pub min_separation_m: Option<f64>,
    pub separation_violations: u32,
    pub pairs: Vec<PairSeparation>,
    /// When the silenced vehicle went quiet, s of swarm time.
    pub silenced_at_s: Option<f64>,
    /// Every vehicle's track on the hub's clock (written beside the summary, not in it).
    #[serde(skip)]
    pub track: SwarmTrack,
}

struct Member {
    addr: SocketAddr,
    system: Option<u8>,
    frames: RawFrames,
}

/// Runs the hub on `socket` until `stop` is set; returns what it saw.
pub async fn run_hub(
    socket: UdpSocket,
    options: HubOptions,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> HubReport {
    let frame = LocalFrame::new(options.origin);
    let started = Instant::now();
    let swarm_s = || started.elapsed().as_secs_f64() * options.speed_factor;
    let mut monitor = SeparationMonitor::new(options.min_separation_m);
    let mut track = SwarmTrack::new(
        options.min_separation_m,
        options
            .autopilots
            .iter()
            .map(|a| (a.name.clone(), a.system_id)),
    );
    let mut vehicles: Vec<HubVehicle> = options
        .autopilots
        .iter()
        .map(|a| HubVehicle {
            name: a.name.clone(),
            system_id: a.system_id,
            ..HubVehicle::default()
        })
        .collect();
    let mut autopilot_frames: Vec<RawFrames> = options
        .autopilots
        .iter()
        .map(|_| RawFrames::default())
        .collect();
    let mut last_forward_ms: Vec<Option<u32>> = vec![None; options.autopilots.len()];
    let mut members: Vec<Member> = Vec::new();
    let mut heartbeat = Encoder::new(HUB_SYSTEM, None);
    let mut beat = tokio::time::interval(Duration::from_secs(2));
    let mut buf = vec![0u8; 65_536];
    let mut silenced_at_s = None;
    let period_ms = (1000.0 / POSITION_RATE_HZ) as u32;
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = beat.tick() => {
                let mut out = Vec::new();
                heartbeat.encode(COMP_GCS, &component_heartbeat(mav::MavType::MAV_TYPE_GCS), 0, &mut out);
                for a in &options.autopilots {
                    let _ = socket.send_to(&out, a.gcs).await;
                }
            }
            got = socket.recv_from(&mut buf) => {
                let Ok((n, from)) = got else { continue };
                let datagram = &buf[..n];
                let now_s = swarm_s();
                let silent = options
                    .silence
                    .filter(|(_, at)| now_s >= *at)
                    .map(|(system, _)| system);
                if silent.is_some() && silenced_at_s.is_none() {
                    silenced_at_s = Some(now_s);
                }
                if let Some(k) = options.autopilots.iter().position(|a| a.gcs == from) {
                    let system = options.autopilots[k].system_id;
                    autopilot_frames[k].push(datagram);
                    while let Some(f) = autopilot_frames[k].next_raw() {
                        if f.raw.message_id() != id::GLOBAL_POSITION_INT
                            || f.header.system_id != u32::from(system)
                        {
                            continue;
                        }
                        let Ok(MavMessage::GLOBAL_POSITION_INT(p)) =
                            MavMessage::parse(f.version, f.raw.message_id(), f.raw.payload())
                        else {
                            continue;
                        };
                        let Some(here) = BroadcastPosition::of(&p) else {
                            continue;
                        };
                        let v = &mut vehicles[k];
                        v.positions_heard += 1;
                        v.max_relative_alt_m = v.max_relative_alt_m.max(here.relative_alt_m);
                        let airborne = here.relative_alt_m > AIRBORNE_M;
                        let position = frame.to_enu(here.geo);
                        monitor.observe(system, now_s, position, here.velocity, airborne);
                        track.observe(system, now_s, position, airborne);
                        if silent == Some(system) {
                            v.silenced_drops += 1;
                            continue;
                        }
                        let due = last_forward_ms[k].is_none_or(|last| {
                            p.time_boot_ms < last || p.time_boot_ms - last >= period_ms
                        });
                        if !due {
                            continue;
                        }
                        last_forward_ms[k] = Some(p.time_boot_ms);
                        let bytes = match &f.raw {
                            MAVLinkMessageRaw::V1(m) => m.raw_bytes().to_vec(),
                            MAVLinkMessageRaw::V2(m) => m.raw_bytes().to_vec(),
                        };
                        for m in members.iter().filter(|m| silent.is_none() || m.system != silent) {
                            let _ = socket.send_to(&bytes, m.addr).await;
                        }
                        v.positions_forwarded += 1;
                    }
                    continue;
                }
                // A member: known by its address, named by the system id it sends as.
                let index = match members.iter().position(|m| m.addr == from) {
                    Some(i) => i,
                    None if members.len() < MAX_MEMBERS => {
                        members.push(Member { addr: from, system: None, frames: RawFrames::default() });
                        members.len() - 1
                    }
                    None => continue,
                };
                let mut tunnels = 0u64;
                members[index].frames.push(datagram);
                while let Some(f) = members[index].frames.next_raw() {
                    if let Ok(s) = u8::try_from(f.header.system_id) {
                        members[index].system = Some(s);
                    }
                    if f.raw.message_id() == TUNNEL_ID {
                        tunnels += 1;
                    }
                }
                let sender = members[index].system;
                let vehicle = vehicles.iter_mut().find(|v| Some(v.system_id) == sender);
                if sender.is_some() && sender == silent {
                    if let Some(v) = vehicle {
                        v.silenced_drops += 1;
                    }
                    continue;
                }
                let mut sent = 0u64;
                for m in members.iter().filter(|m| m.addr != from) {
                    if silent.is_some() && m.system == silent {
                        continue;
                    }
                    if socket.send_to(datagram, m.addr).await.is_ok() {
                        sent += 1;
                    }
                }
                if let Some(v) = vehicle {
                    v.a2a_frames_sent += tunnels;
                    v.a2a_frames_forwarded += tunnels * sent;
                }
            }
        }
    }
    HubReport {
        members: members.len(),
        vehicles,
        min_separation_limit_m: options.min_separation_m,
        min_separation_m: monitor.min_m(),
        separation_violations: monitor.violations(),
        pairs: monitor.pairs(),
        silenced_at_s,
        track,
    }
}
