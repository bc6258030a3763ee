//! The network model against its configuration: 100,000 good-state samples per slice match the
//! slice profiles of `configs/slices/6g-default.toml` (and the URLLC calibration to the
//! published α3-Bench figures: median latency ≈ 7 ms, mean jitter ≈ 1.1 ms); the hard state
//! is always hard; loss windows lose everything; slice switches wait their delay.
#![allow(clippy::unwrap_used)]

use alpha3_core::config::{Config, SliceProfiles};
use alpha3_core::link::Slice;
use alpha3_sim::network::{
    NetworkConditions, NetworkModel, RadioState, StressLevel, default_slice_profiles,
};

const SAMPLES: usize = 100_000;

fn shipped_profiles() -> SliceProfiles {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/slices/6g-default.toml");
    let text = std::fs::read_to_string(path).unwrap();
    Config::from_toml(&text).unwrap().slices.unwrap()
}

#[test]
fn the_built_in_profiles_are_the_shipped_ones() {
    assert_eq!(default_slice_profiles(), shipped_profiles());
}

struct Stats {
    median_latency: f64,
    mean_jitter: f64,
    mean_loss: f64,
    mean_throughput: f64,
    mean_edge: f64,
}

fn measure(slice: Slice) -> Stats {
    let profiles = shipped_profiles();
    let mut net = NetworkModel::new(&profiles, NetworkConditions::ideal(), 2026);
    net.request_switch(slice, 0.0);
    let mut lat = Vec::with_capacity(SAMPLES);
    let (mut jitter, mut loss, mut tp, mut edge) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..SAMPLES {
        let s = net.sample(1.0 + i as f64 * 0.1);
        assert_eq!(s.slice, slice);
        lat.push(s.lat_ms);
        jitter += s.jitter_ms;
        loss += s.loss_pct;
        tp += s.throughput_mbps;
        edge += s.edge_load;
    }
    lat.sort_by(f64::total_cmp);
    let n = SAMPLES as f64;
    Stats {
        median_latency: lat[SAMPLES / 2],
        mean_jitter: jitter / n,
        mean_loss: loss / n,
        mean_throughput: tp / n,
        mean_edge: edge / n,
    }
}

fn close(name: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want,
        "{name}: got {got}, configured {want} (±{}%)",
        rel * 100.0
    );
}

#[test]
fn each_slice_matches_its_configured_distribution() {
    let profiles = shipped_profiles();
    for (slice, p) in [
        (Slice::Urllc, &profiles.urllc),
        (Slice::Embb, &profiles.embb),
        (Slice::Mmtc, &profiles.mmtc),
    ] {
        let s = measure(slice);
        close(
            &format!("{slice} median latency"),
            s.median_latency,
            p.latency_median_ms,
            0.01,
        );
        close(
            &format!("{slice} mean jitter"),
            s.mean_jitter,
            p.jitter_mean_ms,
            0.02,
        );
        close(&format!("{slice} mean loss"), s.mean_loss, p.loss_pct, 0.05);
        close(
            &format!("{slice} mean throughput"),
            s.mean_throughput,
            p.throughput_mbps,
            0.01,
        );
        close(
            &format!("{slice} mean edge load"),
            s.mean_edge,
            p.edge_load_mean,
            0.05,
        );
        println!(
            "{slice}: median latency {:.3} ms, mean jitter {:.3} ms, loss {:.3} %, throughput {:.2} Mbps, edge load {:.3}",
            s.median_latency, s.mean_jitter, s.mean_loss, s.mean_throughput, s.mean_edge
        );
    }
}

#[test]
fn urllc_good_state_is_calibrated_to_the_published_figures() {
    let s = measure(Slice::Urllc);
    assert!(
        (s.median_latency - 7.0).abs() < 0.1,
        "median {}",
        s.median_latency
    );
    assert!(
        (s.mean_jitter - 1.1).abs() < 0.03,
        "jitter {}",
        s.mean_jitter
    );
}

#[test]
fn hard_state_samples_are_all_hard_and_stress_makes_them_as_often_as_the_chain_says() {
    let profiles = default_slice_profiles();
    let conditions = NetworkConditions {
        stress: StressLevel::Severe,
        loss_windows: Vec::new(),
    };
    let mut net = NetworkModel::new(&profiles, conditions, 5);
    let (mut hard_state, mut hard_samples) = (0usize, 0usize);
    let n = 200_000;
    for i in 0..n {
        let t = i as f64 * 0.5;
        let state = net.radio_state(t);
        let s = net.sample(t);
        if state == RadioState::Hard {
            hard_state += 1;
            assert!(s.is_hard(&profiles.hard), "{s:?}");
        }
        if s.is_hard(&profiles.hard) {
            hard_samples += 1;
        }
    }
    let share = hard_state as f64 / n as f64;
    let (_, _, h) = StressLevel::Severe.stationary();
    assert!(
        (share - h).abs() < 0.02,
        "hard share {share} vs stationary {h}"
    );
    assert!(hard_samples >= hard_state);
}

#[test]
fn loss_windows_lose_everything_and_delay_slice_switches() {
    let profiles = default_slice_profiles();
    let conditions = NetworkConditions {
        stress: StressLevel::None,
        loss_windows: vec![[10.0, 20.0]],
    };
    let mut net = NetworkModel::new(&profiles, conditions, 1);
    assert!(!net.sample(9.9).is_hard(&profiles.hard));
    let lost = net.sample(15.0);
    assert_eq!(lost.loss_pct, 100.0);
    assert_eq!(lost.throughput_mbps, 0.0);
    // Asked at 15 s, inside the window: effective after the window plus the 50 ms delay.
    let sw = net.request_switch(Slice::Embb, 15.0);
    assert_eq!(sw.effective_after_ms, 5_050);
    assert_eq!(net.sample(20.0).slice, Slice::Urllc);
    assert_eq!(net.sample(20.05).slice, Slice::Embb);
    // In the good state a switch takes exactly the configured 50 ms.
    let sw = net.request_switch(Slice::Mmtc, 30.0);
    assert_eq!(sw.effective_after_ms, 50);
    assert_eq!(net.slice_at(30.049), Slice::Embb);
    assert_eq!(net.slice_at(30.05), Slice::Mmtc);
}
