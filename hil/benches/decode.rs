//! Decode and encode throughput on one core, from the recorded PX4-rate stream
//! (`tests/fixtures/px4_stream.bin`, see its README).
//!
//! `cargo bench -p alpha3-hil --bench decode`
#![allow(clippy::unwrap_used)]

use alpha3_hil::dialect::{COMP_AUTOPILOT, MavMessage};
use alpha3_hil::session::{Session, SessionConfig};
use alpha3_hil::wire::{Decoder, Encoder, Signer, SigningKey};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;

/// Bytes per read, as a socket or serial read would hand them over.
const CHUNK: usize = 1024;

fn stream() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/px4_stream.bin");
    std::fs::read(path).unwrap()
}

fn messages(bytes: &[u8]) -> Vec<MavMessage> {
    let mut dec = Decoder::new();
    dec.push(bytes);
    std::iter::from_fn(|| dec.next(0))
        .map(|f| f.unwrap().message)
        .collect()
}

fn decode(c: &mut Criterion) {
    let bytes = stream();
    let n = messages(&bytes).len() as u64;
    let mut g = c.benchmark_group("px4_stream");
    g.throughput(Throughput::Elements(n));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut dec = Decoder::new();
            let mut count = 0u64;
            for chunk in bytes.chunks(CHUNK) {
                dec.push(chunk);
                while let Some(f) = dec.next(0) {
                    black_box(f.unwrap());
                    count += 1;
                }
            }
            assert_eq!(count, n);
        })
    });
    g.bench_function("session_ingest", |b| {
        // Decode + telemetry fold + statistics, as the link task does it.
        b.iter(|| {
            let mut s = Session::new(SessionConfig::default(), 0).unwrap();
            for (i, chunk) in bytes.chunks(CHUNK).enumerate() {
                s.handle_bytes(i as u64 * 1000, chunk);
            }
            black_box(s.snapshot());
        })
    });
    g.finish();
}

fn encode(c: &mut Criterion) {
    let msgs = messages(&stream());
    let mut g = c.benchmark_group("px4_stream");
    g.throughput(Throughput::Elements(msgs.len() as u64));
    let mut out = Vec::with_capacity(300);
    g.bench_function("encode", |b| {
        let mut enc = Encoder::new(1, None);
        b.iter(|| {
            for m in &msgs {
                out.clear();
                black_box(enc.encode(COMP_AUTOPILOT, m, 0, &mut out));
            }
        })
    });
    g.bench_function("encode_signed", |b| {
        let mut enc = Encoder::new(1, Some(Signer::new(SigningKey::new([7; 32]), 0)));
        b.iter(|| {
            for m in &msgs {
                out.clear();
                black_box(enc.encode(COMP_AUTOPILOT, m, 1, &mut out));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, decode, encode);
criterion_main!(benches);
