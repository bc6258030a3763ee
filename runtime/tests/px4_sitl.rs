//! The real PX4 SITL (upstream PX4 a70a558, SIH quadrotor; `scripts/px4-sitl.sh` builds it
//! into `$PX4_SITL_HOME`, default `~/.cache/px4-sitl`): `alpha3 sitl --px4` starts a fresh
//! PX4 for each episode, anchors the mission at PX4's own home (Zurich, not the scenario's
//! origin), brings the vehicle to the start, and flies two scenarios of the suite to mission
//! complete with no truth violation — two PX4 instances side by side, sped up in lockstep.
//!
//! Without the build the test skips with the reason; under `CI=true` it fails instead.

mod sitl_support;

use alpha3_core::record::Event;
use serde_json::Value;
use sitl_support::{alpha3, events, px4_build, root};

#[test]
fn alpha3_sitl_flies_two_suite_scenarios_on_real_px4() {
    let Some(px4) = px4_build("the real-PX4 flight") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let scenario = |k: &str| root().join(format!("configs/scenarios/{k}.json"));
    let run = alpha3()
        .arg("sitl")
        .arg("--px4")
        .arg(&px4)
        // Instances 6 and 7 (ports 14546, 14547): clear of a developer's instance 0.
        .args(["--first-instance", "6", "--instances", "2"])
        .args(["--speed-factor", "4"])
        .arg("--scenario")
        .arg(scenario("sc-0000"))
        .arg("--scenario")
        .arg(scenario("sc-0003"))
        .arg("--config")
        .arg(root().join("configs/alpha3.toml"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    eprintln!("{stderr}");
    assert!(run.status.success(), "alpha3 sitl failed: {:?}", run.status);
    for key in ["sc-0000", "sc-0003"] {
        let id = format!("scripted__{key}__s1");
        let record = out.join("records").join(format!("{id}.jsonl"));
        let evs = events(&record);
        // Anchored at PX4's real home, from the ground.
        let Some(Event::Header { config, .. }) = evs.first() else {
            panic!("{id}: no header")
        };
        let link = &config["vehicle_link"];
        assert_eq!(
            link["anchor"]["on_ground"],
            Value::Bool(true),
            "{id}: {link}"
        );
        let home_lat = link["anchor"]["home"]["lat_deg"].as_f64().unwrap();
        assert!(
            (home_lat - 47.3977).abs() < 1e-3,
            "{id}: PX4's home is Zurich: {link}"
        );
        let rate = link["clock_rate"].as_f64().unwrap();
        assert!(
            rate > 1.0,
            "{id}: the episode follows PX4's sped-up clock ({rate})"
        );
        let violations: Vec<_> = evs
            .iter()
            .filter(|e| matches!(e, Event::Violation { .. }))
            .collect();
        assert!(
            violations.is_empty(),
            "{id}: truth violations {violations:?}"
        );
        let end = evs
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::Termination {
                    reason, success, ..
                } => Some((reason.clone(), *success)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{id}: no termination"));
        assert_eq!(end, ("mission_complete".into(), true), "{id}");
        assert!(out.join("tlogs").join(format!("{id}.tlog")).is_file());
    }
    let gap = std::fs::read_to_string(out.join("twin_gap.md")).unwrap();
    assert!(
        gap.contains("SITL: 2/2 complete with no truth violation"),
        "{gap}"
    );
}
