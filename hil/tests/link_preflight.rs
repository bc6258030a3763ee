//! Preflight reads the autopilot's failsafe parameters (PX4 INT32 byte-wise) and refuses to
//! fly when the config requires one that is off or unreadable.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::config::{AutopilotKind, LinkConfig};
use alpha3_hil::param::ParamValue;
use alpha3_hil::{ConnectOptions, HilError, HilLink};
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

fn link_config(port: u16, required: &[&str]) -> LinkConfig {
    LinkConfig {
        connect: format!("udpin:127.0.0.1:{port}"),
        system_id: 1,
        component_id: 191,
        autopilot: AutopilotKind::Px4,
        heartbeat_interval_ms: 1000,
        gcs_heartbeat: true,
        signing_key_env: None,
        require_signing: false,
        command_timeout_ms: 300,
        command_retries: 2,
        required_failsafes: required.iter().map(|s| s.to_string()).collect(),
        param_writes: Default::default(),
    }
}

fn with_param(name: &str, value: ParamValue) -> FakeConfig {
    let mut cfg = FakeConfig::default();
    for p in cfg.params.iter_mut().filter(|p| p.0 == name) {
        p.1 = value;
    }
    cfg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_failsafe_that_is_off_refuses_to_fly() {
    let port = free_udp_port();
    let fake = Fake::start(
        addr(&format!("udpout:127.0.0.1:{port}")),
        FakeConfig::default(),
        None,
    )
    .await;
    let err = HilLink::connect(&link_config(port, &["NAV_DLL_ACT"]))
        .await
        .unwrap_err();
    let HilError::PreflightRefused(why) = err else {
        panic!("{err:?}")
    };
    assert!(
        why.starts_with("NAV_DLL_ACT (data-link loss action) is off: 0"),
        "{why}"
    );
    assert!(
        why.contains("GF_ACTION"),
        "the whole report comes along: {why}"
    );
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failsafes_that_are_on_pass_and_are_reported() {
    let port = free_udp_port();
    let cfg = with_param("NAV_DLL_ACT", ParamValue::Int(2));
    let fake = Fake::start(addr(&format!("udpout:127.0.0.1:{port}")), cfg, None).await;
    let link = HilLink::connect(&link_config(port, &["NAV_DLL_ACT", "GF_ACTION"]))
        .await
        .unwrap();
    let report = link.preflight().unwrap();
    assert!(report.is_ok(), "{report}");
    let value = |n: &str| report.readings.iter().find(|r| r.name == n).unwrap().value;
    assert_eq!(value("NAV_DLL_ACT"), Some(ParamValue::Int(2)));
    assert_eq!(value("GF_ACTION"), Some(ParamValue::Int(2)));
    assert_eq!(value("GF_MAX_HOR_DIST"), Some(ParamValue::Real(0.0)));
    // A GCS-type heartbeat was configured: PX4 would now send us STATUSTEXT.
    assert!(fake.with(|m| m.gcs_seen));
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_required_parameter_refuses_to_fly() {
    let port = free_udp_port();
    let fake = Fake::start(
        addr(&format!("udpout:127.0.0.1:{port}")),
        FakeConfig::default(),
        None,
    )
    .await;
    let options = ConnectOptions {
        ready_timeout_ms: 10_000,
        preflight: true,
        required_failsafes: vec!["FS_NOT_THERE".into()],
        ..ConnectOptions::default()
    };
    let err = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        test_config(),
        options,
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("FS_NOT_THERE (required by config) could not be read"),
        "{err}"
    );
    fake.stop();
}
