//! The local test model (Gemma 3 270M) flown by the real binary with the gate-aware grammar
//! and the state block on (`configs/policies/llama-local.toml`): every generation records the
//! size of its admissible set (at least two), no action is refused for a precondition the
//! grammar rules out (take-off while airborne, a move or landing on the ground), no turn flies
//! to the same waypoint twice, the
//! truth shows no violation, the KV cache is reused across turns, and `alpha3 validate` accepts
//! the record.
//!
//! Needs the model (`ALPHA3_MODEL` or `scripts/model-path.sh`): without it the test skips with
//! a reason, except in CI (`CI=true`), where that is a failure.

#![allow(clippy::unwrap_used)]

mod bench_support;

use alpha3_core::record::{Event, RecordLine};
use alpha3_test_support::{require_or_skip, test_model};
use bench_support::*;

/// Gate findings the narrowed grammar makes impossible.
const RULED_OUT: [&str; 2] = ["gate.state.takeoff_airborne", "gate.state.on_ground"];

/// A one-episode suite of `configs/policies/llama-local.toml` with a generous decision deadline
/// (a debug build on a busy machine is slow; the deadline is not what this test checks).
fn write_llm_suite(dir: &std::path::Path, model: &std::path::Path) -> std::path::PathBuf {
    let root = root().canonicalize().unwrap();
    let policy = read(&root.join("configs/policies/llama-local.toml"))
        .replace("deadline_ms = 20000", "deadline_ms = 300000")
        .replace(
            "model_path = \"models/gemma3-270m-q4_k_m.gguf\"",
            &format!("model_path = {:?}", model.display().to_string()),
        )
        .replace("model_path_env = \"ALPHA3_MODEL\"\n", "");
    std::fs::write(dir.join("llama.toml"), policy).unwrap();
    one_scenario_suite(dir, "small-test", &[dir.join("llama.toml")], (4, 6), 10000)
}

#[test]
fn a_steered_local_model_flies_inside_its_admissible_sets() {
    let Some(model) = test_model() else {
        require_or_skip(
            "test model",
            "set ALPHA3_MODEL or run scripts/setup.sh (Gemma 3 270M Q4_K_M)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let suite = write_llm_suite(dir.path(), &model);
    let out = dir.path().join("out");
    run_suite(&suite, &out, &[]);
    let names = record_names(&out);
    assert_eq!(names.len(), 1, "{names:?}");
    let path = out.join("records").join(&names[0]);
    let lines: Vec<RecordLine> = read(&path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let mut generations = 0;
    for l in &lines {
        match &l.event {
            Event::Generation {
                turn,
                admissible,
                prompt_tokens,
                cached_tokens,
                error,
                ..
            } => {
                generations += 1;
                let n = admissible.unwrap_or_else(|| panic!("turn {turn}: no admissible count"));
                assert!(n >= 2, "turn {turn}: admissible set of {n}");
                if *turn > 1 && error.is_none() {
                    assert!(
                        cached_tokens * 2 > *prompt_tokens,
                        "turn {turn}: only {cached_tokens} of {prompt_tokens} prompt tokens cached"
                    );
                }
            }
            Event::Verdict { turn, findings, .. } => {
                for f in findings {
                    assert!(
                        !RULED_OUT.contains(&f.id.as_str()),
                        "turn {turn}: refused for {} although the grammar rules it out",
                        f.id
                    );
                }
            }
            Event::AgentTurn { turn, agent_turn } => {
                assert!(
                    !repeats_a_waypoint(&agent_turn.actions),
                    "turn {turn}: the same waypoint twice, which the grammar's order rules out"
                );
            }
            Event::Violation { kind, detail } => panic!("truth violation {kind}: {detail}"),
            _ => {}
        }
    }
    assert!(generations >= 2, "only {generations} generation(s)");

    let v = alpha3().arg("validate").arg(&path).output().unwrap();
    assert!(
        v.status.success(),
        "alpha3 validate refused the record: {}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
}
