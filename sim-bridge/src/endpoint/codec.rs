//! MAVLink framing for the endpoint, sans-IO: bytes in any chunking become frames (the `mavlink`
//! crate's reader over an in-memory inbox), messages become MAVLink 2 frames with the vehicle's
//! ids and one sequence counter per link, as PX4 keeps one per MAVLink instance.

use mavlink::error::MessageReadError;
use mavlink::{MAVLinkMessageRaw, MAVLinkV2MessageRaw, MavHeader, MavlinkReader, Message};
use std::io::{self, Read};

pub use mavlink::dialects::ardupilotmega as mav;

/// Every message the endpoint sends or understands (ardupilotmega ⊃ common, PX4's dialect).
pub type MavMessage = mav::MavMessage;

/// `MAV_COMP_ID_AUTOPILOT1`: PX4's flight stack.
pub const COMP_AUTOPILOT: u8 = 1;

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

/// A frame that came in.
#[derive(Debug, Clone)]
pub struct Frame {
    pub header: MavHeader,
    pub message: MavMessage,
    /// Bytes it took on the wire.
    pub wire_len: usize,
}

/// Bytes → frames. CRC-bad bytes are skipped by the reader; CRC-good frames whose payload does
/// not parse are counted and dropped.
pub struct FrameDecoder {
    reader: MavlinkReader<Inbox>,
    unparsable: u64,
}

impl std::fmt::Debug for FrameDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameDecoder")
            .field("unparsable", &self.unparsable)
            .finish_non_exhaustive()
    }
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameDecoder {
    pub fn new() -> Self {
        Self {
            reader: MavlinkReader::new(Inbox::default()),
            unparsable: 0,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        let inbox = self.reader.get_mut();
        if inbox.pos > 0 && inbox.pos >= inbox.bytes.len() / 2 {
            inbox.bytes.drain(..inbox.pos);
            inbox.pos = 0;
        }
        inbox.bytes.extend_from_slice(bytes);
    }

    /// The next complete frame, or `None` until more bytes come.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let raw = match self.reader.read_any_raw_message::<MavMessage>() {
                Ok(raw) => raw,
                Err(MessageReadError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                    return None;
                }
                // The inbox only reports WouldBlock; raw reads do not parse payloads.
                Err(_) => return None,
            };
            let (version, wire_len) = match &raw {
                MAVLinkMessageRaw::V1(m) => (mavlink::MavlinkVersion::V1, m.raw_bytes().len()),
                MAVLinkMessageRaw::V2(m) => (mavlink::MavlinkVersion::V2, m.raw_bytes().len()),
            };
            let header = MavHeader {
                system_id: raw.system_id(),
                component_id: raw.component_id(),
                sequence: raw.sequence(),
            };
            match MavMessage::parse(version, raw.message_id(), raw.payload()) {
                Ok(message) => {
                    return Some(Frame {
                        header,
                        message,
                        wire_len,
                    });
                }
                Err(_) => self.unparsable += 1,
            }
        }
    }

    /// CRC-valid frames whose payload did not parse.
    pub fn unparsable(&self) -> u64 {
        self.unparsable
    }
}

/// Messages → MAVLink 2 frames from (system, component), sequence numbers counting up.
#[derive(Debug, Clone)]
pub struct FrameEncoder {
    system_id: u8,
    component_id: u8,
    sequence: u8,
    frame: MAVLinkV2MessageRaw,
}

impl FrameEncoder {
    pub fn new(system_id: u8, component_id: u8) -> Self {
        Self {
            system_id,
            component_id,
            sequence: 0,
            frame: MAVLinkV2MessageRaw::new(),
        }
    }

    /// One frame for `message`, as bytes.
    pub fn encode(&mut self, message: &MavMessage) -> Vec<u8> {
        let header = MavHeader {
            system_id: u32::from(self.system_id),
            component_id: self.component_id,
            sequence: self.sequence,
        };
        self.sequence = self.sequence.wrapping_add(1);
        self.frame.serialize_message(header, message);
        self.frame.raw_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_any_chunking_and_carry_our_ids_and_sequence() {
        let mut enc = FrameEncoder::new(3, COMP_AUTOPILOT);
        let mut bytes = Vec::new();
        for i in 0..300u32 {
            let m = MavMessage::ATTITUDE(mav::ATTITUDE_DATA {
                time_boot_ms: i,
                ..Default::default()
            });
            bytes.extend(enc.encode(&m));
        }
        // Noise between frames is skipped.
        bytes.splice(100..100, [0xfd, 0x01, 0x02]);
        for chunk in [1, 7, 64, 4096] {
            let mut dec = FrameDecoder::new();
            let mut seen = Vec::new();
            for piece in bytes.chunks(chunk) {
                dec.push(piece);
                while let Some(f) = dec.next_frame() {
                    assert_eq!((f.header.system_id, f.header.component_id), (3, 1));
                    seen.push(f.header.sequence);
                }
            }
            assert!(seen.len() >= 298, "chunk {chunk}: {}", seen.len());
            assert_eq!(*seen.last().unwrap(), (299 % 256) as u8);
        }
    }
}
