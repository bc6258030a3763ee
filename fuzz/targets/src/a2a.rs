//! The swarm link ([`SwarmWire`]) against a hostile network: a program of datagrams — raw
//! fuzzed bytes, signed A2A chunks built from fuzzed payloads (so the reassembly is reached
//! past the signature), unsigned ones, positions — and time steps; every completed message is
//! read as an intent ([`Intent::parse`]) and given to a [`PeerBook`].
//!
//! Invariants: no panic; a completed message is at most the longest a message may be; no
//! more messages than chunks; every plan the book gives has knots in increasing time and a
//! finite radius.

use crate::bytes::Bytes;
use alpha3_core::frames::{Geo, LocalFrame};
use alpha3_core::swarm::{Intent, PeerBook, PeerBookSettings};
use alpha3_hil::a2a::chunk::MESSAGE_MAX;
use alpha3_hil::a2a::tunnel::Tunnel;
use alpha3_hil::a2a::{A2A_PAYLOAD_TYPE, SwarmEvent, SwarmWire};
use alpha3_hil::dialect::{MavHeader, MavMessage, mav};
use alpha3_hil::wire::{Encoder, Signer, SigningKey};

const KEY: [u8; 32] = [0x5A; 32];

pub fn run(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mut wire = SwarmWire::new(1, 191, [1, 2, 3], SigningKey::new(KEY), 1);
    let home = Geo {
        lat_deg: 47.397_742,
        lon_deg: 8.545_594,
        alt_amsl_m: 488.0,
    };
    let mut book = PeerBook::new(1, LocalFrame::new(home), PeerBookSettings::default());
    let mut signers: Vec<Encoder> = (0..4u8)
        .map(|s| Encoder::new(s, Some(Signer::new(SigningKey::new(KEY), s))))
        .collect();
    let mut now_ms = 0u64;
    let mut ts = 1_000_000u64;
    while !b.is_empty() {
        match b.u8() % 5 {
            0 => {
                wire.push(b.slice(255), now_ms, ts);
            }
            1 | 2 => {
                // A signed TUNNEL from a fuzzed sender with a fuzzed payload.
                let sender = usize::from(b.u8() % 4);
                let component = b.u8();
                let payload = b.slice(128).to_vec();
                let tunnel = Tunnel {
                    target_system: 0,
                    target_component: 0,
                    payload_type: if b.u8() % 8 == 0 {
                        b.u16()
                    } else {
                        A2A_PAYLOAD_TYPE
                    },
                    payload,
                };
                let mut raw = mavlink::MAVLinkV2MessageRaw::new();
                let header = MavHeader {
                    system_id: sender as u32,
                    component_id: component,
                    sequence: 0,
                };
                raw.serialize_message_for_signing(header, &tunnel);
                let mut s = Signer::new(SigningKey::new(KEY), sender as u8);
                ts += 1;
                s.sign(&mut raw, ts);
                wire.push(raw.raw_bytes(), now_ms, ts);
            }
            3 => {
                let sender = usize::from(b.u8() % 4);
                let msg = MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
                    time_boot_ms: 0,
                    lat: b.u32() as i32,
                    lon: b.u32() as i32,
                    alt: b.u32() as i32,
                    relative_alt: 0,
                    vx: b.u16() as i16,
                    vy: b.u16() as i16,
                    vz: b.u16() as i16,
                    hdg: 0,
                });
                let mut out = Vec::new();
                ts += 1;
                signers[sender].encode(1, &msg, ts, &mut out);
                wire.push(&out, now_ms, ts);
            }
            _ => {
                now_ms += u64::from(b.u16());
                ts += u64::from(b.u16()) * 100;
            }
        }
        while let Some(event) = wire.poll_event() {
            match event {
                SwarmEvent::Message { from, bytes } => {
                    assert!(bytes.len() <= MESSAGE_MAX, "a message over the limit");
                    if let Ok(intent) = Intent::parse(&bytes) {
                        book.on_intent(from.system, now_ms, &intent);
                    }
                }
                SwarmEvent::Position { system, position } => {
                    book.on_position(system, now_ms, position.geo, position.velocity);
                }
            }
        }
        let counts = wire.counts();
        assert!(
            counts.reassembly.completed <= counts.chunks,
            "more messages than chunks"
        );
    }
    for plan in book.plans(now_ms) {
        assert!(!plan.knots.is_empty(), "a plan without knots");
        assert!(
            plan.knots.windows(2).all(|w| w[0].time_ms < w[1].time_ms),
            "knot times must increase"
        );
        assert!(
            plan.radius_m.is_finite() && plan.radius_m >= 0.0,
            "radius {}",
            plan.radius_m
        );
    }
}
