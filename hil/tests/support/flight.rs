//! Waiting on telemetry, for flight tests.

use alpha3_core::snapshot::VehicleSnapshot;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::HilLink;
use std::time::Duration;
use tokio::time::Instant;

/// Waits until the snapshot satisfies `done`, or panics with the last snapshot.
pub async fn wait_for(
    link: &HilLink,
    what: &str,
    timeout: Duration,
    done: impl Fn(&VehicleSnapshot) -> bool,
) -> VehicleSnapshot {
    let start = Instant::now();
    loop {
        let s = link.snapshot();
        if done(&s) {
            return s;
        }
        assert!(
            start.elapsed() < timeout,
            "timed out waiting for {what}: {s:#?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
