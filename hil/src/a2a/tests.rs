use super::*;
use crate::dialect::{MavHeader, MavMessage, mav};
use crate::wire::{Encoder, Signer, SigningKey, signing_timestamp};
use tunnel::Tunnel;

const KEY: [u8; 32] = [7; 32];
const T0: u64 = 1_000_000_000;

fn wire(system: u8) -> SwarmWire {
    SwarmWire::new(system, 191, [1, 2, 3], SigningKey::new(KEY), system)
}

fn events(w: &mut SwarmWire) -> Vec<SwarmEvent> {
    std::iter::from_fn(|| w.poll_event()).collect()
}

fn position(system: u8, component: u8, lat: i32) -> Vec<u8> {
    let mut enc = Encoder::new(system, None);
    let mut out = Vec::new();
    let msg = MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
        time_boot_ms: 1000,
        lat,
        lon: 85_000_000,
        alt: 500_000,
        relative_alt: 30_000,
        vx: 100,
        vy: 0,
        vz: 0,
        hdg: 9000,
    });
    enc.encode(component, &msg, 0, &mut out);
    out
}

#[test]
fn a_long_message_crosses_as_signed_chunks_and_arrives_whole() {
    let (mut a, mut b) = (wire(1), wire(2));
    let message: Vec<u8> = br#"{"intent":"#.iter().copied().cycle().take(700).collect();
    let frames = a.send(&message, T0).unwrap();
    assert_eq!(frames.len(), 6);
    for f in &frames {
        assert!(f.len() <= 12 + 133 + 2 + 13, "one TUNNEL frame each");
        b.push(f, 10, T0);
    }
    assert_eq!(
        events(&mut b),
        vec![SwarmEvent::Message {
            from: Sender {
                system: 1,
                component: 191
            },
            bytes: message
        }]
    );
    let c = b.counts();
    assert_eq!(
        (c.chunks, c.messages, c.unsigned, c.bad_signature),
        (6, 1, 0, 0)
    );
    assert_eq!(a.counts().sent_frames, 6);
}

#[test]
fn unsigned_wrong_key_unknown_and_own_frames_are_counted_and_dropped() {
    let mut b = wire(2);
    // Unsigned TUNNEL of our payload type.
    let mut plain = mavlink::MAVLinkV2MessageRaw::new();
    let tunnel = Tunnel {
        target_system: 0,
        target_component: 0,
        payload_type: A2A_PAYLOAD_TYPE,
        payload: chunk::split(0, b"hi").unwrap().remove(0),
    };
    let header = MavHeader {
        system_id: 1,
        component_id: 191,
        sequence: 0,
    };
    plain.serialize_message(header, &tunnel);
    b.push(plain.raw_bytes(), 0, T0);
    // Signed with another key.
    let mut other = SwarmWire::new(1, 191, [1, 2, 3], SigningKey::new([8; 32]), 1);
    for f in other.send(b"hi", T0).unwrap() {
        b.push(&f, 0, T0);
    }
    // Signed with the key, from outside the roster.
    let mut stranger = SwarmWire::new(9, 191, [9], SigningKey::new(KEY), 9);
    for f in stranger.send(b"hi", T0).unwrap() {
        b.push(&f, 0, T0);
    }
    // Our own, heard back through the router.
    let mut me = wire(2);
    for f in me.send(b"hi", T0).unwrap() {
        b.push(&f, 0, T0);
    }
    // A replay of a frame already taken.
    let mut a = wire(1);
    let f = a.send(b"once", T0).unwrap().remove(0);
    b.push(&f, 0, T0);
    b.push(&f, 0, T0);
    let got = events(&mut b);
    assert_eq!(got.len(), 1, "{got:?}");
    let c = b.counts();
    assert_eq!(
        (c.unsigned, c.bad_signature, c.unknown_sender, c.own),
        (1, 2, 1, 1)
    );
}

#[test]
fn positions_come_from_roster_autopilots_only() {
    let mut b = wire(2);
    b.push(&position(3, 1, 473_977_000), 0, T0);
    b.push(&position(3, 191, 1), 0, T0);
    b.push(&position(8, 1, 2), 0, T0);
    let got = events(&mut b);
    assert_eq!(got.len(), 1);
    let SwarmEvent::Position { system, position } = &got[0] else {
        panic!("{got:?}")
    };
    assert_eq!(*system, 3);
    assert!(
        (position.geo.lat_deg - 47.3977).abs() < 1e-9,
        "{position:?}"
    );
    assert!(
        (position.velocity.y - 1.0).abs() < 1e-9,
        "vx north 100 cm/s: {position:?}"
    );
    assert_eq!(b.counts().unknown_sender, 1);
}

#[test]
fn a_signed_position_must_verify() {
    let mut b = wire(2);
    let key = SigningKey::new([8; 32]);
    let mut enc = Encoder::new(3, Some(Signer::new(key, 3)));
    let mut out = Vec::new();
    let msg = MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA::default());
    enc.encode(1, &msg, signing_timestamp(1_700_000_000_000_000), &mut out);
    b.push(&out, 0, T0);
    assert!(events(&mut b).is_empty());
    assert_eq!(b.counts().bad_signature, 1);
}

#[test]
fn corrupt_bytes_and_a_flood_stay_bounded() {
    let mut b = wire(2);
    let mut a = wire(1);
    // Garbage between frames is skipped.
    b.push(&[0xFD, 0xFF, 0x00, 0x13, 0x37], 0, T0);
    for i in 0..2_000u64 {
        // Only first chunks: every message stays partial.
        let frames = a.send(&vec![b'x'; 400], T0 + i).unwrap();
        b.push(&frames[0], i, T0 + i);
    }
    let c = b.counts();
    assert_eq!(c.messages, 0);
    assert_eq!(c.chunks, 2_000);
    assert!(c.reassembly.evicted + c.reassembly.expired >= 2_000 - 32);
    assert!(events(&mut b).is_empty());
}
