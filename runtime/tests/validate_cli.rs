//! `alpha3 validate` on real files: the published episodes and our configs pass; corrupted
//! copies fail with the file, the JSON path and the rule.

#![allow(clippy::unwrap_used)]

use alpha3_test_support::{root, shared_data};
use std::path::{Path, PathBuf};
use std::process::Command;

fn alpha3() -> Command {
    Command::new(env!("CARGO_BIN_EXE_alpha3"))
}

fn run(args: &[&Path]) -> (i32, String) {
    let out = alpha3().arg("validate").args(args).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn published_episodes_and_the_uavbench_scenario_are_valid() {
    let Some(data) = shared_data() else { return };
    let (code, text) = run(&[&data.join("alphabench/eval_runs"), &data.join("uavbench")]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("106 file(s) checked, 106 valid, 0 invalid"),
        "{text}"
    );
}

#[test]
fn every_file_in_configs_is_valid() {
    let (code, text) = run(&[&root().join("configs")]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(" 0 invalid"), "{text}");
}

/// Writes a corrupted copy of a published episode and returns alpha3's verdict on it.
fn corrupt(
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value) -> Option<String>,
) -> Option<(i32, String, PathBuf)> {
    let data = shared_data()?;
    let src = data.join("alphabench/eval_runs/openai/gpt-4.1-mini/uav/sc-0000-ep-00.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let text = edit(&mut v).unwrap_or_else(|| serde_json::to_string_pretty(&v).unwrap());
    let dir = tempfile::tempdir().unwrap().keep();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let (code, out) = run(&[&path]);
    Some((code, out, path))
}

#[test]
fn missing_dialogue_names_the_file_the_path_and_the_rule() {
    let Some((code, out, path)) = corrupt("no-dialogue.json", |v| {
        v.as_object_mut().unwrap().remove("dialogue");
        None
    }) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    let line = out.lines().next().unwrap();
    assert!(line.starts_with(&path.display().to_string()), "{line}");
    assert!(
        line.contains("/: \"dialogue\" is a required property [rule: required]"),
        "{line}"
    );
}

#[test]
fn a_system_speaker_is_refused_at_its_path() {
    let Some((code, out, _)) = corrupt("system.json", |v| {
        v["dialogue"][3]["speaker"] = "system".into();
        None
    }) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/dialogue/3/speaker: \"system\" is not one of")
            && out.contains("[rule: enum]"),
        "{out}"
    );
}

#[test]
fn a_string_where_a_number_belongs_is_refused_at_its_path() {
    let Some((code, out, _)) = corrupt("string.json", |v| {
        v["dialogue"][2]["net"]["lat_ms"] = "fast".into();
        None
    }) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/dialogue/2/net/lat_ms: \"fast\" is not of type \"number\" [rule: type]"),
        "{out}"
    );
}

#[test]
fn truncated_json_gives_line_and_column() {
    let Some((code, out, _)) = corrupt("truncated.json", |v| {
        let t = serde_json::to_string_pretty(v).unwrap();
        Some(t[..t.len() / 2].to_string())
    }) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("(line ") && out.contains("not valid JSON") && out.contains("[rule: syntax]"),
        "{out}"
    );
}

#[test]
fn broken_alternation_is_refused() {
    let Some((code, out, _)) = corrupt("alternation.json", |v| {
        v["dialogue"][3]["speaker"] = "agent".into();
        None
    }) else {
        return;
    };
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/dialogue/3/speaker") && out.contains("[rule: alternation]"),
        "{out}"
    );
}

#[test]
fn a_config_with_an_unknown_key_or_a_broken_rule_fails() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = dir.path().join("unknown.toml");
    std::fs::write(&unknown, "[limits]\nmin_altitude_m = 10.0\nmax_alt = 5\n").unwrap();
    let (code, out) = run(&[&unknown]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("/limits") && out.contains("max_alt"), "{out}");

    let base = std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap();
    let bad = dir.path().join("return.toml");
    std::fs::write(
        &bad,
        base.replace("return_altitude_m = 60.0", "return_altitude_m = 200.0"),
    )
    .unwrap();
    let (code, out) = run(&[&bad]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/limits/return_altitude_m: return altitude 200 m is outside the altitude band [10, 120] m [rule: return_altitude_in_band]"),
        "{out}"
    );

    let syntax = dir.path().join("syntax.toml");
    std::fs::write(&syntax, "[vehicle\nname = 1\n").unwrap();
    let (code, out) = run(&[&syntax]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("(line 1, column") && out.contains("[rule: syntax]"),
        "{out}"
    );
}

#[test]
fn an_invalid_json_schema_fails() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.schema.json");
    std::fs::write(
        &f,
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":5}"#,
    )
    .unwrap();
    let (code, out) = run(&[&f]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("/type"), "{out}");
}

#[test]
fn help_lists_every_subcommand_and_the_exit_codes() {
    let out = alpha3().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in [
        "bench",
        "score",
        "fly",
        "sitl",
        "sim-vehicle",
        "perf",
        "validate",
        "Exit codes:",
    ] {
        assert!(text.contains(sub), "{sub} missing from --help:\n{text}");
    }
    for sub in [
        "bench",
        "score",
        "fly",
        "sitl",
        "sim-vehicle",
        "perf",
        "validate",
    ] {
        let out = alpha3().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub} --help failed");
    }
}
