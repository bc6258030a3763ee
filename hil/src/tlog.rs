//! MAVLink telemetry logs (`.tlog`), the format QGroundControl, MAVProxy and pymavlink write:
//! every frame as an 8-byte big-endian timestamp (microseconds since the Unix epoch) followed
//! by the raw MAVLink frame, nothing else. Both directions of the link go in, in the order
//! they crossed it, so a log replays the whole conversation.
//!
//! Transports hand over bytes in any chunking (a UDP datagram may hold several frames, a TCP
//! read half of one), so the tap splits them into frames by the MAVLink framing alone — magic,
//! length, signature flag — without checking CRCs: the log keeps what was on the wire, and its
//! readers decide what is valid. The reader ([`read_tlog_with_skips`]) keeps CRC-valid frames,
//! resynchronising past damage, and drops frames whose timestamps are out of line; it says
//! what it skipped.

mod read;
mod stamps;

pub use read::{TlogError, TlogRead, TlogSkips, read_tlog, read_tlog_with_skips};
pub use stamps::{MAX_STAMP_GAP_US, STAMP_JITTER_US, stamps_in_line};

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

const MAGIC_V1: u8 = 0xFE;
const MAGIC_V2: u8 = 0xFD;
/// A frame is never longer than this (MAVLink 2: 10 header + 255 payload + 2 CRC + 13 signature).
pub const MAX_FRAME: usize = 280;

/// The length of the frame that starts `bytes[0]` (a magic byte), once enough of its header is
/// there; `None` while it is not.
fn frame_len(bytes: &[u8]) -> Option<usize> {
    match *bytes.first()? {
        MAGIC_V1 => Some(6 + usize::from(*bytes.get(1)?) + 2),
        MAGIC_V2 => {
            let payload = usize::from(*bytes.get(1)?);
            let signed = bytes.get(2)? & 0x01 != 0;
            Some(10 + payload + 2 + if signed { 13 } else { 0 })
        }
        _ => None,
    }
}

/// The wall clock as a log timestamp: microseconds since the Unix epoch.
pub fn unix_now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// Cuts a byte stream into MAVLink frames; bytes between frames (noise) are dropped.
#[derive(Debug, Default)]
pub struct FrameSplitter {
    pending: Vec<u8>,
}

impl FrameSplitter {
    /// Adds `bytes` and calls `frame` for every complete frame, in order.
    pub fn push(&mut self, bytes: &[u8], mut frame: impl FnMut(&[u8])) {
        self.pending.extend_from_slice(bytes);
        let mut at = 0;
        loop {
            match self.pending[at..]
                .iter()
                .position(|b| *b == MAGIC_V1 || *b == MAGIC_V2)
            {
                Some(skip) => at += skip,
                None => {
                    at = self.pending.len();
                    break;
                }
            }
            let Some(len) = frame_len(&self.pending[at..]) else {
                break;
            };
            if self.pending.len() - at < len {
                break;
            }
            frame(&self.pending[at..at + len]);
            at += len;
        }
        self.pending.drain(..at);
    }
}

/// Appends frames to a `.tlog` file.
#[derive(Debug)]
pub struct TlogWriter {
    path: PathBuf,
    out: BufWriter<File>,
    incoming: FrameSplitter,
    frames: u64,
}

impl TlogWriter {
    /// Creates (or truncates) the log at `path`, making its directory.
    pub fn create(path: &Path) -> io::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            incoming: FrameSplitter::default(),
            frames: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes one whole frame stamped `unix_us`.
    pub fn write_frame(&mut self, unix_us: u64, frame: &[u8]) -> io::Result<()> {
        self.out.write_all(&unix_us.to_be_bytes())?;
        self.out.write_all(frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Bytes as read from the transport, in any chunking: complete frames are written now,
    /// a partial one when the rest arrives.
    pub fn incoming(&mut self, unix_us: u64, bytes: &[u8]) -> io::Result<()> {
        let mut result = Ok(());
        let mut frames = Vec::new();
        self.incoming.push(bytes, |f| frames.push(f.to_vec()));
        for f in frames {
            if result.is_ok() {
                result = self.write_frame(unix_us, &f);
            }
        }
        result
    }

    /// Pushes buffered frames to the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for TlogWriter {
    fn drop(&mut self) {
        // Best effort: a failed flush at the end loses the tail, which readers tolerate.
        let _ = self.out.flush();
    }
}

/// One frame of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlogEntry {
    pub unix_us: u64,
    pub frame: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{MavMessage, mav};
    use crate::wire::{Decoder, Encoder};

    fn frames(n: u8) -> Vec<Vec<u8>> {
        let mut enc = Encoder::new(1, None);
        (0..n)
            .map(|i| {
                let mut out = Vec::new();
                let msg = MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
                    custom_mode: u32::from(i),
                    ..mav::HEARTBEAT_DATA::default()
                });
                enc.encode(1, &msg, 0, &mut out);
                out
            })
            .collect()
    }

    #[test]
    fn the_splitter_finds_frames_in_any_chunking_and_skips_noise() {
        let all: Vec<u8> = frames(5)
            .into_iter()
            .flat_map(|f| [vec![0x00, 0x42], f].concat())
            .collect();
        for chunk in [1, 3, 7, 64, all.len()] {
            let mut s = FrameSplitter::default();
            let mut got = Vec::new();
            for c in all.chunks(chunk) {
                s.push(c, |f| got.push(f.to_vec()));
            }
            assert_eq!(got, frames(5), "chunk size {chunk}");
        }
    }

    #[test]
    fn a_log_reads_back_and_decodes_with_a_torn_tail_ignored() {
        let dir = tempfile_dir();
        let path = dir.join("link.tlog");
        let mut w = TlogWriter::create(&path).unwrap();
        let fs = frames(3);
        let glued: Vec<u8> = fs.concat();
        w.incoming(1_700_000_000_000_000, &glued[..10]).unwrap();
        w.incoming(1_700_000_000_000_001, &glued[10..]).unwrap();
        w.write_frame(1_700_000_000_000_002, &fs[0]).unwrap();
        assert_eq!(w.frames(), 4);
        drop(w);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(&1u64.to_be_bytes());
        bytes.extend_from_slice(&fs[1][..5]);
        let entries = read_tlog(&bytes[..]).unwrap();
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[0].unix_us, 1_700_000_000_000_001);
        let mut dec = Decoder::new();
        for e in &entries {
            dec.push(&e.frame);
        }
        let mut modes = Vec::new();
        while let Some(Ok(m)) = dec.next(0) {
            if let MavMessage::HEARTBEAT(h) = m.message {
                modes.push(h.custom_mode);
            }
        }
        assert_eq!(modes, vec![0, 1, 2, 0]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn garbage_where_a_frame_should_start_is_an_error() {
        let mut bytes = 5u64.to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0x11; 20]);
        assert!(read_tlog(&bytes[..]).is_err());
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "alpha3-tlog-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
