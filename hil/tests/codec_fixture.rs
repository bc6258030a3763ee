//! The recorded PX4-rate stream in `tests/fixtures/px4_stream.bin`: how it is made (an ignored
//! test that records it) and what the decoder must make of it at any chunking.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_hil::dialect::Message;
use alpha3_hil::wire::Decoder;
use alpha3_hil::{ConnectOptions, HilLink};
use std::sync::atomic::Ordering;
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::tap::Tap;
use support::{addr, fixture, free_udp_port, test_config};

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

/// Regenerates the fixture: `cargo test -p alpha3-hil --test codec_fixture -- --ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "rewrites tests/fixtures/px4_stream.bin"]
async fn record_the_px4_stream_fixture() {
    let port = free_udp_port();
    let tap = Tap::start(format!("127.0.0.1:{port}").parse().unwrap()).await;
    let fake = Fake::start(
        addr(&format!("udpout:{}", tap.addr)),
        FakeConfig::default(),
        None,
    )
    .await;
    let mut link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    tap.recording.store(true, Ordering::SeqCst);
    let flight = async {
        link.execute_unchecked(&Command::Arm).await.unwrap();
        link.execute_unchecked(&Command::Takeoff { altitude_m: 10.0 })
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(3)).await;
        let target = Enu::new(20.0, 20.0, 10.0);
        link.execute_unchecked(&Command::GoTo {
            target,
            speed_mps: None,
        })
        .await
        .unwrap();
    };
    let _ = tokio::join!(flight, tokio::time::sleep(Duration::from_secs(10)));
    tap.recording.store(false, Ordering::SeqCst);
    let bytes = tap.recorded.lock().unwrap().clone();
    std::fs::write(fixture("px4_stream.bin"), &bytes).unwrap();
    eprintln!(
        "recorded {} bytes, {} frames",
        bytes.len(),
        decode_all(&bytes, bytes.len()).len()
    );
    link.close().await;
    fake.stop();
    tap.stop();
}
