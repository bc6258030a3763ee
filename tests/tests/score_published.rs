//! The scorer on the published full runs (gpt-4.1-mini: 50 episodes; gemini-3-pro-preview: 26
//! episodes and 24 failure stubs) against their published leaderboard rows.
//!
//! `alpha3-v2` (the default): CC and IQ reproduce the published means (asserted within 1e-9),
//! NR lies within the 0.02 on both runs (docs/METRIC-V2.md).
//!
//! `alpha3-v1`:
//! What ALPHA3.md marks exact must match to the last printed digit: n, success rate,
//! gen_fail_rate, reliability, coverage, total attempts, call efficiency, mean generation time
//! and mean tokens; TO and TC equal the published pillar means; SP lies within 0.02. IQ, NR and
//! CC follow this project's reading of the paper's text (its per-episode formulas are not
//! public): they are printed next to the published values with their difference, not asserted,
//! and no constant is fitted to the published row.
//!
//! Residuals on gpt-4.1-mini (alpha3-v1), each from the definitions:
//! - SP 0.99 = published: two episodes lose one class each — sc-0018 lands 380 m from home,
//!   at no listed site, below the 20 m floor (altitude); sc-0026 starts at (410, 150), outside
//!   its 400 × 300 m fence (no-fly/geofence).
//! - IQ 0.922 vs 0.995: L = 0.95 (23 of 50 dialogues are 9/11 or 8/12 turns against T* = 10,
//!   each turn off costing 0.1), A = 1, G = 0.817 (41 of 256 agent turns command a value that
//!   appeared nowhere before — a new altitude, a new waypoint —, 5 have no action, 1 only empty
//!   arguments). The published IQ barely penalises either.
//! - NR 0.898 vs 0.895: x = 0.28 of turns hard, a = 0.79 of hard agent turns safe, s = 0.86 of
//!   actions on a fitting slice (37 sensing and 23 control actions on mMTC, 23 control on eMBB);
//!   the small gap comes from classifying the free-form names and counting operator actions.
//! - CC 0.535 vs 0.760: the token term (0.2377) alone would give 0.762; we also charge every
//!   MCP/A2A action of the dialogue (11.3 per episode, 6.4 by the agent: 0.2268), which the
//!   published CC evidently charges almost nothing for.
//! - TC: the free-form rule gives the published 1.0; applying our catalogue's schemas to the
//!   published actions that share a catalogue name would give 0.64 (printed below).

#![allow(clippy::unwrap_used)]

use alpha3_core::episode::Episode;
use alpha3_core::score::{
    EpisodeEval, MetricVersion, RunSummary, ScoreOptions, Scorer, Source, aggregate,
};
use alpha3_test_support::shared_data;
use alpha3_tests::json_files;
use std::collections::HashMap;
use std::path::Path;

const MODEL: &str = "openai/gpt-4.1-mini";
const GEMINI: &str = "google/gemini-3-pro-preview";

fn v1() -> ScoreOptions {
    ScoreOptions {
        metric: MetricVersion::V1,
        ..ScoreOptions::default()
    }
}

/// Every file of a run, an unreadable one (the failure stubs that write `edge_load` as a
/// string) counted as a generation failure, as `alpha3 score` does.
fn evaluate_run(dir: &Path, options: ScoreOptions) -> Vec<EpisodeEval> {
    let scorer = Scorer::new(options).unwrap();
    json_files(dir)
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            let mut eval = match serde_json::from_str::<Episode>(&text) {
                Ok(episode) => scorer.evaluate(&episode),
                Err(e) => EpisodeEval::unreadable(&stem, Source::Published, e.to_string()),
            };
            eval.id = stem;
            eval
        })
        .collect()
}

/// CC, IQ and NR of `run` against `model`'s published row: CC and IQ exact, NR within 0.02.
fn assert_v2_pillars(run: &RunSummary, data: &Path, model: &str) {
    let row = published_row(&data.join("alphabench/reports/leaderboard_uav.csv"), model);
    for (column, ours, tolerance) in [
        ("pillar.CC", run.pillars.cc, 1e-9),
        ("pillar.IQ", run.pillars.iq, 1e-9),
        ("pillar.NR", run.pillars.nr, 0.02),
    ] {
        let published: f64 = row[column].parse().unwrap();
        eprintln!(
            "{model} alpha3-v2 {column}: ours {ours:.6} published {published:.6} diff {:+.6}",
            ours - published
        );
        assert!(
            (ours - published).abs() <= tolerance,
            "{model} {column}: ours {ours} vs published {published} (tolerance {tolerance})"
        );
    }
}

#[test]
fn v2_reproduces_cc_and_iq_and_nr_of_both_published_runs() {
    let Some(data) = shared_data() else { return };
    for (model, valid) in [(MODEL, 50), (GEMINI, 26)] {
        let dir = data.join("alphabench/eval_runs").join(model).join("uav");
        let evals = evaluate_run(&dir, ScoreOptions::default());
        assert_eq!(evals.len(), 50, "{model}: 50 requested episodes");
        let run = aggregate(&evals).0;
        assert_eq!(run.n, valid, "{model}");
        assert_v2_pillars(&run, &data, model);
    }
}

/// `alpha3-v3`: NR with a published agent's declared adaptation and the slice term over the
/// agent's own actions (docs/METRIC-V3.md) lies within 0.005 of the published NR on both runs —
/// v1's is 0.013 off on gemini-3-pro-preview — and CC, IQ, TO, SP and TC are v2's.
#[test]
fn v3_nr_is_within_half_a_hundredth_on_both_published_runs() {
    let Some(data) = shared_data() else { return };
    let v3 = ScoreOptions {
        metric: MetricVersion::V3,
        ..ScoreOptions::default()
    };
    for model in [MODEL, GEMINI] {
        let dir = data.join("alphabench/eval_runs").join(model).join("uav");
        let v3_run = aggregate(&evaluate_run(&dir, v3)).0;
        let v2_run = aggregate(&evaluate_run(&dir, ScoreOptions::default())).0;
        let row = published_row(&data.join("alphabench/reports/leaderboard_uav.csv"), model);
        let published: f64 = row["pillar.NR"].parse().unwrap();
        let (ours, v1_nr) = (v3_run.pillars.nr, v2_run.pillars.nr);
        eprintln!(
            "{model} NR: alpha3-v3 {ours:.6} ({:+.6}), v1/v2 {v1_nr:.6} ({:+.6}), published {published:.6}",
            ours - published,
            v1_nr - published
        );
        assert!(
            (ours - published).abs() <= 0.005,
            "{model}: v3 NR {ours} vs published {published}"
        );
        let mut p2 = v2_run.pillars;
        p2.nr = ours;
        assert_eq!(p2, v3_run.pillars, "{model}: only NR differs from v2");
    }
}

#[test]
fn v1_keeps_its_own_residuals_on_both_runs() {
    let Some(data) = shared_data() else { return };
    for model in [MODEL, GEMINI] {
        let dir = data.join("alphabench/eval_runs").join(model).join("uav");
        let v1_run = aggregate(&evaluate_run(&dir, v1())).0;
        let v2_run = aggregate(&evaluate_run(&dir, ScoreOptions::default())).0;
        let row = published_row(&data.join("alphabench/reports/leaderboard_uav.csv"), model);
        let published = |c: &str| row[c].parse::<f64>().unwrap();
        // v1's CC charges every action against 25 and tokens against 10,000: a quarter below
        // the published CC; v2 closes that gap and the IQ gap, and leaves NR as it was.
        assert!(published("pillar.CC") - v1_run.pillars.cc > 0.2, "{model}");
        assert!(published("pillar.IQ") - v1_run.pillars.iq > 0.05, "{model}");
        assert_eq!(
            v1_run.pillars.nr, v2_run.pillars.nr,
            "{model}: NR is the same in both"
        );
        for (a, b) in [
            (v1_run.pillars.to, v2_run.pillars.to),
            (v1_run.pillars.sp, v2_run.pillars.sp),
            (v1_run.pillars.tc, v2_run.pillars.tc),
        ] {
            assert_eq!(a, b, "{model}: TO, SP and TC do not depend on the version");
        }
    }
}

fn score_run(dir: &Path, options: ScoreOptions) -> RunSummary {
    let evals = evaluate_dir(dir, options);
    aggregate(&evals).0
}

fn evaluate_dir(dir: &Path, options: ScoreOptions) -> Vec<EpisodeEval> {
    let scorer = Scorer::new(options).unwrap();
    let evals: Vec<EpisodeEval> = json_files(dir)
        .iter()
        .filter(|f| {
            !f.components()
                .any(|c| c.as_os_str() == ".ipynb_checkpoints")
        })
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let episode: Episode = serde_json::from_str(&text).unwrap();
            let mut eval = scorer.evaluate(&episode);
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            eval.scenario = stem.split("-ep-").next().map(String::from);
            eval.id = stem;
            eval
        })
        .collect();
    assert_eq!(evals.len(), 50, "the 50 published episodes");
    evals
}

/// The published `domain=uav` row of `model`, column → printed text; pillars split out as
/// `pillar.TO` … from the Python-dict literal.
fn published_row(csv_path: &Path, model: &str) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_path(csv_path).unwrap();
    let headers = reader.headers().unwrap().clone();
    for record in reader.records() {
        let record = record.unwrap();
        let row: HashMap<String, String> = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .collect();
        if row["model"] == model && row["domain"] == "uav" {
            let mut row = row;
            let pillars = row["pillars"]
                .trim_matches(|c| c == '{' || c == '}')
                .to_string();
            for pair in pillars.split(',') {
                let (k, v) = pair.split_once(':').unwrap();
                row.insert(
                    format!("pillar.{}", k.trim().trim_matches('\'')),
                    v.trim().to_string(),
                );
            }
            return row;
        }
    }
    panic!("{model} not in {}", csv_path.display());
}

/// Whether `ours` prints as `published` at the published number of decimals.
fn same_printed(ours: f64, published: &str) -> bool {
    let decimals = published.split_once('.').map_or(0, |(_, d)| d.len());
    format!("{ours:.decimals$}") == published
}

#[test]
fn gpt_4_1_mini_matches_the_published_row() {
    let Some(data) = shared_data() else { return };
    let run = score_run(
        &data.join("alphabench/eval_runs/openai/gpt-4.1-mini/uav"),
        v1(),
    );
    let row = published_row(&data.join("alphabench/reports/leaderboard_uav.csv"), MODEL);
    let exact = [
        ("n", run.n as f64),
        ("success_rate", run.success_rate),
        ("gen_fail_rate", run.gen_fail_rate),
        ("reliability", run.reliability),
        ("coverage", run.coverage),
        ("total_attempt_calls", run.total_attempts as f64),
        ("mean_attempts_used", run.mean_attempts),
        ("call_efficiency", run.call_efficiency),
        ("mean_gen_time_s", run.mean_gen_time_s.unwrap()),
        ("mean_total_tokens", run.mean_total_tokens.unwrap()),
        ("pillar.TO", run.pillars.to),
        ("pillar.TC", run.pillars.tc),
    ];
    for (column, ours) in exact {
        let published = &row[column];
        assert!(
            same_printed(ours, published),
            "{column}: ours {ours} vs published {published}"
        );
    }
    assert_eq!(run.total_attempts, 64);
    assert_eq!(run.call_efficiency, 0.78125);
    let sp: f64 = row["pillar.SP"].parse().unwrap();
    assert!(
        (run.pillars.sp - sp).abs() <= 0.02,
        "SP {} vs {sp}",
        run.pillars.sp
    );

    eprintln!("{MODEL}: ours vs published (difference = ours − published)");
    let shown = [
        ("mean", run.mean),
        ("ci95", run.ci95),
        ("alpha3_rel", run.alpha3_macro),
        ("alpha3_per_second", run.alpha3_per_s.unwrap()),
        ("alpha3_per_1k_tokens", run.alpha3_per_1k_tokens.unwrap()),
        ("pillar.SP", run.pillars.sp),
        ("pillar.IQ", run.pillars.iq),
        ("pillar.NR", run.pillars.nr),
        ("pillar.CC", run.pillars.cc),
    ];
    for (column, ours) in shown {
        let published: f64 = row[column].parse().unwrap();
        eprintln!(
            "  {column:<22} ours {ours:<20.6} published {published:<20.6} diff {:+.6}",
            ours - published
        );
    }
    let strict = score_run(
        &data.join("alphabench/eval_runs/openai/gpt-4.1-mini/uav"),
        ScoreOptions {
            published_catalogue_schemas: true,
            ..v1()
        },
    );
    eprintln!(
        "  TC with the catalogue's schemas applied to catalogue names: {:.4} (free-form rule: {:.4})",
        strict.pillars.tc, run.pillars.tc
    );
    // The terms behind the IQ and CC residuals.
    let evals = evaluate_dir(
        &data.join("alphabench/eval_runs/openai/gpt-4.1-mini/uav"),
        v1(),
    );
    let n = evals.len() as f64;
    let mean = |f: &dyn Fn(&EpisodeEval) -> f64| evals.iter().map(f).sum::<f64>() / n;
    let l = mean(&|e| 1.0 - ((e.turns as f64 - run.t_star).abs() / run.t_star).min(1.0));
    let a = mean(&|e| e.alternation);
    let g = mean(&|e| e.grounding);
    let tokens = mean(&|e| 0.5 * (e.tokens.unwrap_or(0) as f64 / 10_000.0).min(1.0));
    let actions = mean(&|e| 0.5 * (e.tool_actions as f64 / 25.0).min(1.0));
    eprintln!(
        "  IQ terms: T* = {}, mean L = {l:.4}, A = {a:.4}, G = {g:.4}",
        run.t_star
    );
    eprintln!("  CC terms: 0.5·tokens/10k = {tokens:.4}, 0.5·actions/25 = {actions:.4}");
}

#[test]
fn the_failure_stub_counts_once_and_is_never_dropped() {
    let Some(data) = shared_data() else { return };
    let stub = data.join(
        "alphabench/eval_runs/deepseek/deepseek-v3.2/uav/.ipynb_checkpoints/sc-0001-ep-00-checkpoint.json",
    );
    let sample = data.join("alphabench/eval_runs/deepseek/deepseek-v3.2/uav/sc-0000-ep-00.json");
    let scorer = Scorer::new(ScoreOptions::default()).unwrap();
    let evals: Vec<EpisodeEval> = [&sample, &stub]
        .iter()
        .map(|f| {
            let e: Episode = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            scorer.evaluate(&e)
        })
        .collect();
    let (run, episodes) = aggregate(&evals);
    assert_eq!((run.requested, run.n), (2, 1));
    assert_eq!(run.gen_fail_rate, 0.5);
    assert_eq!(episodes.len(), 2);
    assert_eq!(
        evals[1].attempts, 1,
        "a stub records no attempts and counts as 1"
    );
    assert_eq!(run.total_attempts, u64::from(evals[0].attempts) + 1);
}
