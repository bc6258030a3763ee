//! Reading a `.tlog` back, resynchronising past damage. Each entry is an 8-byte big-endian
//! timestamp and one MAVLink frame; an entry counts only when its frame is CRC-valid for the
//! dialect (the same framing as the link's, [`alpha3_wire::RawFrames`]). Where an entry is not
//! — a damaged start byte, a torn or inserted stretch — the reader looks, byte by byte, for
//! the next place a valid entry starts and carries on from there, counting what it skipped;
//! then it drops frames whose timestamps are out of line ([`super::stamps`]). A log with no
//! valid entry at all, an empty file included, is an error: there is nothing to review.

use super::stamps::believable;
use super::{TlogEntry, frame_len};
use alpha3_wire::RawFrames;
use std::io::{self, Read};

/// The shortest entry: a stamp and a MAVLink 1 frame without payload.
const MIN_ENTRY: usize = 8 + 8;

/// What was left out to read a log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TlogSkips {
    /// Bytes in no valid entry (damaged frames, stray bytes), a torn last entry not included.
    pub bytes: u64,
    /// Frames those bytes held, as far as their framing can still be told: a stretch too short
    /// for any entry (stray bytes) holds none, one whose framing is gone at least one.
    pub frames: u64,
    /// Valid frames dropped because their timestamp was out of line with their neighbours'.
    pub bad_stamps: u64,
    /// Places where the timestamps stepped (the frames kept: those after agree with each other).
    pub clock_steps: u64,
    /// Bytes of a torn last entry (the writer stopped mid-frame): not damage.
    pub torn_tail: u64,
}

/// A log as read: its frames in order, and what was skipped to get them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlogRead {
    pub entries: Vec<TlogEntry>,
    pub skipped: TlogSkips,
}

/// Why a log gave no frames.
#[derive(Debug, thiserror::Error)]
pub enum TlogError {
    #[error("reading the log: {0}")]
    Io(#[from] io::Error),
    #[error("the log is empty: it holds no MAVLink frame")]
    Empty,
    #[error("no valid MAVLink frame in the log's {bytes} bytes (is it a .tlog?)")]
    NoFrames { bytes: u64 },
}

impl From<TlogError> for io::Error {
    fn from(e: TlogError) -> Self {
        match e {
            TlogError::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        }
    }
}

/// What starts at one offset.
enum At {
    /// A valid entry of this many bytes.
    Entry(usize),
    /// The start of an entry that the end of the log cuts.
    Torn,
    Invalid,
}

fn entry_at(bytes: &[u8], at: usize) -> At {
    let rest = &bytes[at..];
    if rest.len() < 8 + 3 {
        return At::Torn;
    }
    let body = &rest[8..];
    let Some(len) = frame_len(body) else {
        return At::Invalid;
    };
    if body.len() < len {
        return At::Torn;
    }
    if crc_valid(&body[..len]) {
        At::Entry(8 + len)
    } else {
        At::Invalid
    }
}

/// Whether `frame` is exactly one CRC-valid frame of the dialect.
fn crc_valid(frame: &[u8]) -> bool {
    let mut frames = RawFrames::default();
    frames.push(frame);
    frames.next_raw().is_some_and(|f| f.wire_len == frame.len())
}

/// Frames in the damaged stretch `run` (see [`TlogSkips::frames`]).
fn frames_in(run: &[u8]) -> u64 {
    let mut found = 0;
    let mut at = 0;
    while at + 8 < run.len() {
        match frame_len(&run[at + 8..]) {
            Some(len) if at + 8 + len <= run.len() => {
                found += 1;
                at += 8 + len;
            }
            _ => at += 1,
        }
    }
    if found == 0 && run.len() >= MIN_ENTRY {
        1
    } else {
        found
    }
}

/// Reads a whole log, resynchronising past damage and counting what it skipped.
pub fn read_tlog_with_skips(mut reader: impl Read) -> Result<TlogRead, TlogError> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    if bytes.is_empty() {
        return Err(TlogError::Empty);
    }
    let mut skipped = TlogSkips::default();
    let mut framed = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let torn = match entry_at(&bytes, at) {
            At::Entry(len) => {
                framed.push(TlogEntry {
                    unix_us: u64::from_be_bytes(stamp(&bytes[at..])),
                    frame: bytes[at + 8..at + len].to_vec(),
                });
                at += len;
                continue;
            }
            At::Torn => true,
            At::Invalid => false,
        };
        let next = (at + 1..bytes.len()).find(|&p| matches!(entry_at(&bytes, p), At::Entry(_)));
        let end = next.unwrap_or(bytes.len());
        if next.is_none() && torn {
            skipped.torn_tail = (end - at) as u64;
        } else {
            skipped.bytes += (end - at) as u64;
            skipped.frames += frames_in(&bytes[at..end]);
        }
        at = end;
    }
    if framed.is_empty() {
        return Err(TlogError::NoFrames {
            bytes: bytes.len() as u64,
        });
    }
    let (entries, counts) = believable(framed);
    skipped.bad_stamps = counts.dropped;
    skipped.clock_steps = counts.steps;
    Ok(TlogRead { entries, skipped })
}

fn stamp(bytes: &[u8]) -> [u8; 8] {
    let mut s = [0u8; 8];
    s.copy_from_slice(&bytes[..8]);
    s
}

/// The frames of a whole log ([`read_tlog_with_skips`] without the counts).
pub fn read_tlog(reader: impl Read) -> io::Result<Vec<TlogEntry>> {
    Ok(read_tlog_with_skips(reader)?.entries)
}
