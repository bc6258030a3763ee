//! A test whose reference data is missing skips on a developer machine and fails under
//! `CI=true`: this binary runs its own probe test again with the data pointed at a missing
//! directory, once each way.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

const PROBE: &str = "ALPHA3_TEST_SUPPORT_PROBE";

/// Asks for the reference data; does nothing unless run as the probe.
#[test]
fn probe_shared_data() {
    if std::env::var_os(PROBE).is_none() {
        return;
    }
    let _ = alpha3_test_support::shared_data();
}

fn probe(ci: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "probe_shared_data",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(PROBE, "1")
        .env("ALPHA3_SHARED_DATA", "/nonexistent/shared/data")
        .env("CI", ci)
        .output()
        .unwrap()
}

#[test]
fn missing_reference_data_fails_under_ci_and_skips_elsewhere() {
    let ci = probe("true");
    let err = String::from_utf8_lossy(&ci.stderr);
    assert!(!ci.status.success(), "passed under CI=true: {err}");
    assert!(err.contains("reference data is required in CI"), "{err}");
    assert!(err.contains("/nonexistent/shared/data"), "{err}");

    let dev = probe("false");
    let err = String::from_utf8_lossy(&dev.stderr);
    assert!(dev.status.success(), "failed outside CI: {err}");
    assert!(
        err.contains("skipping probe_shared_data: no reference data"),
        "{err}"
    );
}
