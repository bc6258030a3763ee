//! Skipping a test whose inputs are absent: printed on a developer machine, a failure in CI.

/// Whether this is CI's run (`CI=true`): there nothing a test needs may be missing.
pub fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Called by a test that cannot run because `what` is absent, `reason` saying where it was
/// looked for and how to get it. On a developer machine it prints the reason and returns (the
/// caller then returns); under `CI=true` it panics with the reason, so CI never passes a test
/// that did not run.
pub fn require_or_skip(what: &str, reason: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_string();
    assert!(
        !in_ci(),
        "{test}: {what} is required in CI, and missing: {reason}"
    );
    eprintln!("skipping {test}: no {what}: {reason}");
}
