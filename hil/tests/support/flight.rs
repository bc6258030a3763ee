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

/// Arms, takes off to `altitude_m` and waits (10 s at most) until the vehicle is within
/// 0.3 m of it: the opening of every flight test.
pub async fn take_off(link: &mut HilLink, altitude_m: f64) -> VehicleSnapshot {
    use alpha3_core::command::Command;
    let armed = link.execute_unchecked(&Command::Arm).await.unwrap();
    assert!(armed.accepted, "arm: {armed:?}");
    let up = link
        .execute_unchecked(&Command::Takeoff { altitude_m })
        .await
        .unwrap();
    assert!(up.accepted, "take-off: {up:?}");
    wait_for(
        link,
        &format!("{altitude_m} m"),
        Duration::from_secs(10),
        |s| (s.position.z - altitude_m).abs() < 0.3,
    )
    .await
}
