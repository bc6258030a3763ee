//! MAVLink's `TUNNEL` (#385) with any `payload_type`.
//!
//! The generated dialect types `payload_type` as the `MAV_TUNNEL_PAYLOAD_TYPE` enum, so a frame
//! carrying a code from the local-use range (above 32767, where alpha3's A2A code sits) neither
//! encodes nor parses through it. This is the same message on the wire — field order, MAVLink 2
//! trailing-zero truncation and CRC extra as the definition gives them — with the code kept as
//! the number it is.

use mavlink::error::ParserError;
use mavlink::{MavlinkVersion, Message};

/// `TUNNEL`'s message id.
pub const TUNNEL_ID: u32 = 385;
/// `TUNNEL`'s CRC extra (from its field list; checked against the generated dialect in tests).
pub const TUNNEL_CRC_EXTRA: u8 = 147;
/// Bytes of payload one `TUNNEL` carries.
pub const TUNNEL_PAYLOAD_MAX: usize = 128;
/// payload_type (2) + target_system + target_component + payload_length + payload.
const WIRE_LEN: usize = 5 + TUNNEL_PAYLOAD_MAX;

/// One `TUNNEL` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tunnel {
    pub target_system: u8,
    pub target_component: u8,
    pub payload_type: u16,
    /// At most [`TUNNEL_PAYLOAD_MAX`] bytes (`payload_length` on the wire).
    pub payload: Vec<u8>,
}

impl Tunnel {
    /// The payload's declared length clamped to what the frame can hold: a sender that
    /// declares more than 128 bytes gets the 128 that are there.
    fn from_wire(bytes: &[u8]) -> Self {
        let mut full = [0u8; WIRE_LEN];
        let n = bytes.len().min(WIRE_LEN);
        full[..n].copy_from_slice(&bytes[..n]);
        let length = usize::from(full[4]).min(TUNNEL_PAYLOAD_MAX);
        Self {
            payload_type: u16::from_le_bytes([full[0], full[1]]),
            target_system: full[2],
            target_component: full[3],
            payload: full[5..5 + length].to_vec(),
        }
    }
}

impl Message for Tunnel {
    fn message_id(&self) -> u32 {
        TUNNEL_ID
    }

    fn message_name(&self) -> &'static str {
        "TUNNEL"
    }

    fn target_system_id(&self) -> Option<u8> {
        Some(self.target_system)
    }

    fn target_component_id(&self) -> Option<u8> {
        Some(self.target_component)
    }

    fn target_system_id_mut(&mut self) -> Option<&mut u8> {
        Some(&mut self.target_system)
    }

    fn target_component_id_mut(&mut self) -> Option<&mut u8> {
        Some(&mut self.target_component)
    }

    fn ser(&self, version: MavlinkVersion, bytes: &mut [u8]) -> usize {
        let length = self.payload.len().min(TUNNEL_PAYLOAD_MAX);
        let mut wire = [0u8; WIRE_LEN];
        wire[..2].copy_from_slice(&self.payload_type.to_le_bytes());
        wire[2] = self.target_system;
        wire[3] = self.target_component;
        // `length` is at most 128.
        wire[4] = u8::try_from(length).unwrap_or(u8::MAX);
        wire[5..5 + length].copy_from_slice(&self.payload[..length]);
        let used = match version {
            // MAVLink 2 drops trailing zero bytes (at least one byte stays).
            MavlinkVersion::V2 => wire.iter().rposition(|b| *b != 0).map_or(1, |i| i + 1),
            MavlinkVersion::V1 => WIRE_LEN,
        };
        bytes[..used].copy_from_slice(&wire[..used]);
        used
    }

    fn parse(_version: MavlinkVersion, msgid: u32, payload: &[u8]) -> Result<Self, ParserError> {
        if msgid != TUNNEL_ID {
            return Err(ParserError::UnknownMessage { id: msgid });
        }
        Ok(Self::from_wire(payload))
    }

    fn message_id_from_name(name: &str) -> Option<u32> {
        (name == "TUNNEL").then_some(TUNNEL_ID)
    }

    fn default_message_from_id(id: u32) -> Option<Self> {
        (id == TUNNEL_ID).then(|| Self {
            target_system: 0,
            target_component: 0,
            payload_type: 0,
            payload: Vec::new(),
        })
    }

    fn extra_crc(id: u32) -> u8 {
        if id == TUNNEL_ID { TUNNEL_CRC_EXTRA } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{MavHeader, MavMessage, mav};
    use mavlink::MAVLinkV2MessageRaw;

    fn frame<M: Message>(message: &M) -> Vec<u8> {
        let mut raw = MAVLinkV2MessageRaw::new();
        let header = MavHeader {
            system_id: 7,
            component_id: 191,
            sequence: 3,
        };
        raw.serialize_message(header, message);
        raw.raw_bytes().to_vec()
    }

    #[test]
    fn the_crc_extra_is_the_dialects() {
        assert_eq!(MavMessage::extra_crc(TUNNEL_ID), TUNNEL_CRC_EXTRA);
    }

    #[test]
    fn a_known_payload_type_encodes_as_the_generated_message_does() {
        let mut payload = [0u8; 128];
        payload[..5].copy_from_slice(b"hello");
        let generated = MavMessage::TUNNEL(mav::TUNNEL_DATA {
            payload_type: mav::MavTunnelPayloadType::MAV_TUNNEL_PAYLOAD_TYPE_STORM32_RESERVED3,
            target_system: 9,
            target_component: 1,
            payload_length: 5,
            payload,
        });
        let ours = Tunnel {
            target_system: 9,
            target_component: 1,
            payload_type: 203,
            payload: b"hello".to_vec(),
        };
        assert_eq!(frame(&generated), frame(&ours));
    }

    #[test]
    fn a_local_payload_type_survives_the_wire_that_the_dialect_refuses() {
        let ours = Tunnel {
            target_system: 0,
            target_component: 0,
            payload_type: 41_635,
            payload: vec![0xAB; 128],
        };
        let bytes = frame(&ours);
        let payload = &bytes[10..bytes.len() - 2];
        assert!(MavMessage::parse(MavlinkVersion::V2, TUNNEL_ID, payload).is_err());
        assert_eq!(
            Tunnel::parse(MavlinkVersion::V2, TUNNEL_ID, payload).unwrap(),
            ours
        );
    }

    #[test]
    fn a_truncated_or_overlong_payload_is_read_within_the_frame() {
        // Trailing zeros cut by MAVLink 2 come back as zeros.
        let ours = Tunnel {
            target_system: 1,
            target_component: 2,
            payload_type: 40_000,
            payload: vec![1, 0, 0, 0],
        };
        let mut buf = [0u8; 255];
        let n = ours.ser(MavlinkVersion::V2, &mut buf);
        assert_eq!(n, 6);
        assert_eq!(
            Tunnel::parse(MavlinkVersion::V2, TUNNEL_ID, &buf[..n]).unwrap(),
            ours
        );
        // A declared length over 128 is clamped to the 128 bytes the frame has.
        let mut wire = [7u8; 133];
        wire[4] = 250;
        let t = Tunnel::parse(MavlinkVersion::V2, TUNNEL_ID, &wire).unwrap();
        assert_eq!(t.payload.len(), 128);
        assert!(Tunnel::parse(MavlinkVersion::V2, 0, &wire).is_err());
    }
}
