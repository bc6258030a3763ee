//! Bytes in any chunking → CRC-valid raw frames. Frame boundaries and CRCs are the `mavlink`
//! crate's reader's, fed from an in-memory inbox; what a frame means (signature, payload) is
//! each side's own business.

use crate::dialect::MavMessage;
use mavlink::error::MessageReadError;
use mavlink::{MAVLinkMessageRaw, MavHeader, MavlinkReader, MavlinkVersion};
use std::io::{self, Read};

/// Bytes pushed by the transport, read by the frame reader; an empty read says "need more".
#[derive(Debug, Default)]
struct Inbox {
    bytes: Vec<u8>,
    pos: usize,
}

impl Read for Inbox {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = &self.bytes[self.pos..];
        if available.is_empty() {
            self.bytes.clear();
            self.pos = 0;
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.pos += n;
        Ok(n)
    }
}

/// A CRC-valid frame, not yet parsed.
pub struct RawFrame {
    pub raw: MAVLinkMessageRaw,
    pub header: MavHeader,
    pub version: MavlinkVersion,
    /// Bytes it took on the wire.
    pub wire_len: usize,
}

impl std::fmt::Debug for RawFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawFrame")
            .field("header", &self.header)
            .field("message_id", &self.raw.message_id())
            .field("wire_len", &self.wire_len)
            .finish_non_exhaustive()
    }
}

impl RawFrame {
    /// MAVLink 2 frames flag a signature in their incompatibility flags; MAVLink 1 has none.
    pub fn signed(&self) -> bool {
        match &self.raw {
            MAVLinkMessageRaw::V1(_) => false,
            MAVLinkMessageRaw::V2(m) => m.incompatibility_flags() & 0x01 != 0,
        }
    }
}

/// Bytes → raw frames. Bytes that do not make a CRC-valid frame of the dialect are skipped.
pub struct RawFrames {
    reader: MavlinkReader<Inbox>,
}

impl std::fmt::Debug for RawFrames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inbox = self.reader.get_ref();
        f.debug_struct("RawFrames")
            .field("buffered", &(inbox.bytes.len() - inbox.pos))
            .finish_non_exhaustive()
    }
}

impl Default for RawFrames {
    fn default() -> Self {
        Self {
            reader: MavlinkReader::new(Inbox::default()),
        }
    }
}

impl RawFrames {
    /// Hands over bytes as they came off the transport. Consumed bytes are dropped once they
    /// are half the buffer, so a long-lived link does not grow it.
    pub fn push(&mut self, bytes: &[u8]) {
        let inbox = self.reader.get_mut();
        if inbox.pos > 0 && inbox.pos >= inbox.bytes.len() / 2 {
            inbox.bytes.drain(..inbox.pos);
            inbox.pos = 0;
        }
        inbox.bytes.extend_from_slice(bytes);
    }

    /// The next complete frame, or `None` until more bytes are pushed.
    pub fn next_raw(&mut self) -> Option<RawFrame> {
        let raw = match self.reader.read_any_raw_message::<MavMessage>() {
            Ok(raw) => raw,
            Err(MessageReadError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => return None,
            // The inbox only ever reports WouldBlock, and a raw read does not parse payloads.
            Err(_) => return None,
        };
        let header = MavHeader {
            system_id: raw.system_id(),
            component_id: raw.component_id(),
            sequence: raw.sequence(),
        };
        let (version, wire_len) = match &raw {
            MAVLinkMessageRaw::V1(m) => (MavlinkVersion::V1, m.raw_bytes().len()),
            MAVLinkMessageRaw::V2(m) => (MavlinkVersion::V2, m.raw_bytes().len()),
        };
        Some(RawFrame {
            raw,
            header,
            version,
            wire_len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::mav::ATTITUDE_DATA;

    fn frame(version: MavlinkVersion, seq: u8) -> Vec<u8> {
        let header = MavHeader {
            system_id: 1,
            component_id: 1,
            sequence: seq,
        };
        let message = MavMessage::ATTITUDE(ATTITUDE_DATA {
            time_boot_ms: u32::from(seq),
            ..Default::default()
        });
        let mut out = Vec::new();
        mavlink::write_versioned_msg(&mut out, version, header, &message).unwrap();
        out
    }

    #[test]
    fn frames_of_both_versions_come_out_of_any_chunking_with_their_wire_length() {
        let mut bytes = Vec::new();
        let mut lens = Vec::new();
        for seq in 0..200u8 {
            let version = if seq % 3 == 0 {
                MavlinkVersion::V1
            } else {
                MavlinkVersion::V2
            };
            let f = frame(version, seq);
            lens.push((seq, version, f.len()));
            bytes.extend(f);
            if seq == 50 {
                bytes.extend([0xfd, 0x09, 0x00, 0x42]); // noise: a torn start of frame
            }
        }
        for chunk in [1, 7, 64, 4096] {
            let mut frames = RawFrames::default();
            let mut seen = Vec::new();
            for piece in bytes.chunks(chunk) {
                frames.push(piece);
                while let Some(f) = frames.next_raw() {
                    assert!(!f.signed());
                    seen.push((f.header.sequence, f.version, f.wire_len));
                }
            }
            // The noise may cost the frame it runs into, never more.
            assert!(seen.len() >= 199, "chunk {chunk}: {}", seen.len());
            for s in &seen {
                assert_eq!(lens[usize::from(s.0)], *s, "chunk {chunk}");
            }
        }
    }

    #[test]
    fn a_long_lived_link_does_not_grow_the_buffer() {
        let mut frames = RawFrames::default();
        let one = frame(MavlinkVersion::V2, 7);
        for _ in 0..10_000 {
            frames.push(&one);
            assert!(frames.next_raw().is_some());
        }
        assert!(frames.reader.get_ref().bytes.len() <= 2 * one.len());
    }
}
