//! Waiting on telemetry, for flight tests (`alpha3_hil::testing`).

use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_hil::HilLink;
use std::time::Duration;

pub use alpha3_hil::testing::wait_for;

/// Arms, takes off to `altitude_m` and waits (10 s at most) until the vehicle is within
/// 0.3 m of it: the opening of every flight test against the fake autopilot.
pub async fn take_off(link: &mut HilLink, altitude_m: f64) -> VehicleSnapshot {
    alpha3_hil::testing::take_off(link, altitude_m, Duration::from_secs(10)).await
}
