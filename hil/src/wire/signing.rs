//! MAVLink 2 message signing with time as an argument.
//!
//! The `mavlink` crate computes the SHA-256/48 signature; its `SigningData` also reads the system
//! clock, so the timestamp and replay bookkeeping live here instead, where tests can drive them.
//! Timestamps are in the protocol's unit: 10 µs since 2015-01-01 00:00 UTC.

use crate::error::HilError;
use mavlink::MAVLinkV2MessageRaw;
use std::collections::HashMap;
use std::fmt;

/// 2015-01-01T00:00:00Z in Unix microseconds: the signing epoch.
pub const SIGNING_EPOCH_UNIX_US: u64 = 1_420_070_400_000_000;
/// A new stream whose timestamp is more than a minute behind ours is a replay (spec rule).
const NEW_STREAM_WINDOW: u64 = 60 * 100_000;

/// Converts Unix microseconds to a signing timestamp.
pub fn signing_timestamp(unix_us: u64) -> u64 {
    unix_us.saturating_sub(SIGNING_EPOCH_UNIX_US) / 10
}

/// The signing clock now, from the wall clock (0 if the clock is before 1970).
pub fn signing_now() -> u64 {
    let unix_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64);
    signing_timestamp(unix_us)
}

/// A 32-byte shared secret. Its `Debug` never prints the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey([u8; 32]);

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    pub const fn new(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// Parses 64 hex digits (whitespace around them is ignored).
    pub fn from_hex(text: &str) -> Result<Self, HilError> {
        let text = text.trim();
        if text.len() != 64 || !text.is_ascii() {
            return Err(HilError::SigningKey(format!(
                "expected 64 hex digits, got {} characters",
                text.len()
            )));
        }
        let mut key = [0u8; 32];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
                .map_err(|_| HilError::SigningKey("not a hex number".into()))?;
        }
        Ok(Self(key))
    }

    /// Reads the key from the environment variable `name` (the key never sits in a config).
    pub fn from_env(name: &str) -> Result<Self, HilError> {
        let value = std::env::var(name)
            .map_err(|_| HilError::SigningKey(format!("environment variable {name} is not set")))?;
        Self::from_hex(&value)
    }

    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key as 64 hex digits, for handing it to another process (an environment variable).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Signs outgoing frames with strictly increasing timestamps.
#[derive(Debug, Clone)]
pub struct Signer {
    key: SigningKey,
    link_id: u8,
    last: u64,
}

impl Signer {
    pub fn new(key: SigningKey, link_id: u8) -> Self {
        Self {
            key,
            link_id,
            last: 0,
        }
    }

    /// Fills the signature of a frame already serialised with the signed flag set.
    pub fn sign(&mut self, frame: &mut MAVLinkV2MessageRaw, now_ts: u64) {
        self.last = now_ts.max(self.last + 1);
        let ts = self.last.to_le_bytes();
        frame
            .signature_timestamp_bytes_mut()
            .copy_from_slice(&ts[..6]);
        *frame.signature_link_id_mut() = self.link_id;
        let mut value = [0u8; 6];
        frame.calculate_signature(self.key.bytes(), &mut value);
        frame.signature_value_mut().copy_from_slice(&value);
    }
}

/// Why a signed frame was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureFault {
    /// The signature does not match our key.
    BadSignature,
    /// The timestamp is not newer than the last one of this stream.
    Replay,
    /// A new stream starting more than a minute in the past.
    Stale,
}

/// Checks incoming signatures and keeps one timestamp per (link, system, component) stream.
#[derive(Debug, Clone)]
pub struct Verifier {
    key: SigningKey,
    streams: HashMap<(u8, u32, u8), u64>,
    newest: u64,
}

impl Verifier {
    pub fn new(key: SigningKey) -> Self {
        Self {
            key,
            streams: HashMap::new(),
            newest: 0,
        }
    }

    pub fn verify(
        &mut self,
        frame: &MAVLinkV2MessageRaw,
        now_ts: u64,
    ) -> Result<(), SignatureFault> {
        let ts = frame.signature_timestamp();
        let stream = (
            frame.signature_link_id(),
            frame.system_id(),
            frame.component_id(),
        );
        let mut value = [0u8; 6];
        frame.calculate_signature(self.key.bytes(), &mut value);
        if value != frame.signature_value() {
            return Err(SignatureFault::BadSignature);
        }
        let reference = self.newest.max(now_ts);
        match self.streams.get(&stream) {
            Some(last) if ts <= *last => return Err(SignatureFault::Replay),
            None if ts + NEW_STREAM_WINDOW < reference => return Err(SignatureFault::Stale),
            _ => {}
        }
        self.streams.insert(stream, ts);
        self.newest = self.newest.max(ts);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_from_hex_and_never_print() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let key = SigningKey::from_hex(hex).unwrap();
        assert_eq!(key.bytes()[1], 0x11);
        assert_eq!(key.bytes()[31], 0xff);
        assert_eq!(format!("{key:?}"), "SigningKey(..)");
        assert!(SigningKey::from_hex("abc").is_err());
        assert!(SigningKey::from_hex(&"zz".repeat(32)).is_err());
    }

    #[test]
    fn signing_time_counts_ten_microsecond_ticks_from_2015() {
        assert_eq!(signing_timestamp(SIGNING_EPOCH_UNIX_US), 0);
        assert_eq!(
            signing_timestamp(SIGNING_EPOCH_UNIX_US + 1_000_000),
            100_000
        );
        assert_eq!(signing_timestamp(0), 0);
    }
}
