//! A scenario at the no-fly zone cap is flown to its end, and one zone more is refused (issue
//! 15, item 5). The scripted planner once checked every candidate leg against every zone and
//! tried a way around each zone in the way: 1,000 scattered zones took minutes an episode in a
//! debug build (past the bench's stall limit) and 10,000 over 100 s in a release one.

#![allow(clippy::unwrap_used)]

mod bench_support;

use alpha3_core::scenario::limits::MAX_NO_FLY_ZONES;
use bench_support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Suite scenario 0 with `count` no-fly cylinders in all (radius 5 m) scattered over its fence,
/// 25 m clear of the spawn, the waypoints, the landing sites and the origin.
fn crowded(count: usize) -> Value {
    let mut s: Value =
        serde_json::from_str(&read(&root().join("configs/scenarios/sc-0000.json"))).unwrap();
    let xy = |v: &Value| [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()];
    let mut keep = vec![xy(&s["spawn"]["xyz"]), [0.0, 0.0]];
    keep.extend(s["mission"]["waypoints"].as_array().unwrap().iter().map(xy));
    keep.extend(
        s["landing"]["emergency_sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(xy),
    );
    let zones = s["airspace"]["no_fly_zones"].as_array_mut().unwrap();
    let mut state: u64 = 7;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        10.0 + 780.0 * (state >> 11) as f64 / (1u64 << 53) as f64
    };
    while zones.len() < count {
        let (x, y) = (next(), next());
        if keep.iter().all(|k| (k[0] - x).hypot(k[1] - y) > 25.0) {
            zones.push(
                json!({"type": "cylinder", "center": [x, y], "radius_m": 5.0,
                              "floor_m": 0.0, "ceiling_m": 500.0}),
            );
        }
    }
    s
}

fn write(dir: &Path, name: &str, scenario: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(scenario).unwrap()).unwrap();
    path
}

#[test]
fn a_scenario_at_the_zone_cap_is_flown_to_its_end_and_one_more_zone_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at_cap = write(dir.path(), "crowded.json", &crowded(MAX_NO_FLY_ZONES));
    let suite = write_suite(dir.path(), 1, &[1], 1);
    let text = read(&suite);
    let root = root().canonicalize().unwrap();
    let scenarios = format!("scenarios = [\"{}/configs/scenarios\"]", root.display());
    assert!(text.contains(&scenarios));
    let text = text.replace(
        &scenarios,
        &format!("scenarios = [\"{}\"]", at_cap.display()),
    );
    std::fs::write(&suite, text).unwrap();
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);
    let record = out.join("records/scripted__crowded__s1.jsonl");
    assert_eq!(event_count(&record, "termination"), 1);
    assert!(!read(&record).contains("episode_failed"));

    let over = write(dir.path(), "over.json", &crowded(MAX_NO_FLY_ZONES + 1));
    let o = alpha3().arg("validate").arg(&over).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("/airspace/no_fly_zones: 1001 no-fly zones") && text.contains("max_items"),
        "{text}"
    );
}
