//! Every published α3-Bench episode (failure stubs included) round-trips through our types:
//! parse → write → parse gives equal values, and no field is dropped.

#![allow(clippy::unwrap_used)]

use alpha3_core::episode::Episode;
use alpha3_test_support::shared_data;
use alpha3_tests::json_files;
use serde_json::Value;

#[test]
fn every_published_episode_round_trips_without_losing_fields() {
    let Some(data) = shared_data() else { return };
    let files = json_files(&data.join("alphabench/eval_runs"));
    assert!(
        files.len() >= 105,
        "expected the 105 published files (two full runs of 50, five samples), found {}",
        files.len()
    );
    let mut stubs = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let original: Value = serde_json::from_str(&text).unwrap();
        let episode: Episode =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        stubs += usize::from(episode.is_failure_stub());
        let written = serde_json::to_string_pretty(&episode).unwrap();
        let again: Episode = serde_json::from_str(&written).unwrap();
        assert_eq!(again, episode, "{}", f.display());
        // Nothing dropped: the written JSON equals the original as a value (numbers compared
        // as f64, since an integer-valued float like 300.0 may be written as 300.0 or 300).
        let rewritten: Value = serde_json::from_str(&written).unwrap();
        assert!(
            same_json(&original, &rewritten),
            "{}: values differ after a round trip",
            f.display()
        );
    }
    // One failed-generation stub among the samples, 24 in gemini-3-pro-preview's full run.
    assert_eq!(stubs, 25, "the data holds 25 failure stubs");
}

#[test]
fn non_ascii_keys_and_values_survive() {
    let text = r#"{"initial_state":{"domain":"uav","zoné":"α3","uav":{"pose":{"x":1,"y":2,"z":3,"yaw":0},"capteur_température":"ok"}},
        "dialogue":[{"turn":1,"speaker":"agent","intent":"décoller","actions":[{"type":"mcp","name":"read_telemetry","args":{"note":"→"}}],"obs":[{"tool":"read_telemetry","result":{"état":"ok"}}]}],
        "success":true,"_meta":{"attempts_used":1,"modèle":"ü"}}"#;
    let e: Episode = serde_json::from_str(text).unwrap();
    let out = serde_json::to_string(&e).unwrap();
    for s in [
        "\"zoné\":\"α3\"",
        "\"capteur_température\":\"ok\"",
        "\"décoller\"",
        "\"état\":\"ok\"",
        "\"modèle\":\"ü\"",
        "→",
    ] {
        assert!(out.contains(s), "{s} missing from {out}");
    }
    assert_eq!(serde_json::from_str::<Episode>(&out).unwrap(), e);
}

/// JSON equality with numbers compared by value.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
