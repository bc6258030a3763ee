//! `alpha3 mcp --plan`: the official MCP Python SDK's client flies a QGroundControl plan in the
//! built-in world — no scenario file: the plan's fence and exclusion areas are the airspace, and
//! the gate denies a waypoint inside its exclusion polygon — and a plan the whole-mission check
//! refuses is not served at all.
//!
//! Without the MCP SDK the flight test skips with the reason; under `CI=true` it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod plan_support;
mod sitl_support;

use mcp_support::*;

fn args(dir: &std::path::Path, plan_file: &str) -> Vec<String> {
    vec![
        "mcp".into(),
        "--config".into(),
        config(dir, None).display().to_string(),
        "--plan".into(),
        plan_support::plan(plan_file).display().to_string(),
        "--out".into(),
        dir.join("out").display().to_string(),
        "--episode-id".into(),
        "ep".into(),
        "--deadline-ms".into(),
        "10000".into(),
    ]
}

#[test]
fn the_official_client_flies_a_qgroundcontrol_plan_through_alpha3_mcp() {
    let Some(py) = mcp_python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let summary = client(&py, "fly", None, &args(dir.path(), "zurich-detour.plan"));
    let record = dir.path().join("out/records/ep.jsonl");
    check_flight(&summary, &record);
    let header = plan_support::record_lines(&record).remove(0);
    assert_eq!(header["scenario"], "plan:zurich-detour", "{header}");
    let fence = &header["config"]["initial_state"]["airspace"]["geofence"];
    assert_eq!(fence.as_array().map(Vec::len), Some(1), "{fence}");

    // The record's flight comes back out as a QGroundControl plan: its path and airspace,
    // which reads back and passes the whole-mission check again.
    let review = dir.path().join("review");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .arg("review")
        .arg(&record)
        .arg("--out")
        .arg(&review)
        .status()
        .unwrap();
    assert!(status.success());
    let exported = review.join("ep.plan");
    let plan = alpha3_core::mission_file::read_plan(
        &std::fs::read(&exported).unwrap(),
        &alpha3_core::mission_file::ReadOptions::default(),
    )
    .unwrap();
    assert!(plan.mission.items.len() >= 3, "{:?}", plan.mission.items);
    let inclusions = plan.fence.polygons.iter().filter(|p| p.inclusion).count();
    let exclusions = plan.fence.polygons.iter().filter(|p| !p.inclusion).count();
    assert_eq!((inclusions, exclusions), (1, 1), "{:?}", plan.fence);
    let (code, answer) = plan_support::check(
        std::path::Path::new(env!("CARGO_BIN_EXE_alpha3")),
        &config(dir.path(), None),
        &["--plan", exported.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{answer}");
}

#[test]
fn a_plan_the_whole_mission_check_refuses_is_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_alpha3"))
        .args(args(dir.path(), "zurich-breaks-fence.plan"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("(item 3): gate.geofence.outside"),
        "the refusal names the item: {stderr}"
    );
    assert!(!dir.path().join("out/records/ep.jsonl").exists());
}
