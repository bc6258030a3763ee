//! The recorded PX4-rate stream in `tests/fixtures/px4_stream.bin` (captured from the
//! `alpha3_sim::endpoint` vehicle, see `tests/fixtures/README.md` for the command): what the
//! decoder must make of it at any chunking.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_hil::dialect::Message;
use alpha3_hil::wire::Decoder;
use support::fixture;

fn decode_all(bytes: &[u8], chunk: usize) -> Vec<(u32, u8)> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk) {
        dec.push(piece);
        while let Some(f) = dec.next(0) {
            let f = f.unwrap();
            out.push((f.message.message_id(), f.header.sequence));
        }
    }
    out
}

#[test]
fn the_recorded_stream_decodes_the_same_at_every_chunk_size() {
    let bytes = std::fs::read(fixture("px4_stream.bin")).unwrap();
    let whole = decode_all(&bytes, bytes.len());
    assert!(whole.len() > 2000, "{}", whole.len());
    // Sequence numbers run without a gap: the capture lost nothing.
    for w in whole.windows(2) {
        assert_eq!(w[1].1, w[0].1.wrapping_add(1));
    }
    let sizes = (1..=64).chain([255, 280, 281, 1000, 1500, 4096, 65_536]);
    for chunk in sizes {
        assert_eq!(decode_all(&bytes, chunk), whole, "chunk size {chunk}");
    }
}
