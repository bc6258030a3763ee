//! The swarm link, sans-IO: datagrams in (every frame on the swarm's shared MAVLink network),
//! [`SwarmEvent`]s out; A2A messages in, signed `TUNNEL` frames out. Time is an argument.
//!
//! Trust: an A2A chunk counts only when it is signed with the swarm's key, from a system in the
//! roster, and not our own; a position counts only when it is a roster autopilot's own
//! `GLOBAL_POSITION_INT` (component 1). Autopilots do not sign their telemetry in SITL or by
//! default, so positions are taken unsigned — but a signed one must verify; an all-zero report
//! (ArduPilot before its fix) is no position. Everything else is counted and dropped.

use super::A2A_PAYLOAD_TYPE;
use super::chunk::{Chunk, ChunkError, split};
use super::reassembly::{ChunkOutcome, Reassembly, ReassemblyCounts, Sender};
use super::tunnel::{TUNNEL_ID, Tunnel};
use crate::dialect::{MavHeader, MavMessage, Message, id};
use crate::telemetry::BroadcastPosition;
use crate::wire::{Signer, SigningKey, Verifier};
use alpha3_wire::RawFrames;
use mavlink::{MAVLinkMessageRaw, MAVLinkV2MessageRaw};
use std::collections::{BTreeSet, VecDeque};

/// Events buffered before the caller takes them; more are dropped and counted, so a flood
/// cannot grow memory between two polls.
const MAX_EVENTS: usize = 256;
/// MAVLink's component id of an autopilot.
const COMP_AUTOPILOT: u8 = 1;

/// What the swarm link heard.
#[derive(Debug, Clone, PartialEq)]
pub enum SwarmEvent {
    /// A whole A2A message from a roster member, signed with the swarm's key.
    Message { from: Sender, bytes: Vec<u8> },
    /// A roster autopilot's own position report.
    Position {
        system: u8,
        position: BroadcastPosition,
    },
}

/// What the swarm link counted, for the record and the swarm summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SwarmCounts {
    /// CRC-valid frames received.
    pub frames: u64,
    /// A2A chunks accepted into reassembly.
    pub chunks: u64,
    /// A2A messages completed.
    pub messages: u64,
    /// Positions from roster autopilots.
    pub positions: u64,
    /// A2A chunks without a signature.
    pub unsigned: u64,
    /// Frames whose signature failed (wrong key, replay, stale).
    pub bad_signature: u64,
    /// A2A chunks or positions from a system outside the roster.
    pub unknown_sender: u64,
    /// Our own frames heard back.
    pub own: u64,
    /// `TUNNEL` payloads that are not A2A chunks (another payload type or a broken chunk).
    pub not_a2a: u64,
    /// Events dropped because the caller did not take them.
    pub events_dropped: u64,
    /// A2A messages sent, and the frames they took.
    pub sent_messages: u64,
    pub sent_frames: u64,
    pub reassembly: ReassemblyCounts,
}

/// One vehicle's end of the swarm link.
#[derive(Debug)]
pub struct SwarmWire {
    system_id: u8,
    component_id: u8,
    roster: BTreeSet<u8>,
    frames: RawFrames,
    verifier: Verifier,
    signer: Signer,
    out: MAVLinkV2MessageRaw,
    sequence: u8,
    next_message_id: u16,
    reassembly: Reassembly,
    events: VecDeque<SwarmEvent>,
    counts: SwarmCounts,
}

impl SwarmWire {
    /// `system_id`/`component_id`: who we send as (a companion shares its autopilot's system
    /// id). `roster`: the swarm's system ids (ours may be in it). `link_id`: MAVLink signing's
    /// link id for our frames.
    pub fn new(
        system_id: u8,
        component_id: u8,
        roster: impl IntoIterator<Item = u8>,
        key: SigningKey,
        link_id: u8,
    ) -> Self {
        Self {
            system_id,
            component_id,
            roster: roster.into_iter().collect(),
            frames: RawFrames::default(),
            verifier: Verifier::new(key.clone()),
            signer: Signer::new(key, link_id),
            out: MAVLinkV2MessageRaw::new(),
            sequence: 0,
            next_message_id: 0,
            reassembly: Reassembly::new(),
            events: VecDeque::new(),
            counts: SwarmCounts::default(),
        }
    }

    pub fn counts(&self) -> SwarmCounts {
        SwarmCounts {
            reassembly: self.reassembly.counts(),
            ..self.counts
        }
    }

    /// One datagram (or any chunk of a byte stream) off the swarm network. `now_ms` is the
    /// reassembly's clock; `now_ts` the signing clock (10 µs ticks since 2015).
    pub fn push(&mut self, bytes: &[u8], now_ms: u64, now_ts: u64) {
        self.frames.push(bytes);
        while let Some(frame) = self.frames.next_raw() {
            self.counts.frames += 1;
            let signed = frame.signed();
            let header = frame.header;
            let message_id = frame.raw.message_id();
            let Ok(system) = u8::try_from(header.system_id) else {
                self.counts.unknown_sender += 1;
                continue;
            };
            if system == self.system_id && header.component_id == self.component_id {
                self.counts.own += 1;
                continue;
            }
            if signed {
                let verified = match &frame.raw {
                    MAVLinkMessageRaw::V2(m) => self.verifier.verify(m, now_ts).is_ok(),
                    MAVLinkMessageRaw::V1(_) => false,
                };
                if !verified {
                    self.counts.bad_signature += 1;
                    continue;
                }
            }
            match message_id {
                TUNNEL_ID => {
                    let Ok(tunnel) = Tunnel::parse(frame.version, message_id, frame.raw.payload())
                    else {
                        self.counts.not_a2a += 1;
                        continue;
                    };
                    if tunnel.payload_type != A2A_PAYLOAD_TYPE {
                        self.counts.not_a2a += 1;
                        continue;
                    }
                    if !signed {
                        self.counts.unsigned += 1;
                        continue;
                    }
                    if !self.roster.contains(&system) {
                        self.counts.unknown_sender += 1;
                        continue;
                    }
                    self.take_chunk(
                        Sender {
                            system,
                            component: header.component_id,
                        },
                        &tunnel.payload,
                        now_ms,
                    );
                }
                id::GLOBAL_POSITION_INT => {
                    if !self.roster.contains(&system) {
                        self.counts.unknown_sender += 1;
                        continue;
                    }
                    if header.component_id != COMP_AUTOPILOT {
                        continue;
                    }
                    if let Ok(MavMessage::GLOBAL_POSITION_INT(report)) =
                        MavMessage::parse(frame.version, message_id, frame.raw.payload())
                        && let Some(position) = BroadcastPosition::of(&report)
                    {
                        self.counts.positions += 1;
                        self.emit(SwarmEvent::Position { system, position });
                    }
                }
                _ => {}
            }
        }
        self.reassembly.expire(now_ms);
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<SwarmEvent> {
        self.events.pop_front()
    }

    /// `message` as signed `TUNNEL` frames, one per chunk, each for its own datagram.
    pub fn send(&mut self, message: &[u8], now_ts: u64) -> Result<Vec<Vec<u8>>, ChunkError> {
        let message_id = self.next_message_id;
        let chunks = split(message_id, message)?;
        self.next_message_id = self.next_message_id.wrapping_add(1);
        let mut frames = Vec::with_capacity(chunks.len());
        for payload in chunks {
            let tunnel = Tunnel {
                target_system: 0,
                target_component: 0,
                payload_type: A2A_PAYLOAD_TYPE,
                payload,
            };
            let header = MavHeader {
                system_id: u32::from(self.system_id),
                component_id: self.component_id,
                sequence: self.sequence,
            };
            self.sequence = self.sequence.wrapping_add(1);
            self.out.serialize_message_for_signing(header, &tunnel);
            self.signer.sign(&mut self.out, now_ts);
            frames.push(self.out.raw_bytes().to_vec());
        }
        self.counts.sent_messages += 1;
        self.counts.sent_frames += frames.len() as u64;
        Ok(frames)
    }

    fn take_chunk(&mut self, from: Sender, payload: &[u8], now_ms: u64) {
        let Ok(chunk) = Chunk::parse(payload) else {
            self.counts.not_a2a += 1;
            return;
        };
        self.counts.chunks += 1;
        if let ChunkOutcome::Complete(bytes) = self.reassembly.push(from, chunk, now_ms) {
            self.counts.messages += 1;
            self.emit(SwarmEvent::Message { from, bytes });
        }
    }

    fn emit(&mut self, event: SwarmEvent) {
        if self.events.len() >= MAX_EVENTS {
            self.counts.events_dropped += 1;
            return;
        }
        self.events.push_back(event);
    }
}
