//! Link impairment between the vehicle and the companion: a configured 30 ms one-way delay
//! and 2 % loss, applied by the endpoint to real datagrams both ways, come back from `hil`'s
//! own link measurements — the round trip from TIMESYNC, loss from sequence gaps.
//!
//! Tolerances: the one-way delay (RTT/2) must lie in [29.5, 40] ms — it cannot be shorter than
//! configured, and up to 10 ms is allowed for two event loops and timers on a busy machine.
//! Loss must lie within 2 ± 0.6 %: the stream runs at 4× PX4's rates (~1,070 frames/s) over a
//! 10 s window, ~10,700 frames, so the estimate's σ is ~0.14 % and the band is > 4σ wide.
#![allow(clippy::unwrap_used)]

mod loopback_common;

use alpha3_hil::{ConnectOptions, HilLink};
use alpha3_sim::endpoint::{Impairment, ImpairmentSpec};
use loopback_common::{addr, endpoint, free_udp_port, session_config, udp_to};
use std::time::Duration;

const DELAY_MS: f64 = 30.0;
const LOSS_PCT: f64 = 2.0;
const WINDOW_MS: u64 = 10_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_delay_and_loss_come_back_from_hils_measurements() {
    let port = free_udp_port();
    let spec = ImpairmentSpec::delay_loss(DELAY_MS, LOSS_PCT);
    let vehicle = endpoint(udp_to(port), Impairment::Fixed(spec), 4.0).await;
    let mut session = session_config();
    session.measure_window_ms = WINDOW_MS;
    // Many frames make the loss measurable to a fraction of a percent: keep the full streams.
    session.tame_streams = false;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        session,
        ConnectOptions {
            ready_timeout_ms: 20_000,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    // A full window of impaired traffic.
    tokio::time::sleep(Duration::from_millis(WINDOW_MS + 1000)).await;
    let m = link.measurement();
    let counters = vehicle.status().links[0];
    eprintln!("hil measured: {m:?}");
    eprintln!("endpoint: {counters:?}");
    assert!(m.window_ms >= WINDOW_MS - 600, "{m:?}");
    let one_way = m.rtt_ms.unwrap() / 2.0;
    assert!(
        (DELAY_MS - 0.5..=DELAY_MS + 10.0).contains(&one_way),
        "one-way delay {one_way:.2} ms, configured {DELAY_MS}"
    );
    let frames = m.rx_msgs_per_s * m.window_ms as f64 / 1000.0;
    assert!(
        frames > 9000.0,
        "too few frames for the tolerance: {frames}"
    );
    assert!(
        (m.loss_pct - LOSS_PCT).abs() <= 0.6,
        "loss {:.2} % over {frames:.0} frames, configured {LOSS_PCT} %",
        m.loss_pct
    );
    // The endpoint dropped what hil counted missing (the rest of its drops are outside the
    // window or were frames hil sent).
    let dropped = 100.0 * counters.down.lost as f64 / counters.down.offered as f64;
    assert!((dropped - LOSS_PCT).abs() <= 0.6, "{counters:?}");
    link.close().await;
    vehicle.shutdown().await.unwrap();
}
