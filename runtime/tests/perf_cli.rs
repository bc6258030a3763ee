//! `alpha3 perf` end to end: a quick run prints JSON of the documented shape with positive,
//! finite figures, the table names every figure, and a bad model path is a clear error. With
//! the test model available, the LLM figures are measured too.

#![allow(clippy::unwrap_used)]

use alpha3_test_support::test_model;
use serde_json::Value;
use std::process::{Command, Output};

fn alpha3() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_alpha3"));
    c.env_remove("ALPHA3_MODEL");
    c
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The number at `pointer`, which must be finite and > 0.
fn positive(v: &Value, pointer: &str) -> f64 {
    let x = v
        .pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} missing or not a number in {v:#}"));
    assert!(x.is_finite() && x > 0.0, "{pointer} = {x}");
    x
}

fn check_common(v: &Value) {
    for p in [
        "/gate/evaluate_p50_us",
        "/gate/evaluate_p99_us",
        "/gate/evaluate_mean_us",
        "/gate/time_to_breach_p50_us",
        "/gate/time_to_breach_p99_us",
        "/world/steps_per_s",
        "/world/real_time_factor",
        "/world/dt_ms",
        "/mavlink/frames_per_s",
        "/mavlink/megabytes_per_s",
        "/mavlink/px4_stream_core_pct",
        "/cpus",
    ] {
        positive(v, p);
    }
    assert!(positive(v, "/gate/evaluate_p99_us") >= positive(v, "/gate/evaluate_p50_us"));
    // The airspace is a real load: zones and traffic (the perf scenario is the suite's busiest).
    assert!(positive(v, "/gate/no_fly_zones") >= 1.0);
    assert!(positive(v, "/gate/traffic") >= 1.0);
    assert_eq!(v["gate"]["verdict"], "approved", "every check ran");
    assert_eq!(v["mavlink"]["rejected_per_pass"], 0);
    assert!(positive(v, "/mavlink/frames_per_pass") > 2_000.0);
    assert!(v["arch"].as_str().is_some_and(|a| !a.is_empty()));
    let checks = v["checks"].as_array().unwrap();
    assert!(checks.len() >= 3);
    for c in checks {
        assert!(c["ok"].is_boolean() && c["what"].is_string(), "{c}");
    }
}

#[test]
fn a_quick_run_prints_positive_finite_figures_as_json() {
    let out = alpha3()
        .args(["perf", "--quick", "--json", "--no-llm"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    check_common(&v);
    assert_eq!(v["quick"], true);
    assert!(v["llm"].is_null(), "no model: no LLM figures");
}

#[test]
fn the_table_names_every_figure() {
    let out = alpha3().args(["perf", "--quick"]).output().unwrap();
    let text = ok(&out);
    for k in [
        "gate evaluate p50 / p99",
        "world steps/s",
        "MAVLink decode, frames/s",
        "LLM",
    ] {
        assert!(text.contains(k), "{k} missing from\n{text}");
    }
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let out = alpha3()
        .args(["perf", "--quick", "--model", "/nonexistent/model.gguf"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/model.gguf"), "{err}");
}

#[test]
fn with_the_test_model_time_to_first_token_and_decode_rate_are_measured() {
    let Some(model) = test_model() else { return };
    let out = alpha3()
        .args(["perf", "--quick", "--json", "--model"])
        .arg(&model)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    // llama.cpp's own load-time lines are not the user's business at the default log level.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("llama-cpp-2") && !stderr.contains("control-looking token"),
        "llama.cpp's lines reached the terminal: {stderr}"
    );
    check_common(&v);
    for p in [
        "/llm/load_ms",
        "/llm/ttft_ms",
        "/llm/decode_tps",
        "/llm/constrained_decode_tps",
        "/llm/reference_decode_tps",
        "/llm/decision_ms",
    ] {
        positive(&v, p);
    }
    assert!(v["llm"]["model"].as_str().is_some_and(|m| !m.is_empty()));
    // One worker's resident memory: at least the part of the 253 MB model it reads, and a
    // check against the goal.
    let memory = &v["worker_memory"];
    let resident = memory["resident_mb"].as_f64().unwrap();
    assert!(resident > 50.0, "{memory}");
    let parts = memory["anon_mb"].as_f64().unwrap() + memory["file_mb"].as_f64().unwrap();
    assert!((parts - resident).abs() < 0.1 * resident, "{memory}");
    assert_eq!(memory["context_tokens"], 4096, "{memory}");
    assert_eq!(memory["kv_cache_type"], "q8_0", "{memory}");
    let further = memory["further_worker_mb"].as_f64().unwrap();
    assert!(
        further > 0.0 && further < resident,
        "a further worker shares the model: {memory}"
    );
    for which in ["(alone)", "(each of two"] {
        assert!(
            v["checks"].as_array().unwrap().iter().any(|c| {
                let what = c["what"].as_str().unwrap();
                what.contains("model worker resident") && what.contains(which)
            }),
            "{which}: {}",
            v["checks"]
        );
    }
}

/// `--under-load`: the 50 Hz safety tick idle, with the model decoding at normal priority, and
/// with it lowered; each way ticked, timed, and (busy) the model really decoding.
#[test]
fn under_load_times_the_safety_tick_idle_and_beside_the_decoding_model() {
    let Some(model) = test_model() else { return };
    let out = alpha3()
        .args(["perf", "--quick", "--json", "--no-llm"])
        .args(["--under-load", "0.5"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "--under-load without a model is refused"
    );
    let out = alpha3()
        .args(["perf", "--quick", "--json", "--model"])
        .arg(&model)
        .args(["--under-load", "0.5"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    for way in ["idle", "busy_normal", "busy_low"] {
        let ticks = positive(&v, &format!("/under_load/{way}/ticks"));
        assert!(ticks >= 20.0, "{way}: {ticks} ticks in 0.5 s at 50 Hz");
        positive(&v, &format!("/under_load/{way}/gate_p50_us"));
        let p50 = v.pointer(&format!("/under_load/{way}/late_p50_us"));
        assert!(p50.and_then(Value::as_f64).is_some(), "{way}: {v:#}");
    }
    positive(&v, "/under_load/busy_normal/decode_tps");
    positive(&v, "/under_load/busy_low/decode_tps");
    assert!(v["under_load"]["idle"]["decode_tps"].is_null());
}
