//! Bytes in, messages out: a sans-IO decoder shared by every transport, the tests and the
//! benchmark. Frame boundaries and CRCs come from `alpha3_wire::RawFrames` (the same framing as
//! the world's endpoint), so the same bytes decode the same way whatever the chunking; this
//! side adds signatures and parsing.

use super::signing::{SignatureFault, Verifier};
use crate::dialect::{MavHeader, MavMessage, MavlinkVersion, Message};
use alpha3_wire::RawFrames;
use mavlink::MAVLinkMessageRaw;

/// A decoded, accepted frame.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub header: MavHeader,
    pub message: MavMessage,
    pub version: MavlinkVersion,
    /// Carried a signature that we verified (or could not verify, when we have no key).
    pub signed: bool,
    /// Bytes the frame took on the wire.
    pub wire_len: usize,
}

/// A CRC-valid frame that was not accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub header: MavHeader,
    pub message_id: u32,
    pub wire_len: usize,
    pub reason: RejectReason,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RejectReason {
    /// The payload did not parse (e.g. an enum value this dialect does not know).
    Parse(String),
    Signature(SignatureFault),
    /// Unsigned while signing is required.
    Unsigned,
}

/// The incoming half of a link: frames, signatures, parsing.
pub struct Decoder {
    frames: RawFrames,
    verifier: Option<Verifier>,
    require_signed: bool,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("verifier", &self.verifier.is_some())
            .field("require_signed", &self.require_signed)
            .finish_non_exhaustive()
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// Accepts every CRC-valid frame of the dialect, signed or not.
    pub fn new() -> Self {
        Self {
            frames: RawFrames::default(),
            verifier: None,
            require_signed: false,
        }
    }

    /// Verifies signed frames with `verifier`; with `require_signed`, refuses unsigned ones
    /// (MAVLink 1 included, which cannot carry a signature).
    pub fn with_signing(verifier: Verifier, require_signed: bool) -> Self {
        Self {
            verifier: Some(verifier),
            require_signed,
            ..Self::new()
        }
    }

    /// Drops any partial frame: the next bytes start a new datagram (signing state stays).
    pub fn restart_framing(&mut self) {
        self.frames = RawFrames::default();
    }

    /// Hands over bytes as they came off the transport, in any chunking.
    pub fn push(&mut self, bytes: &[u8]) {
        self.frames.push(bytes);
    }

    /// The next complete frame, or `None` until more bytes are pushed. `now_ts` is the signing
    /// clock (10 µs ticks since 2015), used to refuse replayed signed frames.
    pub fn next(&mut self, now_ts: u64) -> Option<Result<Inbound, Rejected>> {
        let frame = self.frames.next_raw()?;
        let (header, version, wire_len, signed) =
            (frame.header, frame.version, frame.wire_len, frame.signed());
        let raw = frame.raw;
        let message_id = raw.message_id();
        let reject = |reason| {
            Some(Err(Rejected {
                header,
                message_id,
                wire_len,
                reason,
            }))
        };
        if let Some(verifier) = self.verifier.as_mut() {
            match &raw {
                MAVLinkMessageRaw::V2(m) if signed => {
                    if let Err(fault) = verifier.verify(m, now_ts) {
                        return reject(RejectReason::Signature(fault));
                    }
                }
                _ if self.require_signed => return reject(RejectReason::Unsigned),
                _ => {}
            }
        }
        match MavMessage::parse(version, message_id, raw.payload()) {
            Ok(message) => Some(Ok(Inbound {
                header,
                message,
                version,
                signed,
                wire_len,
            })),
            Err(e) => reject(RejectReason::Parse(e.to_string())),
        }
    }
}
