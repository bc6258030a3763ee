//! One vehicle's runtime as a member of a swarm: it hears the swarm network (its mates'
//! autopilots' positions and their signed A2A intents) and tells it its own intent once a
//! second, and hands the gate its mates as peer plans ([`PeerBook`]).
//!
//! The network is one UDP socket to the swarm's router (`alpha3 swarm`'s hub, or any MAVLink
//! router a field deployment runs). The socket is polled when the episode loop samples, never
//! waited on: a silent network costs nothing and cannot hold the loop up.

use alpha3_core::frames::{Enu, LocalFrame};
use alpha3_core::gate::PeerPlan;
use alpha3_core::snapshot::{FlightMode, VehicleSnapshot};
use alpha3_core::swarm::{
    INTENT_FORMAT, Intent, IntentPoint, IntentState, Pace, PeerBook, PeerBookSettings, PeerView,
};
use alpha3_hil::a2a::{SwarmCounts, SwarmEvent, SwarmWire};
use alpha3_hil::dialect::{COMP_ONBOARD, mav};
use alpha3_hil::heartbeat::heartbeat;
use alpha3_hil::wire::{Encoder, SigningKey, signing_now};
use serde::Serialize;
use std::net::{SocketAddr, UdpSocket};

/// Beyond the separation, how close to a waiting mate's wanted path we count as in its way, m.
const BLOCKING_MARGIN_M: f64 = 10.0;
/// How often the intent is sent, episode ms.
const INTENT_PERIOD_MS: u64 = 1_000;
/// Datagrams taken off the socket per poll at most (the rest wait for the next sample).
const MAX_DATAGRAMS_PER_POLL: usize = 2_000;
/// A vehicle with no target that moves faster than this says where its velocity takes it.
const MOVING_MPS: f64 = 1.0;
/// How far ahead that extrapolated intent reaches, ms.
const EXTRAPOLATE_MS: u32 = 10_000;
/// Hearing none of its mates for this long, a member has lost the swarm: it holds and lands
/// where it is (its mates take it for landed there after the same time, `PeerBookSettings`).
pub const LOST_AFTER_MS: u64 = 2_000;

/// How to join the swarm.
#[derive(Debug, Clone)]
pub struct SwarmOptions {
    /// The swarm network's router.
    pub hub: SocketAddr,
    /// Our MAVLink system id: our autopilot's (a companion shares its vehicle's id).
    pub system_id: u8,
    /// Every member's system id.
    pub roster: Vec<u8>,
    pub key: SigningKey,
    /// Our name in intents and in the others' records.
    pub name: String,
    /// How fast our legs are flown, as our intents time them (cruise across, the climb and
    /// descent rates up and down).
    pub pace: Pace,
    /// The fastest a mate can fly, m/s (how fast a silent one's uncertainty grows).
    pub max_speed_mps: f64,
    /// The separation every gate of the swarm keeps, m.
    pub min_separation_m: f64,
}

/// What the member heard and said, for the record's sidecar and the swarm summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwarmReport {
    pub name: String,
    pub system_id: u8,
    /// Intents sent (each one A2A message of one or more signed TUNNEL frames).
    pub intents_sent: u64,
    /// Intents received and used, and those refused (not an intent, or from a flagged mate).
    pub intents_taken: u64,
    pub intents_refused: u64,
    /// Datagrams that could not be sent (the router unreachable).
    pub send_errors: u64,
    /// When it lost the swarm (heard no mate for 2 s) and landed, episode ms.
    pub lost_at_ms: Option<u64>,
    pub counts: SwarmCounts,
    /// Every mate as the book saw it at the end.
    pub peers: Vec<PeerView>,
}

/// One vehicle's end of the swarm.
#[derive(Debug)]
pub struct SwarmMember {
    socket: UdpSocket,
    wire: SwarmWire,
    book: PeerBook,
    frame: LocalFrame,
    options: SwarmOptions,
    heartbeat: Encoder,
    seq: u32,
    next_intent_ms: u64,
    buf: Vec<u8>,
    intents_sent: u64,
    intents_taken: u64,
    intents_refused: u64,
    send_errors: u64,
    /// When a mate was last heard (or, before any was, when we started listening), ms.
    last_heard_ms: Option<u64>,
    /// When the swarm was first found lost, ms.
    lost_at_ms: Option<u64>,
}

impl SwarmMember {
    /// Opens a socket to the router. `frame`: the episode's local frame (its origin on earth).
    pub fn open(options: SwarmOptions, frame: LocalFrame) -> std::io::Result<Self> {
        let bind: SocketAddr = if options.hub.is_ipv4() {
            "0.0.0.0:0"
        } else {
            "[::]:0"
        }
        .parse()
        .map_err(std::io::Error::other)?;
        let socket = UdpSocket::bind(bind)?;
        socket.connect(options.hub)?;
        socket.set_nonblocking(true)?;
        let wire = SwarmWire::new(
            options.system_id,
            COMP_ONBOARD,
            options.roster.iter().copied(),
            options.key.clone(),
            options.system_id,
        );
        let book = PeerBook::new(
            options.system_id,
            frame,
            PeerBookSettings {
                max_speed_mps: options.max_speed_mps,
                // A mate that lost the swarm noticed after LOST_AFTER_MS and held within the
                // next sample or so: taken for stopped a second later.
                silent_after_s: (LOST_AFTER_MS + 1_000) as f64 / 1000.0,
                // A waiting mate's gate keeps the separation from us plus its margins and our
                // stopping distance: within 10 m more than the separation, we are in its way.
                blocking_m: options.min_separation_m + BLOCKING_MARGIN_M,
                ..PeerBookSettings::default()
            },
        );
        let heartbeat = Encoder::new(options.system_id, None);
        let mut member = Self {
            socket,
            wire,
            book,
            frame,
            options,
            heartbeat,
            seq: 0,
            next_intent_ms: 0,
            buf: vec![0; 2048],
            intents_sent: 0,
            intents_taken: 0,
            intents_refused: 0,
            send_errors: 0,
            last_heard_ms: None,
            lost_at_ms: None,
        };
        // The router learns where we are from our first datagram.
        member.send_heartbeat();
        Ok(member)
    }

    /// Hears the network, says our intent when it is due, and gives the gate's plans of our
    /// mates at `now_ms` (episode time). `target`: where the command under way goes; `wanted`:
    /// where the agent last asked to go, approved or not.
    pub fn exchange(
        &mut self,
        now_ms: u64,
        snapshot: &VehicleSnapshot,
        target: Option<Enu>,
        wanted: Option<Enu>,
    ) -> Vec<PeerPlan> {
        self.hear(now_ms);
        self.book.set_own_position(snapshot.position);
        if now_ms >= self.next_intent_ms {
            self.next_intent_ms = now_ms + INTENT_PERIOD_MS;
            self.say(snapshot, target, wanted);
            self.send_heartbeat();
        }
        self.book.plans(now_ms)
    }

    /// Whether this member has lost its swarm at `now_ms`: it has mates, and has heard none of
    /// them for [`LOST_AFTER_MS`] (counted from its start if it never heard one). Once lost,
    /// lost for the episode: it lands, and its mates take it for landed.
    pub fn lost(&mut self, now_ms: u64) -> bool {
        // What is waiting on the socket counts: the loop may not have sampled for a while.
        self.hear(now_ms);
        let has_mates = self
            .options
            .roster
            .iter()
            .any(|s| *s != self.options.system_id);
        let since = *self.last_heard_ms.get_or_insert(now_ms);
        if self.lost_at_ms.is_none() && has_mates && now_ms.saturating_sub(since) > LOST_AFTER_MS {
            self.lost_at_ms = Some(now_ms);
            tracing::warn!(
                "no swarm mate heard for {} ms: the swarm is lost, landing here",
                now_ms - since
            );
        }
        self.lost_at_ms.is_some()
    }

    /// What the member heard and said, at `now_ms`.
    pub fn report(&self, now_ms: u64) -> SwarmReport {
        SwarmReport {
            name: self.options.name.clone(),
            system_id: self.options.system_id,
            intents_sent: self.intents_sent,
            intents_taken: self.intents_taken,
            intents_refused: self.intents_refused,
            send_errors: self.send_errors,
            lost_at_ms: self.lost_at_ms,
            counts: self.wire.counts(),
            peers: self.book.views(now_ms),
        }
    }

    fn hear(&mut self, now_ms: u64) {
        let ts = signing_now();
        for _ in 0..MAX_DATAGRAMS_PER_POLL {
            match self.socket.recv(&mut self.buf) {
                Ok(n) => self.wire.push(&self.buf[..n], now_ms, ts),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                // A refused datagram (the router not up yet) or another error: try next time.
                Err(_) => break,
            }
        }
        while let Some(event) = self.wire.poll_event() {
            let from_mate = match &event {
                SwarmEvent::Message { from, .. } => from.system != self.options.system_id,
                SwarmEvent::Position { system, .. } => *system != self.options.system_id,
            };
            if from_mate {
                self.last_heard_ms = Some(now_ms);
            }
            match event {
                SwarmEvent::Message { from, bytes } => match Intent::parse(&bytes) {
                    Ok(intent) => match self.book.on_intent(from.system, now_ms, &intent) {
                        alpha3_core::swarm::IntentTaken::Taken => self.intents_taken += 1,
                        alpha3_core::swarm::IntentTaken::Stale => {}
                        alpha3_core::swarm::IntentTaken::Ignored => self.intents_refused += 1,
                    },
                    Err(e) => {
                        self.intents_refused += 1;
                        tracing::debug!(system = from.system, "A2A message refused: {e}");
                    }
                },
                SwarmEvent::Position { system, position } => {
                    if system != self.options.system_id {
                        self.book
                            .on_position(system, now_ms, position.geo, position.velocity);
                    }
                }
            }
        }
    }

    fn say(&mut self, snapshot: &VehicleSnapshot, target: Option<Enu>, wanted: Option<Enu>) {
        let here = snapshot.position;
        let airborne = snapshot.is_airborne();
        let mut path = vec![IntentPoint::new(0, self.frame.to_geo(here))];
        let still = target.is_none() && snapshot.ground_speed_mps() < MOVING_MPS;
        // Holding while the agent wants to be elsewhere: waiting to fly there.
        let waiting = wanted.filter(|w| still && w.distance(here) > 1.0);
        let state = if !airborne {
            IntentState::Ground
        } else if matches!(snapshot.mode, FlightMode::Land) {
            IntentState::Landing
        } else if waiting.is_some() {
            IntentState::Waiting
        } else if still {
            IntentState::Holding
        } else {
            IntentState::Flying
        };
        if airborne {
            match target.or(waiting) {
                Some(t) if t.distance(here) > 1.0 => {
                    let in_ms = self.options.pace.leg_ms(here, t);
                    path.push(IntentPoint::new(in_ms, self.frame.to_geo(t)));
                }
                _ if snapshot.ground_speed_mps() >= MOVING_MPS => {
                    let ahead = here.to_vector()
                        + snapshot.velocity.to_vector() * (f64::from(EXTRAPOLATE_MS) / 1000.0);
                    path.push(IntentPoint::new(
                        EXTRAPOLATE_MS,
                        self.frame.to_geo(Enu::from_vector(&ahead)),
                    ));
                }
                _ => {}
            }
        }
        self.seq += 1;
        let intent = Intent {
            v: INTENT_FORMAT,
            from: self.options.name.clone(),
            seq: self.seq,
            state,
            path,
        };
        match self.wire.send(&intent.to_bytes(), signing_now()) {
            Ok(frames) => {
                self.intents_sent += 1;
                for f in frames {
                    if self.socket.send(&f).is_err() {
                        self.send_errors += 1;
                    }
                }
            }
            Err(e) => tracing::warn!("intent not sent: {e}"),
        }
    }

    fn send_heartbeat(&mut self) {
        let msg = heartbeat(mav::MavType::MAV_TYPE_ONBOARD_CONTROLLER);
        let mut out = Vec::new();
        self.heartbeat.encode(COMP_ONBOARD, &msg, 0, &mut out);
        if self.socket.send(&out).is_err() {
            self.send_errors += 1;
        }
    }
}
