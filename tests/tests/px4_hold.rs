//! A hold on the real PX4 SITL stops a vehicle that is flying a reposition. PX4 flies
//! DO_REPOSITION in its Hold mode (AUTO.LOITER) already, and a DO_SET_MODE to the mode it is
//! in changes nothing: with hold sent as that mode change, real PX4 flew on toward the
//! reposition's target at 4 m/s for as long as it was watched, and on sc-0039 at 5× the
//! watchdog's hold let the vehicle accelerate toward traffic. The hold is now a reposition to
//! where the vehicle is, then the mode (`hil/src/translate/px4.rs`). Without a PX4 build the
//! test skips with the reason, except in CI, where it fails.
#![allow(clippy::unwrap_used)]

mod autopilot_common;

use alpha3_core::command::Command;
use alpha3_core::frames::Enu;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::HilLink;
use alpha3_hil::session::SessionConfig;
use alpha3_hil::testing::{addr, take_off, wait_for};
use autopilot_common::{build, options, skip, start_px4};
use std::time::Duration;

fn ground_speed(v: Enu) -> f64 {
    v.x.hypot(v.y)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn px4_a_hold_during_a_reposition_stops_the_vehicle() {
    let Some(bin) = build(
        "PX4_SITL_HOME",
        "px4-sitl",
        "src/build/px4_sitl_default/bin/px4",
    ) else {
        return skip("no PX4 SITL build (bash ../shared/px4/build.sh)");
    };
    let Some((px4, port)) = start_px4(&bin) else {
        return skip("no free PX4 instance between 20 and 39");
    };
    let link = HilLink::connect_with(
        addr(&format!("udpout:127.0.0.1:{port}")),
        SessionConfig::default(),
        options(),
    )
    .await;
    let mut link = match link {
        Ok(l) => l,
        Err(e) => panic!("{e}\n{}", px4.log_text()),
    };
    take_off(&mut link, 15.0, Duration::from_secs(90)).await;
    let away = link
        .execute_unchecked(&Command::GoTo {
            target: Enu::new(0.0, 400.0, 15.0),
            speed_mps: Some(8.0),
        })
        .await
        .unwrap();
    assert!(away.accepted, "{away:?}");
    let flying = wait_for(
        &link,
        "4 m/s toward the target",
        Duration::from_secs(30),
        |s| ground_speed(s.velocity) > 4.0,
    )
    .await;
    let hold = link.execute_unchecked(&Command::Hold).await.unwrap();
    assert!(hold.accepted, "{hold:?}");
    let held_at = link.snapshot().position;
    // From 4–8 m/s PX4 brakes within a few seconds; one that flew on would be near 8 m/s.
    let stopped = wait_for(&link, "the vehicle stopped", Duration::from_secs(10), |s| {
        ground_speed(s.velocity) < 0.5
    })
    .await;
    // PX4 then settles on its braking point (it brakes past it and comes back a little):
    // where the hold was given, not on toward the target 400 m north.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let settled = wait_for(&link, "the vehicle settled", Duration::from_secs(20), |s| {
        ground_speed(s.velocity) < 0.3
    })
    .await;
    eprintln!(
        "flying {:.1} m/s at y = {:.1} m; held at y = {:.1} m; stopped at y = {:.1} m; settled at y = {:.1} m",
        ground_speed(flying.velocity),
        flying.position.y,
        held_at.y,
        stopped.position.y,
        settled.position.y,
    );
    assert!(
        settled.position.horizontal_distance(held_at) < 25.0,
        "{:?} vs {held_at:?}",
        settled.position
    );
    assert!(
        settled.position.y <= stopped.position.y + 1.0,
        "{settled:#?}"
    );
    link.close().await;
    drop(px4);
}
