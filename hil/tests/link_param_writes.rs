//! Parameter writes on a live link: the autopilot's fence, failsafe, arming and system-id
//! parameters are never written unless the config names each one; what is named (or not
//! protected) is written with PARAM_SET and confirmed by the autopilot's echo.
#![allow(clippy::unwrap_used)]

mod support;

use alpha3_core::config::{AutopilotKind, LinkConfig};
use alpha3_hil::dialect::MavMessage;
use alpha3_hil::param::ParamValue;
use alpha3_hil::param_guard::ParamWritePolicy;
use alpha3_hil::session::SessionConfig;
use alpha3_hil::{ConnectOptions, HilError, HilLink};
use support::fake_px4::FakeConfig;
use support::runner::Fake;
use support::{addr, free_udp_port, test_config};

async fn connect(policy: ParamWritePolicy) -> (HilLink, Fake) {
    let port = free_udp_port();
    let mut fake_cfg = FakeConfig::default();
    fake_cfg
        .params
        .push(("MPC_XY_CRUISE".into(), ParamValue::Real(5.0)));
    let fake = Fake::start(addr(&format!("udpout:127.0.0.1:{port}")), fake_cfg, None).await;
    let mut cfg = test_config();
    cfg.param_writes_allowed = policy;
    let link = HilLink::connect_with(
        addr(&format!("udpin:127.0.0.1:{port}")),
        cfg,
        ConnectOptions {
            ready_timeout_ms: 10_000,
            preflight: false,
            ..ConnectOptions::default()
        },
    )
    .await
    .unwrap();
    (link, fake)
}

fn param_sets(fake: &Fake) -> usize {
    fake.with(|m| {
        m.received
            .iter()
            .filter(|(_, msg)| matches!(msg, MavMessage::PARAM_SET(_)))
            .count()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_parameters_are_not_written_unless_named() {
    let (link, fake) = connect(ParamWritePolicy::default()).await;
    for name in [
        "GF_ACTION",
        "NAV_DLL_ACT",
        "COM_OBL_RC_ACT",
        "RTL_RETURN_ALT",
    ] {
        let err = link
            .write_params(vec![(name.to_string(), 1.0)])
            .await
            .unwrap_err();
        assert!(
            matches!(&err, HilError::ParamWriteRefused { name: n, .. } if n == name),
            "{err}"
        );
    }
    // All or nothing: one protected name refuses the whole batch.
    let err = link
        .write_params(vec![
            ("MPC_XY_CRUISE".into(), 8.0),
            ("GF_MAX_HOR_DIST".into(), 500.0),
        ])
        .await
        .unwrap_err();
    assert!(matches!(err, HilError::ParamWriteRefused { .. }), "{err}");
    assert_eq!(param_sets(&fake), 0, "no PARAM_SET left the companion");
    assert!(fake.with(|m| m.param_writes.is_empty()));

    // An unprotected parameter may be written without naming it.
    let done = link
        .write_params(vec![("MPC_XY_CRUISE".into(), 8.0)])
        .await
        .unwrap();
    assert_eq!(done["MPC_XY_CRUISE"], ParamValue::Real(8.0));
    assert_eq!(
        fake.with(|m| m.param_writes.clone()),
        vec![("MPC_XY_CRUISE".to_string(), ParamValue::Real(8.0))]
    );
    link.close().await;
    fake.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_protected_parameter_is_written_and_confirmed() {
    let (link, fake) = connect(ParamWritePolicy::naming(["GF_ACTION"])).await;
    let done = link
        .write_params(vec![("GF_ACTION".into(), 3.0)])
        .await
        .unwrap();
    // PX4 INT32 parameters travel byte-wise; the echo confirms the integer.
    assert_eq!(done["GF_ACTION"], ParamValue::Int(3));
    let fence = fake.with(|m| {
        m.cfg
            .params
            .iter()
            .find(|(n, _)| n == "GF_ACTION")
            .map(|p| p.1)
    });
    assert_eq!(fence, Some(ParamValue::Int(3)));
    // Naming one does not open its neighbours.
    let err = link
        .write_params(vec![("GF_MAX_HOR_DIST".into(), 10.0)])
        .await
        .unwrap_err();
    assert!(matches!(err, HilError::ParamWriteRefused { .. }), "{err}");
    // A fractional value for an integer parameter is refused, not rounded.
    let err = link
        .write_params(vec![("GF_ACTION".into(), 2.5)])
        .await
        .unwrap_err();
    assert!(matches!(err, HilError::Param { .. }), "{err}");
    assert_eq!(fake.with(|m| m.param_writes.len()), 1);
    link.close().await;
    fake.stop();
}

#[test]
fn the_config_names_what_may_be_written() {
    let link = LinkConfig {
        autopilot: AutopilotKind::Px4,
        param_writes: [("NAV_DLL_ACT".to_string(), 2.0)].into_iter().collect(),
        ..LinkConfig::companion_defaults("udpin:0.0.0.0:14540")
    };
    let cfg = SessionConfig::from_link_config(&link).unwrap();
    assert!(cfg.param_writes_allowed.check("NAV_DLL_ACT").is_ok());
    assert!(cfg.param_writes_allowed.check("NAV_RCL_ACT").is_err());
    assert!(cfg.param_writes_allowed.check("MAV_SYS_ID").is_err());
}
