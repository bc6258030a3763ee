//! MAVLink decode rate: the checked-in PX4-rate stream (`hil/tests/fixtures/px4_stream.bin`,
//! ten seconds of what an autopilot sends a companion computer, ~275 frames/s) is embedded in
//! the binary, so the figure can be taken on a device that has nothing but `alpha3`.

use super::stats::median;
use alpha3_hil::wire::Decoder;
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// The recorded stream.
const STREAM: &[u8] = include_bytes!("../../../hil/tests/fixtures/px4_stream.bin");
/// Bytes per read, as a socket or serial read would hand them over.
const CHUNK: usize = 1024;
/// Frames per second the recorded stream carries (its README): what the link must keep up with.
const STREAM_FRAMES_PER_S: f64 = 275.0;

#[derive(Debug, Clone, Serialize)]
pub struct MavlinkFigures {
    pub stream_bytes: usize,
    pub frames_per_pass: u64,
    /// Frames that failed to decode (0 for the fixture).
    pub rejected_per_pass: u64,
    pub passes: u32,
    /// Median over passes.
    pub frames_per_s: f64,
    pub megabytes_per_s: f64,
    /// Share of one core that decoding a PX4-rate stream (275 frames/s) takes.
    pub px4_stream_core_pct: f64,
}

/// Decodes the stream `passes` times (at least once).
pub fn measure(passes: u32) -> MavlinkFigures {
    let passes = passes.max(1);
    let mut rates = Vec::new();
    let mut byte_rates = Vec::new();
    let (mut frames, mut rejected) = (0, 0);
    for _ in 0..passes {
        let started = Instant::now();
        let (f, r) = decode_all(STREAM);
        let s = started.elapsed().as_secs_f64().max(1e-9);
        frames = f;
        rejected = r;
        rates.push(f as f64 / s);
        byte_rates.push(STREAM.len() as f64 / s / 1e6);
    }
    let frames_per_s = median(&mut rates);
    MavlinkFigures {
        stream_bytes: STREAM.len(),
        frames_per_pass: frames,
        rejected_per_pass: rejected,
        passes,
        frames_per_s,
        megabytes_per_s: median(&mut byte_rates),
        px4_stream_core_pct: 100.0 * STREAM_FRAMES_PER_S / frames_per_s.max(f64::MIN_POSITIVE),
    }
}

/// Decoded and rejected frames in `bytes`, fed in socket-sized chunks.
fn decode_all(bytes: &[u8]) -> (u64, u64) {
    let mut dec = Decoder::new();
    let (mut ok, mut bad) = (0u64, 0u64);
    for chunk in bytes.chunks(CHUNK) {
        dec.push(chunk);
        while let Some(f) = dec.next(0) {
            match black_box(f) {
                Ok(_) => ok += 1,
                Err(_) => bad += 1,
            }
        }
    }
    (ok, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_stream_decodes_without_rejects() {
        let (ok, bad) = decode_all(STREAM);
        assert_eq!(bad, 0);
        assert!(ok > 2_000, "{ok} frames");
    }
}
