//! MAVLink framing for the endpoint, sans-IO: bytes in any chunking become frames
//! (`alpha3_wire::RawFrames`, the same framing as the companion side), messages become
//! MAVLink 2 frames with the vehicle's ids and one sequence counter per link, as PX4 keeps one
//! per MAVLink instance.

use alpha3_wire::RawFrames;
use mavlink::{MAVLinkV2MessageRaw, MavHeader, Message};

pub use alpha3_wire::dialect::{COMP_AUTOPILOT, MavMessage, mav};

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
    frames: RawFrames,
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
            frames: RawFrames::default(),
            unparsable: 0,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.frames.push(bytes);
    }

    /// The next complete frame, or `None` until more bytes come.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let raw = self.frames.next_raw()?;
            match MavMessage::parse(raw.version, raw.raw.message_id(), raw.raw.payload()) {
                Ok(message) => {
                    return Some(Frame {
                        header: raw.header,
                        message,
                        wire_len: raw.wire_len,
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
