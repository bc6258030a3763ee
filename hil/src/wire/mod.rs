//! MAVLink framing, sans-IO: [`Decoder`] (bytes → messages, signature checks) and [`Encoder`]
//! (messages → bytes, sequence numbers, signing). Transports only move bytes.

mod decode;
mod encode;
mod signing;

pub use decode::{Decoder, Inbound, RejectReason, Rejected};
pub use encode::Encoder;
pub use signing::{
    SIGNING_EPOCH_UNIX_US, SignatureFault, Signer, SigningKey, Verifier, signing_now,
    signing_timestamp,
};

#[cfg(test)]
mod tests;
