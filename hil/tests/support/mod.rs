//! Test peers and plumbing shared by the integration tests: a PX4-like fake autopilot (sans-IO
//! model plus a runner over real sockets and ptys), socat pty pairs, a recording UDP relay,
//! and the project's pymavlink.
#![allow(dead_code, unused_imports)] // each test binary uses a part

pub mod fake_px4;
pub mod flight;
pub mod loopback;
pub mod pty;
pub mod python;
pub mod runner;
pub mod tap;

use alpha3_hil::session::SessionConfig;
pub use alpha3_hil::testing::{addr, free_udp_port};
use std::path::PathBuf;

/// Session settings with test-sized timeouts.
pub fn test_config() -> SessionConfig {
    let mut c = SessionConfig::default();
    c.timing.ack_timeout_ms = 300;
    c.timing.retries = 2;
    c.heartbeat_lost_ms = 1500;
    c.arm_ready_ms = 6000;
    c.arm_interval_ms = 300;
    c
}

pub use alpha3_test_support::python;

pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/py")
        .join(name)
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}
