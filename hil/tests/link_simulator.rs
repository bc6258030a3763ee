//! The simulator check on a live link: an autopilot with a SITL-only parameter is proven a
//! simulator, one without is not; under `SimulatorPolicy::Require` the link task sends it no
//! command, and an autopilot that reboots into a flight build is caught by the re-check.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::command::Command;
use alpha3_hil::dialect::{MavMessage, mav};
use alpha3_hil::param::ParamValue;
use alpha3_hil::simulator::{SimulatorCheck, SimulatorPolicy};
use alpha3_hil::{ConnectOptions, HilLink, LinkStatus};
use std::time::Duration;
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

fn sitl() -> FakeConfig {
    let mut cfg = FakeConfig::default();
    cfg.params
        .push(("SIM_BAT_DRAIN".into(), ParamValue::Real(60.0)));
    cfg.params.push(("SYS_HITL".into(), ParamValue::Int(0)));
    cfg
}

async fn start(cfg: FakeConfig) -> (Fake, HilLink) {
    let port = free_udp_port();
    let fake = Fake::start(addr(&format!("udpout:127.0.0.1:{port}")), cfg, None).await;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            simulator: SimulatorPolicy::Require,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    (fake, link)
}

fn arm_requests(fake: &Fake) -> usize {
    fake.with(|m| {
        m.received
            .iter()
            .filter(|(_, msg)| {
                matches!(msg, MavMessage::COMMAND_LONG(c) if c.command == mav::MavCmd::MAV_CMD_COMPONENT_ARM_DISARM)
            })
            .count()
    })
}

async fn wait_status(link: &HilLink, what: &str, ok: impl Fn(&LinkStatus) -> bool) {
    for _ in 0..200 {
        if ok(&link.status()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never {what}: {:?}", link.status());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flight_build_gets_no_command() {
    let (fake, mut link) = start(FakeConfig::default()).await;
    let status = link.status();
    assert!(
        matches!(&status.simulator, SimulatorCheck::NotProven(r) if r.contains("no SIM_BAT_DRAIN")),
        "{:?}",
        status.simulator
    );
    assert!(link.refusal().is_some());
    let err = link.execute_unchecked(&Command::Arm).await.unwrap_err();
    assert!(err.to_string().contains("not proven a simulator"), "{err}");
    assert_eq!(arm_requests(&fake), 0, "nothing reached the autopilot");
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitl_that_reboots_into_a_flight_build_is_caught_by_the_recheck() {
    let (fake, mut link) = start(sitl()).await;
    assert!(
        link.status().simulator.is_simulated(),
        "{:?}",
        link.status()
    );
    assert!(
        link.execute_unchecked(&Command::Arm)
            .await
            .unwrap()
            .accepted
    );
    fake.with(|m| m.cfg.params.retain(|(n, _)| n != "SIM_BAT_DRAIN"));
    fake.reboot(Duration::from_secs(2));
    wait_status(&link, "lost", |s| s.autopilot_lost).await;
    wait_status(&link, "judged again", |s| {
        !s.autopilot_lost && matches!(s.simulator, SimulatorCheck::NotProven(_))
    })
    .await;
    let before = arm_requests(&fake);
    let err = link.execute_unchecked(&Command::Arm).await.unwrap_err();
    assert!(err.to_string().contains("no SIM_BAT_DRAIN"), "{err}");
    assert_eq!(arm_requests(&fake), before, "nothing reached the autopilot");
    assert!(link.refusal().is_some());
    link.close().await;
    fake.stop();
}
