//! Shared by the loopback, impairment and sim-vehicle tests: a ground-start world, an endpoint
//! on a given transport, hil session settings, socat pty pairs, waits.
#![allow(dead_code, unused_imports)] // each test binary uses a part

use alpha3_hil::session::SessionConfig;
pub use alpha3_hil::testing::{PtyPair, addr, free_udp_port, wait_for};
use alpha3_sim::endpoint::{Endpoint, EndpointOptions, EndpointTransport, Impairment, LinkOptions};
use alpha3_sim::scenario::suite_scenario;
use alpha3_sim::{World, WorldOptions};
use std::path::PathBuf;

/// Suite scenario 0 with the vehicle on the ground below its spawn point, perfect sensors.
pub fn ground_world(seed: u64) -> World {
    let mut s = suite_scenario(0);
    s.spawn.xyz[2] = 0.0;
    World::new(
        s,
        WorldOptions {
            sensor_noise: false,
            ..WorldOptions::seeded(seed)
        },
    )
}

/// The vehicle on `transport` with PX4's boot timing.
pub async fn endpoint(
    transport: EndpointTransport,
    impairment: Impairment,
    rate_scale: f64,
) -> Endpoint {
    let mut link = LinkOptions::onboard(transport);
    link.impairment = impairment;
    link.rate_scale = rate_scale;
    Endpoint::spawn(ground_world(1), EndpointOptions::single(0, link))
        .await
        .unwrap()
}

/// The vehicle sending from an ephemeral port to a companion on `udpin:127.0.0.1:port`.
pub fn udp_to(port: u16) -> EndpointTransport {
    EndpointTransport::Udp {
        bind: "127.0.0.1:0".parse().unwrap(),
        remote: Some(format!("127.0.0.1:{port}").parse().unwrap()),
    }
}

/// hil settings for a PX4 SITL-like autopilot (arming refused for ~4 s after boot).
pub fn session_config() -> SessionConfig {
    SessionConfig {
        arm_ready_ms: 12_000,
        arm_interval_ms: 500,
        ..SessionConfig::default()
    }
}

pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("py")
        .join(name)
}
