//! Golden frames (produced independently by pymavlink 2.4.50, see each comment) and decoder
//! properties: chunking, resynchronisation, signing.

use super::*;
use crate::dialect::{COMP_ONBOARD, MavMessage, Message, mav};

/// Our onboard-controller heartbeat, system 1, component 191, sequence 0.
#[rustfmt::skip]
const HEARTBEAT: [u8; 21] = [
    0xfd,                   // STX: MAVLink 2
    0x09,                   // payload length 9
    0x00,                   // incompatibility flags: unsigned
    0x00,                   // compatibility flags
    0x00,                   // sequence 0
    0x01,                   // system id 1
    0xbf,                   // component id 191 (onboard computer)
    0x00, 0x00, 0x00,       // message id 0 (HEARTBEAT), 24-bit little-endian
    0x00, 0x00, 0x00, 0x00, // custom_mode 0
    0x12,                   // type 18: MAV_TYPE_ONBOARD_CONTROLLER
    0x08,                   // autopilot 8: MAV_AUTOPILOT_INVALID (not a flight controller)
    0x00,                   // base_mode 0 (in particular: not armed)
    0x04,                   // system_status 4: MAV_STATE_ACTIVE
    0x03,                   // mavlink_version 3
    0xae, 0xc6,             // CRC-16/MCRF4XX over bytes 1..19 + CRC_EXTRA 50
];

/// COMMAND_LONG arm (400, param1 = 1) to system 1 component 1, sequence 1; the zero
/// `confirmation` byte is trimmed, as MAVLink 2 trims trailing zero payload bytes.
#[rustfmt::skip]
const ARM: [u8; 44] = [
    0xfd, 0x20, 0x00, 0x00, // STX, payload length 32, flags
    0x01,                   // sequence 1
    0x01, 0xbf,             // system 1, component 191
    0x4c, 0x00, 0x00,       // message id 76 (COMMAND_LONG)
    0x00, 0x00, 0x80, 0x3f, // param1 = 1.0f32
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // param2..4
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // param5..7
    0x90, 0x01,             // command 400: MAV_CMD_COMPONENT_ARM_DISARM
    0x01, 0x01,             // target system 1, target component 1
    0x6a, 0x1b,             // CRC (CRC_EXTRA 152)
];

/// The heartbeat signed with key 00 01 .. 1f, link id 7, timestamp 0x010203040506.
#[rustfmt::skip]
const HEARTBEAT_SIGNED: [u8; 34] = [
    0xfd, 0x09,
    0x01,                   // incompatibility flags: MAVLINK_IFLAG_SIGNED
    0x00, 0x00, 0x01, 0xbf, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x12, 0x08, 0x00, 0x04, 0x03,
    0x49, 0x3e,             // CRC: the flags byte is covered, so it differs from the unsigned one
    0x07,                   // link id 7
    0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // timestamp, 48-bit little-endian
    0x1f, 0x3f, 0xf1, 0xf1, 0x61, 0x38, // first 6 bytes of SHA-256(key | frame | link | ts)
];

const TS: u64 = 0x0102_0304_0506;

fn key() -> SigningKey {
    let mut k = [0u8; 32];
    for (i, b) in k.iter_mut().enumerate() {
        *b = i as u8;
    }
    SigningKey::new(k)
}

fn heartbeat() -> MavMessage {
    MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
        custom_mode: 0,
        mavtype: mav::MavType::MAV_TYPE_ONBOARD_CONTROLLER,
        autopilot: mav::MavAutopilot::MAV_AUTOPILOT_INVALID,
        base_mode: mav::MavModeFlag::empty(),
        system_status: mav::MavState::MAV_STATE_ACTIVE,
        mavlink_version: 3,
    })
}

fn arm() -> MavMessage {
    MavMessage::COMMAND_LONG(mav::COMMAND_LONG_DATA {
        param1: 1.0,
        command: mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM,
        target_system: 1,
        target_component: 1,
        ..Default::default()
    })
}

#[test]
fn encodes_the_golden_frames() {
    let mut enc = Encoder::new(1, None);
    let mut out = Vec::new();
    assert_eq!(enc.encode(COMP_ONBOARD, &heartbeat(), 0, &mut out), 21);
    assert_eq!(out, HEARTBEAT);
    out.clear();
    enc.encode(COMP_ONBOARD, &arm(), 0, &mut out);
    assert_eq!(out, ARM);
}

#[test]
fn signs_exactly_as_pymavlink_does() {
    let mut enc = Encoder::new(1, Some(Signer::new(key(), 7)));
    let mut out = Vec::new();
    enc.encode(COMP_ONBOARD, &heartbeat(), TS, &mut out);
    assert_eq!(out, HEARTBEAT_SIGNED);
    // The next frame's timestamp moves on even when the clock does not.
    out.clear();
    enc.encode(COMP_ONBOARD, &heartbeat(), TS, &mut out);
    assert_eq!(&out[22..28], &(TS + 1).to_le_bytes()[..6]);
}

#[test]
fn sequence_numbers_count_per_component_and_wrap() {
    let mut enc = Encoder::new(1, None);
    let mut out = Vec::new();
    for _ in 0..256 {
        enc.encode(COMP_ONBOARD, &heartbeat(), 0, &mut out);
    }
    out.clear();
    enc.encode(COMP_ONBOARD, &heartbeat(), 0, &mut out);
    assert_eq!(out[4], 0, "wrapped after 256 frames");
    out.clear();
    enc.encode(190, &heartbeat(), 0, &mut out);
    assert_eq!(out[4], 0, "another component has its own counter");
}

#[test]
fn decodes_the_same_stream_at_every_chunk_size() {
    let mut stream = vec![0x00, 0xfd, 0x55]; // noise, including a false start marker
    stream.extend_from_slice(&HEARTBEAT);
    stream.extend_from_slice(&[0xfe, 0x01]); // a truncated MAVLink 1 start
    stream.extend_from_slice(&ARM);
    stream.extend_from_slice(&HEARTBEAT);
    for chunk in 1..=stream.len() {
        let mut dec = Decoder::new();
        let mut got = Vec::new();
        for piece in stream.chunks(chunk) {
            dec.push(piece);
            while let Some(r) = dec.next(0) {
                got.push(r.unwrap());
            }
        }
        let ids: Vec<u32> = got.iter().map(|f| f.message.message_id()).collect();
        assert_eq!(ids, [0, 76, 0], "chunk size {chunk}");
        assert_eq!(got[1].header.sequence, 1);
        assert_eq!(got[1].wire_len, ARM.len());
        assert_eq!(got[1].message, arm());
    }
}

#[test]
fn a_corrupted_frame_is_skipped_and_the_next_one_found() {
    let mut bad = HEARTBEAT;
    bad[12] ^= 0x40;
    let mut dec = Decoder::new();
    dec.push(&bad);
    dec.push(&ARM);
    let first = dec.next(0).unwrap().unwrap();
    assert_eq!(first.message, arm());
    assert!(dec.next(0).is_none());
}

#[test]
fn signed_frames_verify_with_the_right_key_only() {
    let mut dec = Decoder::with_signing(Verifier::new(key()), true);
    dec.push(&HEARTBEAT_SIGNED);
    let ok = dec.next(TS).unwrap().unwrap();
    assert!(ok.signed);
    assert_eq!(ok.message, heartbeat());

    let mut other = Decoder::with_signing(Verifier::new(SigningKey::new([9; 32])), true);
    other.push(&HEARTBEAT_SIGNED);
    let err = other.next(TS).unwrap().unwrap_err();
    assert_eq!(
        err.reason,
        RejectReason::Signature(SignatureFault::BadSignature)
    );
}

#[test]
fn replays_and_unsigned_frames_are_refused_when_required() {
    let mut dec = Decoder::with_signing(Verifier::new(key()), true);
    dec.push(&HEARTBEAT_SIGNED);
    dec.push(&HEARTBEAT_SIGNED);
    dec.push(&HEARTBEAT);
    assert!(dec.next(TS).unwrap().is_ok());
    assert_eq!(
        dec.next(TS).unwrap().unwrap_err().reason,
        RejectReason::Signature(SignatureFault::Replay)
    );
    assert_eq!(
        dec.next(TS).unwrap().unwrap_err().reason,
        RejectReason::Unsigned
    );

    // Signing configured but not required: unsigned frames pass.
    let mut lenient = Decoder::with_signing(Verifier::new(key()), false);
    lenient.push(&HEARTBEAT);
    assert!(lenient.next(TS).unwrap().is_ok());
}

#[test]
fn a_new_stream_more_than_a_minute_old_is_stale() {
    let mut dec = Decoder::with_signing(Verifier::new(key()), true);
    dec.push(&HEARTBEAT_SIGNED);
    let now = TS + 61 * 100_000;
    assert_eq!(
        dec.next(now).unwrap().unwrap_err().reason,
        RejectReason::Signature(SignatureFault::Stale)
    );
}
