//! Scoring throughput next to plain `serde_json` parsing of the same bytes: the 50 published
//! gpt-4.1-mini episodes, read once at start. Goal: scoring (typed parse + all six pillars)
//! at ≥ 0.5× the rate of parsing the bytes into a `serde_json::Value`.
//!
//! Each benchmark runs twice: under `episodes` (throughput in episodes/s) and under `bytes`
//! (MB/s). Skips, with the reason printed, when the published reference data (`data/` in the
//! shared folder next to the project) is absent.

use alpha3_core::episode::Episode;
use alpha3_core::score::{EpisodeEval, ScoreOptions, Scorer, aggregate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn corpus() -> Option<Vec<Vec<u8>>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/alphabench/eval_runs/openai/gpt-4.1-mini/uav");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "skipping the score benchmark: no episodes at {}",
            dir.display()
        );
        return None;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let bytes: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    (!bytes.is_empty()).then_some(bytes)
}

fn parse_values(corpus: &[Vec<u8>]) -> usize {
    corpus
        .iter()
        .filter_map(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .count()
}

fn score_bytes(scorer: &Scorer, corpus: &[Vec<u8>]) -> f64 {
    let evals: Vec<EpisodeEval> = corpus
        .iter()
        .filter_map(|b| serde_json::from_slice::<Episode>(b).ok())
        .map(|e| scorer.evaluate(&e))
        .collect();
    aggregate(&evals).0.alpha3_macro
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else { return };
    let Ok(scorer) = Scorer::new(ScoreOptions::default()) else {
        eprintln!("skipping the score benchmark: the catalogue's schemas do not compile");
        return;
    };
    let total: usize = corpus.iter().map(Vec::len).sum();
    let parsed: Vec<Episode> = corpus
        .iter()
        .filter_map(|b| serde_json::from_slice(b).ok())
        .collect();
    eprintln!("score benchmark: {} episodes, {total} bytes", corpus.len());
    for (name, throughput) in [
        ("episodes", Throughput::Elements(corpus.len() as u64)),
        ("bytes", Throughput::Bytes(total as u64)),
    ] {
        let mut g = c.benchmark_group(name);
        g.throughput(throughput);
        g.sample_size(20);
        g.measurement_time(Duration::from_secs(4));
        g.bench_function("parse_value", |b| {
            b.iter(|| parse_values(black_box(&corpus)))
        });
        g.bench_function("parse_and_score", |b| {
            b.iter(|| score_bytes(&scorer, black_box(&corpus)))
        });
        g.bench_function("score_parsed", |b| {
            b.iter(|| {
                let evals: Vec<EpisodeEval> = black_box(&parsed)
                    .iter()
                    .map(|e| scorer.evaluate(e))
                    .collect();
                aggregate(&evals).0.alpha3_macro
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
