//! CPU used by the hil link task while it ingests a PX4-rate stream (~300 messages/s).
//!
//! The recorded stream is replayed frame by frame over UDP at 300 frames/s, from
//! another thread; a `HilLink` ingests it on a single-threaded runtime of its own, and that
//! thread's CPU time (from `/proc/thread-self/schedstat`, nanoseconds) is compared with the
//! wall time. `cargo bench -p alpha3-hil --bench ingest_cpu [-- SECONDS]`
#![allow(clippy::unwrap_used)]

use alpha3_core::config::Address;
use alpha3_hil::session::SessionConfig;
use alpha3_hil::wire::Decoder;
use alpha3_hil::{ConnectOptions, HilLink};
use std::net::UdpSocket;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// PX4's companion link carries about this many messages per second (PX4-FACTS.md); the
/// recording itself runs at ~275/s, so it is replayed a little faster.
const RATE: f64 = 300.0;

fn frames() -> Vec<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/px4_stream.bin");
    let bytes = std::fs::read(path).unwrap();
    // Re-split into frames: each goes out as one datagram, as PX4 sends them.
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    let mut at = 0;
    dec.push(&bytes);
    while let Some(f) = dec.next(0) {
        let len = f.unwrap().wire_len;
        out.push(bytes[at..at + len].to_vec());
        at += len;
    }
    out
}

/// CPU time of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}

fn main() {
    let seconds: f64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10.0);
    let frames = frames();
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let rate = RATE;

    let replay = std::thread::spawn(move || {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let start = Instant::now();
        let period = Duration::from_secs_f64(1.0 / rate);
        let total = (rate * (seconds + 4.0)) as usize;
        for i in 0..total {
            let due = start + period * i as u32;
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            // The companion may not listen yet during the first moments; that is fine.
            let _ = sock.send_to(&frames[i % frames.len()], ("127.0.0.1", port));
        }
    });

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (cpu_ns, wall, msgs) = rt.block_on(async move {
        let address = Address::parse(&format!("udpin:127.0.0.1:{port}")).unwrap();
        let options = ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            ..ConnectOptions::default()
        };
        let link = HilLink::connect_with(address, SessionConfig::default(), options)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (cpu0, t0) = (thread_cpu_ns(), Instant::now());
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        let (cpu1, t1) = (thread_cpu_ns(), Instant::now());
        let m = link.measurement();
        link.close().await;
        (cpu1 - cpu0, t1 - t0, m.rx_msgs_per_s)
    });
    replay.join().unwrap();
    let cpu_pct = 100.0 * cpu_ns as f64 / wall.as_nanos() as f64;
    println!(
        "ingest_cpu: {msgs:.0} msg/s for {:.1} s: {cpu_pct:.2} % of one core, {:.1} µs per message",
        wall.as_secs_f64(),
        cpu_ns as f64 / 1000.0 / (msgs * wall.as_secs_f64())
    );
}
