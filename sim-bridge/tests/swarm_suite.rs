//! The swarm scenarios under `configs/swarm/` are what the generator writes, and each validates
//! as `alpha3 validate` validates it (a swarm file, a scenario), with the vehicles' homes apart.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use alpha3_core::document::{DocumentKind, check_text};
use alpha3_sim::scenario::{
    SWARM_REGENERATE_COMMAND, parse_scenario, swarm_suite_files, write_swarm_suite,
};
use std::path::PathBuf;

fn swarm_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs/swarm")
}

#[test]
fn checked_in_swarms_match_the_generator() {
    let dir = swarm_dir();
    if std::env::var_os("ALPHA3_REGENERATE_SCENARIOS").is_some() {
        write_swarm_suite(&dir).unwrap();
    }
    let files = swarm_suite_files().unwrap();
    let drifted: Vec<String> = files
        .iter()
        .filter(|(name, text)| std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(text))
        .map(|(name, _)| name.clone())
        .collect();
    assert!(
        drifted.is_empty(),
        "configs/swarm/ is out of date: {drifted:?}\nregenerate with: {SWARM_REGENERATE_COMMAND}"
    );
    // Nothing checked in that the generator does not write.
    let mut on_disk = Vec::new();
    for entry in walk(&dir) {
        on_disk.push(entry);
    }
    let extra: Vec<&String> = on_disk
        .iter()
        .filter(|p| !files.iter().any(|(name, _)| name == *p))
        .collect();
    assert!(extra.is_empty(), "not from the generator: {extra:?}");
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(
                path.strip_prefix(swarm_dir())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    out
}

#[test]
fn every_swarm_file_and_scenario_validates_like_alpha3_validate() {
    let files = swarm_suite_files().unwrap();
    assert!(files.len() >= 8, "{}", files.len());
    for (name, text) in &files {
        if name.ends_with(".toml") {
            let problems = check_text(DocumentKind::Swarm, text);
            assert!(problems.is_empty(), "{name}: {problems:?}");
        } else {
            let problems = check_text(DocumentKind::Scenario, text);
            assert!(problems.is_empty(), "{name}: {problems:?}");
            let s = parse_scenario(text).unwrap();
            assert!(!s.mission.waypoints.is_empty(), "{name}");
        }
    }
    // Within one swarm the homes are more than the separation apart.
    for swarm in ["cross-3", "corridor-3", "landing-3"] {
        let homes: Vec<[f64; 3]> = files
            .iter()
            .filter(|(n, _)| n.starts_with(&format!("{swarm}/")))
            .map(|(_, t)| parse_scenario(t).unwrap().spawn.xyz)
            .collect();
        assert_eq!(homes.len(), 3, "{swarm}");
        for (i, a) in homes.iter().enumerate() {
            for b in &homes[i + 1..] {
                assert!(
                    (a[0] - b[0]).hypot(a[1] - b[1]) > 25.0,
                    "{swarm}: {a:?} {b:?}"
                );
            }
        }
    }
}

#[test]
fn the_landing_site_swarm_lands_each_vehicle_on_its_own_pad_of_one_depot() {
    let files = swarm_suite_files().unwrap();
    let scenarios: Vec<_> = files
        .iter()
        .filter(|(n, _)| n.starts_with("landing-3/"))
        .map(|(_, t)| parse_scenario(t).unwrap())
        .collect();
    assert_eq!(scenarios.len(), 3);
    let mut pads = Vec::new();
    for s in &scenarios {
        let w = &s.mission.waypoints;
        let (over, pad) = (w[w.len() - 2], w[w.len() - 1]);
        // Over the pad at the legs' altitude, then on the ground on it.
        assert_eq!([over[0], over[1]], [pad[0], pad[1]], "{}", s.name);
        assert!(over[2] >= 10.0 && pad[2] == 0.0, "{}: {w:?}", s.name);
        // Every pad of the depot is a site its gate lets a landing end at.
        let sites = &s.landing.as_ref().unwrap().emergency_sites;
        assert_eq!(sites.len(), 4, "home and three pads: {sites:?}");
        assert!(sites.iter().any(|p| p[0] == pad[0] && p[1] == pad[1]));
        pads.push(pad);
    }
    // Three pads, each beyond the separation plus a gate's margins (~9 m) from the others.
    for (i, a) in pads.iter().enumerate() {
        for b in &pads[i + 1..] {
            assert!((a[0] - b[0]).hypot(a[1] - b[1]) > 25.0 + 9.0, "{a:?} {b:?}");
        }
    }
}
