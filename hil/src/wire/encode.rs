//! Messages in, bytes out: MAVLink 2 frames with one sequence counter per sending component,
//! signed when a key is configured.

use super::signing::Signer;
use crate::dialect::{MavHeader, MavMessage};
use mavlink::MAVLinkV2MessageRaw;

/// The outgoing half of a link.
#[derive(Debug, Clone)]
pub struct Encoder {
    system_id: u8,
    sequences: [u8; 256],
    signer: Option<Signer>,
    frame: MAVLinkV2MessageRaw,
}

impl Encoder {
    pub fn new(system_id: u8, signer: Option<Signer>) -> Self {
        Self {
            system_id,
            sequences: [0; 256],
            signer,
            frame: MAVLinkV2MessageRaw::new(),
        }
    }

    pub fn system_id(&self) -> u8 {
        self.system_id
    }

    pub fn is_signing(&self) -> bool {
        self.signer.is_some()
    }

    /// Appends one frame for `message` from `component_id` to `out`; returns its length.
    /// `now_ts` is the signing clock (ignored when not signing).
    pub fn encode(
        &mut self,
        component_id: u8,
        message: &MavMessage,
        now_ts: u64,
        out: &mut Vec<u8>,
    ) -> usize {
        let seq = &mut self.sequences[usize::from(component_id)];
        let header = MavHeader {
            system_id: u32::from(self.system_id),
            component_id,
            sequence: *seq,
        };
        *seq = seq.wrapping_add(1);
        match self.signer.as_mut() {
            Some(signer) => {
                self.frame.serialize_message_for_signing(header, message);
                signer.sign(&mut self.frame, now_ts);
            }
            None => {
                // The buffer is reused: clear the flags a signed frame may have left.
                *self.frame.incompatibility_flags_mut() = 0;
                self.frame.serialize_message(header, message);
            }
        }
        let bytes = self.frame.raw_bytes();
        out.extend_from_slice(bytes);
        bytes.len()
    }
}
