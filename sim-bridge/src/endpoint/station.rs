//! [`Station`]: everything the endpoint does except moving bytes — framing per link, the
//! impairment pipes in both directions (fixed, or refreshed from the world's network model),
//! and the [`Px4Machine`]. Sans-IO: the async task hands it bytes and time and sends what it
//! returns, so the whole vehicle can be tested without sockets.

use super::codec::{COMP_AUTOPILOT, Frame, FrameDecoder, FrameEncoder};
use super::impairment::{Impairment, ImpairmentSpec, Pipe, PipeStats};
use super::machine::Px4Machine;
use super::options::EndpointOptions;
use super::vehicle::Px4Vehicle;
use crate::rng::SimRng;
use crate::world::World;

/// Counters of one link.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LinkCounters {
    /// Frames decoded from the peer (before the uplink impairment).
    pub rx_frames: u64,
    /// Frames written to the transport (after the downlink impairment).
    pub tx_frames: u64,
    pub tx_bytes: u64,
    /// What the impairment did toward the vehicle and toward the peer.
    pub up: PipeStats,
    pub down: PipeStats,
    pub gcs_seen: bool,
    /// The impairment in force toward the peer.
    pub spec: Option<ImpairmentSpec>,
}

#[derive(Debug)]
struct LinkCore {
    decoder: FrameDecoder,
    encoder: FrameEncoder,
    up: Pipe<Frame>,
    down: Pipe<Vec<u8>>,
    impairment: Impairment,
    next_refresh_us: u64,
    rx_frames: u64,
    tx_frames: u64,
    tx_bytes: u64,
}

/// The vehicle, its links' codecs and their impairment.
#[derive(Debug)]
pub struct Station {
    machine: Px4Machine,
    links: Vec<LinkCore>,
}

impl Station {
    pub fn new(world: World, options: &EndpointOptions) -> Self {
        let system_id = options.system_id();
        let mut vehicle = Px4Vehicle::new(world, system_id, options.boot, options.autopilot);
        vehicle.time.faults = options.faults;
        let streams: Vec<_> = options
            .links
            .iter()
            .map(|l| (l.streams, l.rate_scale))
            .collect();
        let links = options
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let rng = |dir: &str| SimRng::child(options.seed, dir, i as u64);
                LinkCore {
                    decoder: FrameDecoder::new(),
                    encoder: FrameEncoder::new(system_id, COMP_AUTOPILOT),
                    up: Pipe::new(l.impairment.initial_spec(), rng("endpoint.uplink")),
                    down: Pipe::new(l.impairment.initial_spec(), rng("endpoint.downlink")),
                    impairment: l.impairment,
                    next_refresh_us: 0,
                    rx_frames: 0,
                    tx_frames: 0,
                    tx_bytes: 0,
                }
            })
            .collect();
        Self {
            machine: Px4Machine::new(vehicle, &streams),
            links,
        }
    }

    pub fn machine(&self) -> &Px4Machine {
        &self.machine
    }

    pub fn machine_mut(&mut self) -> &mut Px4Machine {
        &mut self.machine
    }

    pub fn counters(&self, link: usize) -> Option<LinkCounters> {
        let l = self.links.get(link)?;
        Some(LinkCounters {
            rx_frames: l.rx_frames,
            tx_frames: l.tx_frames,
            tx_bytes: l.tx_bytes,
            up: l.up.stats(),
            down: l.down.stats(),
            gcs_seen: self.machine.gcs_seen(link),
            spec: l.down.spec(),
        })
    }

    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Bytes that came in on `link` at `now_us`, in any chunking.
    pub fn on_bytes(&mut self, now_us: u64, link: usize, bytes: &[u8]) {
        let Some(l) = self.links.get_mut(link) else {
            return;
        };
        l.decoder.push(bytes);
        while let Some(frame) = l.decoder.next_frame() {
            l.rx_frames += 1;
            let len = frame.wire_len;
            l.up.push(now_us, frame, len);
        }
    }

    /// Does everything due at `now_us`; appends (link, datagram) to send to `out`.
    pub fn service(&mut self, now_us: u64, out: &mut Vec<(usize, Vec<u8>)>) {
        for (i, l) in self.links.iter_mut().enumerate() {
            while let Some(f) = l.up.pop_due(now_us) {
                self.machine.handle(i, &f.header, &f.message);
            }
        }
        self.machine.step(now_us);
        self.refresh_impairment(now_us);
        for (i, l) in self.links.iter_mut().enumerate() {
            while let Some(m) = self.machine.poll(i) {
                let bytes = l.encoder.encode(&m);
                let len = bytes.len();
                l.down.push(now_us, bytes, len);
            }
            while let Some(bytes) = l.down.pop_due(now_us) {
                l.tx_frames += 1;
                l.tx_bytes += bytes.len() as u64;
                out.push((i, bytes));
            }
        }
    }

    /// World-driven links take the network model's newest sample, both directions.
    fn refresh_impairment(&mut self, now_us: u64) {
        let mut sample = None;
        for l in &mut self.links {
            let Impairment::World { refresh_ms } = l.impairment else {
                continue;
            };
            if now_us < l.next_refresh_us {
                continue;
            }
            l.next_refresh_us = now_us + refresh_ms * 1000;
            let s =
                *sample.get_or_insert_with(|| self.machine.vehicle_mut().world_mut().link_sample());
            let spec = Some(ImpairmentSpec::from_sample(&s));
            l.up.set_spec(spec);
            l.down.set_spec(spec);
        }
    }

    /// When `service` next has something to do (streams, delayed frames, refreshes).
    pub fn next_wake_us(&self) -> Option<u64> {
        let mut at = self.machine.next_due_us();
        let mut take = |t: Option<u64>| {
            if let Some(t) = t {
                at = Some(at.map_or(t, |a| a.min(t)));
            }
        };
        for l in &self.links {
            take(l.up.next_due_us());
            take(l.down.next_due_us());
            if matches!(l.impairment, Impairment::World { .. }) {
                take(Some(l.next_refresh_us));
            }
        }
        at
    }
}
