//! A `.tlog` with damage reads back past it: a corrupted start byte costs only its own frame,
//! inserted bytes cost none, a frame whose timestamp jumps is dropped rather than moved, and the
//! reader says what it skipped (bytes, frames, timestamps). An empty log is an error.
#![allow(clippy::unwrap_used)]

use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::tlog::{TlogError, TlogSkips, TlogWriter, read_tlog_with_skips};
use alpha3_hil::wire::Encoder;

const T0: u64 = 1_700_000_000_000_000;
const FRAMES: u32 = 40;

/// `FRAMES` heartbeats and positions, 100 ms apart, as a `.tlog`'s bytes, with each entry's
/// offset and its frame.
fn log() -> (Vec<u8>, Vec<usize>, Vec<Vec<u8>>) {
    let dir = tempfile_dir();
    let path = dir.join("clean.tlog");
    let mut w = TlogWriter::create(&path).unwrap();
    let mut enc = Encoder::new(1, None);
    let mut frames = Vec::new();
    for i in 0..FRAMES {
        let msg = if i % 2 == 0 {
            MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
                custom_mode: i,
                ..mav::HEARTBEAT_DATA::default()
            })
        } else {
            MavMessage::GLOBAL_POSITION_INT(mav::GLOBAL_POSITION_INT_DATA {
                time_boot_ms: i * 100,
                lat: 473_977_000 + i as i32,
                lon: 85_456_000,
                alt: 500_000,
                ..mav::GLOBAL_POSITION_INT_DATA::default()
            })
        };
        let mut frame = Vec::new();
        enc.encode(1, &msg, 0, &mut frame);
        w.write_frame(T0 + u64::from(i) * 100_000, &frame).unwrap();
        frames.push(frame);
    }
    drop(w);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    let mut offsets = Vec::new();
    let mut at = 0;
    for f in &frames {
        offsets.push(at);
        at += 8 + f.len();
    }
    assert_eq!(at, bytes.len());
    (bytes, offsets, frames)
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "alpha3-tlog-resync-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn frames_read(bytes: &[u8]) -> (Vec<Vec<u8>>, TlogSkips) {
    let read = read_tlog_with_skips(bytes).unwrap();
    (
        read.entries.into_iter().map(|e| e.frame).collect(),
        read.skipped,
    )
}

#[test]
fn a_damaged_start_byte_costs_only_its_own_frame() {
    let (mut bytes, offsets, frames) = log();
    let k = 7;
    bytes[offsets[k] + 8] = 0x00;
    let (got, skipped) = frames_read(&bytes);
    let mut expected = frames.clone();
    expected.remove(k);
    assert_eq!(got, expected, "every other frame is recovered");
    assert_eq!(
        skipped,
        TlogSkips {
            bytes: (8 + frames[k].len()) as u64,
            frames: 1,
            ..TlogSkips::default()
        }
    );
}

#[test]
fn inserted_bytes_are_skipped_and_every_frame_recovered() {
    let (mut bytes, offsets, frames) = log();
    // Three stray bytes between two entries, one of them a start byte.
    let at = offsets[12];
    bytes.splice(at..at, [0xFD, 0x42, 0x00]);
    let (got, skipped) = frames_read(&bytes);
    assert_eq!(got, frames);
    assert_eq!(
        skipped,
        TlogSkips {
            bytes: 3,
            ..TlogSkips::default()
        }
    );
}

#[test]
fn a_frame_whose_timestamp_jumps_is_dropped_and_counted() {
    let k = 20;
    let at = T0 + 2_000_000;
    // A flipped high byte (years ahead), half a minute either way, zero.
    for stamp in [at ^ (0x7F << 56), at + 30_000_000, at - 30_000_000, 0] {
        let (mut bytes, offsets, frames) = log();
        bytes[offsets[k]..offsets[k] + 8].copy_from_slice(&stamp.to_be_bytes());
        let read = read_tlog_with_skips(&bytes[..]).unwrap();
        let mut expected = frames.clone();
        expected.remove(k);
        let got: Vec<Vec<u8>> = read.entries.iter().map(|e| e.frame.clone()).collect();
        assert_eq!(got, expected, "stamp {stamp}");
        assert!(
            read.entries
                .windows(2)
                .all(|w| w[0].unix_us <= w[1].unix_us),
            "the kept stamps are in order"
        );
        assert_eq!(
            read.skipped,
            TlogSkips {
                bad_stamps: 1,
                ..TlogSkips::default()
            },
            "stamp {stamp}"
        );
    }
}

#[test]
fn an_empty_log_is_an_error() {
    assert!(matches!(
        read_tlog_with_skips(&[][..]),
        Err(TlogError::Empty)
    ));
    assert!(matches!(
        read_tlog_with_skips(&[0x11; 64][..]),
        Err(TlogError::NoFrames { bytes: 64 })
    ));
}
