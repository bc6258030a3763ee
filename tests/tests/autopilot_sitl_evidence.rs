//! The simulator check (`alpha3_hil::simulator`) against the real autopilots: PX4 SITL (SIH
//! quadrotor) and ArduPilot SITL (ArduCopter) each prove themselves simulators by the SITL-only
//! parameter the check reads. Each test starts its own autopilot on an instance whose ports
//! are free (never instance 0, which a developer's own SITL may hold), and stops exactly the
//! process it started. Without a build it skips with the reason, except in CI, where it fails.
#![allow(clippy::unwrap_used)]

mod autopilot_common;

use alpha3_hil::HilLink;
use alpha3_hil::session::SessionConfig;
use alpha3_hil::simulator::SimulatorCheck;
use alpha3_hil::testing::addr;
use autopilot_common::{Autopilot, build, options, skip, start_ardupilot, start_px4};

async fn check(link: HilLink, evidence: &str, autopilot: &Autopilot) {
    let status = link.status();
    let values = link
        .read_params(vec![
            evidence.to_string(),
            "SYS_HITL".into(),
            "SYS_AUTOSTART".into(),
            "SIH_VEHICLE_TYPE".into(),
            "FORMAT_VERSION".into(),
        ])
        .await
        .unwrap();
    eprintln!("verdict: {:?}\nparameters: {values:?}", status.simulator);
    link.close().await;
    assert!(
        matches!(&status.simulator, SimulatorCheck::Simulated(r) if r.contains(evidence)),
        "{:?}\n{}",
        status.simulator,
        autopilot.log_text()
    );
    assert!(values.contains_key(evidence), "{values:?}");
    assert_eq!(status.foreign.count, 0, "{:?}", status.foreign);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn px4_sitl_proves_itself_a_simulator() {
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
    let link = match link {
        Ok(l) => l,
        Err(e) => panic!("{e}\n{}", px4.log_text()),
    };
    check(link, "SIM_BAT_DRAIN", &px4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ardupilot_sitl_proves_itself_a_simulator() {
    let Some(bin) = build(
        "ARDUPILOT_SITL_HOME",
        "ardupilot-sitl",
        "src/build/sitl/bin/arducopter",
    ) else {
        return skip("no ArduPilot SITL build (bash ../shared/ardupilot/build.sh)");
    };
    let port = alpha3_hil::testing::free_udp_port();
    let Some(copter) = start_ardupilot(&bin, port) else {
        return skip("no free ArduPilot instance between -I5 and -I9");
    };
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        SessionConfig::default(),
        options(),
    )
    .await;
    let link = match link {
        Ok(l) => l,
        Err(e) => panic!("{e}\n{}", copter.log_text()),
    };
    check(link, "SIM_SPEEDUP", &copter).await;
}
