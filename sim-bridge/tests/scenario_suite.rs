//! The checked-in suite (`configs/scenarios/`) is exactly what the generator makes, every file
//! validates as `alpha3 validate` checks it, and the suite covers what it claims.
#![allow(clippy::unwrap_used)]

use alpha3_core::document::{DocumentKind, check_text};
use alpha3_sim::geometry::{area_contains, horizontal_margin};
use alpha3_sim::scenario::{
    MissionType, REGENERATE_COMMAND, SUITE_SIZE, ScenarioSpec, generate_scenario, parse_scenario,
    scenario_to_json, suite_files, write_suite,
};
use alpha3_sim::vec3::to_enu;
use std::path::PathBuf;

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs/scenarios")
}

#[test]
fn checked_in_suite_matches_the_generator() {
    let dir = suite_dir();
    if std::env::var_os("ALPHA3_REGENERATE_SCENARIOS").is_some() {
        write_suite(&dir).unwrap();
    }
    let mut drifted = Vec::new();
    for (name, text) in suite_files().unwrap() {
        match std::fs::read_to_string(dir.join(&name)) {
            Ok(on_disk) if on_disk == text => {}
            Ok(_) => drifted.push(format!("{name} differs")),
            Err(e) => drifted.push(format!("{name}: {e}")),
        }
    }
    let extra: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("sc-") && n.ends_with(".json"))
        .filter(|n| n[3..7].parse::<usize>().map_or(true, |i| i >= SUITE_SIZE))
        .collect();
    assert!(extra.is_empty(), "files beyond the suite: {extra:?}");
    assert!(
        drifted.is_empty(),
        "configs/scenarios/ is out of date ({} files): {:?}\nregenerate with: {REGENERATE_COMMAND}",
        drifted.len(),
        &drifted[..drifted.len().min(5)]
    );
}

#[test]
fn every_suite_scenario_validates_like_alpha3_validate() {
    for (name, text) in suite_files().unwrap() {
        let problems = check_text(DocumentKind::Scenario, &text);
        assert!(problems.is_empty(), "{name}: {problems:?}");
        parse_scenario(&text).unwrap();
    }
}

#[test]
fn the_suite_has_ten_of_each_mission_type_and_every_stress() {
    let files = suite_files().unwrap();
    assert_eq!(files.len(), 50);
    for m in MissionType::ALL {
        let n = files
            .iter()
            .filter(|(_, t)| t.contains(&format!("\"type\": \"{}\"", m.as_str())))
            .count();
        assert_eq!(n, 10, "{}", m.as_str());
    }
    let scenarios: Vec<_> = files
        .iter()
        .map(|(_, t)| parse_scenario(t).unwrap())
        .collect();
    assert!(scenarios.iter().any(|s| !s.faults.is_empty()));
    assert!(scenarios.iter().any(|s| s.faults.is_empty()));
    assert!(
        scenarios
            .iter()
            .any(|s| !s.airspace.no_fly_zones_dynamic.is_empty())
    );
    assert!(
        scenarios
            .iter()
            .any(|s| s.comms.as_ref().is_some_and(|c| !c.loss_windows.is_empty()))
    );
    assert!(scenarios.iter().any(|s| s.traffic.len() >= 2));
}

#[test]
fn routes_are_flyable_inside_the_rules() {
    for (name, text) in suite_files().unwrap() {
        let s = parse_scenario(&text).unwrap();
        let a = &s.airspace;
        let band = a.altitude_agl_min_m..=a.altitude_agl_max_m;
        assert!(
            band.contains(&s.spawn.xyz[2]),
            "{name}: spawn outside the band"
        );
        for w in std::iter::once(&s.spawn.xyz).chain(&s.mission.waypoints) {
            assert!(band.contains(&w[2]), "{name}: {w:?} outside the band");
            assert!(
                a.geofence
                    .iter()
                    .any(|g| horizontal_margin(g, [w[0], w[1]], 0.0) >= 20.0),
                "{name}: {w:?} too close to the fence"
            );
            assert!(
                a.no_fly_zones
                    .iter()
                    .all(|z| !area_contains(z, to_enu(*w), 0.0)),
                "{name}: {w:?} in a no-fly zone"
            );
        }
        let e = s.uav.battery_model.as_ref().unwrap();
        assert!(e.hover_power_w > 0.0 && s.uav.battery_wh >= 100.0, "{name}");
    }
}

#[test]
fn same_spec_same_text_other_seed_other_text() {
    let a = scenario_to_json(&generate_scenario(&ScenarioSpec::from_seed(11))).unwrap();
    let b = scenario_to_json(&generate_scenario(&ScenarioSpec::from_seed(11))).unwrap();
    let c = scenario_to_json(&generate_scenario(&ScenarioSpec::from_seed(12))).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}
