//! The leaderboard in three forms: `leaderboard.csv` in the published column layout (so it
//! diffs against `leaderboard_uav.csv`), `leaderboard.json` with everything (metric version,
//! safety counts, pass^k, per-episode scores, problems) and `leaderboard.md` for people.

use super::load::{RunInput, RunKey};
use alpha3_core::score::{MetricVersion, NAMES, RunSummary, ScoredEpisode, Validity, aggregate};
use anyhow::Context;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The published CSV's columns, in order.
pub const CSV_COLUMNS: [&str; 18] = [
    "model",
    "domain",
    "mean",
    "ci95",
    "n",
    "success_rate",
    "gen_fail_rate",
    "reliability",
    "coverage",
    "alpha3_rel",
    "pillars",
    "mean_gen_time_s",
    "mean_total_tokens",
    "alpha3_per_second",
    "alpha3_per_1k_tokens",
    "total_attempt_calls",
    "mean_attempts_used",
    "call_efficiency",
];

/// One aggregated run.
#[derive(Debug, Serialize)]
pub struct RunReport {
    pub model: String,
    pub domain: String,
    #[serde(flatten)]
    pub summary: RunSummary,
    /// Episodes outside V, with why: failure stubs, unreadable or unsound files.
    pub problems: Vec<Problem>,
    pub episodes: Vec<ScoredEpisode>,
}

#[derive(Debug, Serialize)]
pub struct Problem {
    pub file: String,
    pub reason: String,
}

/// Every run, ranked by α3 macro.
#[derive(Debug, Serialize)]
pub struct Leaderboard {
    pub metric_version: &'static str,
    pub alpha3_version: &'static str,
    pub runs: Vec<RunReport>,
}

impl Leaderboard {
    /// The leaderboard of `runs`, scored under `metric`.
    pub fn build(runs: BTreeMap<RunKey, RunInput>, metric: MetricVersion) -> Self {
        let mut reports: Vec<RunReport> = runs
            .into_iter()
            .map(|(key, input)| {
                let (summary, episodes) = aggregate(&input.evals);
                let problems = episodes
                    .iter()
                    .filter_map(|e| match &e.validity {
                        Validity::Valid => None,
                        Validity::GenerationFailed(r) | Validity::Unsound(r) => Some(Problem {
                            file: e.id.clone(),
                            reason: r.clone(),
                        }),
                    })
                    .collect();
                RunReport {
                    model: key.model,
                    domain: key.domain,
                    summary,
                    problems,
                    episodes,
                }
            })
            .collect();
        reports.sort_by(|a, b| {
            b.summary
                .alpha3_macro
                .total_cmp(&a.summary.alpha3_macro)
                .then_with(|| (&a.model, &a.domain).cmp(&(&b.model, &b.domain)))
        });
        Self {
            metric_version: metric.as_str(),
            alpha3_version: env!("CARGO_PKG_VERSION"),
            runs: reports,
        }
    }

    /// α3 macro per model across its domains (the published `domain=macro` rows), in rank order.
    pub fn macro_rows(&self) -> Vec<(String, f64)> {
        let mut order: Vec<String> = Vec::new();
        let mut by_model: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for r in &self.runs {
            if !by_model.contains_key(r.model.as_str()) {
                order.push(r.model.clone());
            }
            by_model
                .entry(&r.model)
                .or_default()
                .push(r.summary.alpha3_macro);
        }
        order
            .into_iter()
            .map(|m| {
                let v = &by_model[m.as_str()];
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                (m, mean)
            })
            .collect()
    }

    pub fn to_csv(&self) -> anyhow::Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(CSV_COLUMNS)?;
        for r in &self.runs {
            w.write_record(csv_row(r)?)?;
        }
        for (model, alpha) in self.macro_rows() {
            let mut row = vec![String::new(); CSV_COLUMNS.len()];
            row[0] = model;
            row[1] = "macro".into();
            row[2] = py_float(alpha);
            w.write_record(&row)?;
        }
        let bytes = w.into_inner().context("finishing the CSV")?;
        Ok(String::from_utf8(bytes)?)
    }

    pub fn to_json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# α3 leaderboard\n");
        let _ = writeln!(
            s,
            "Metric `{}`; ranked by α3 macro = mean × reliability × coverage × call efficiency.\n",
            self.metric_version
        );
        let _ = writeln!(
            s,
            "| # | model | domain | α3 macro | mean ± ci95 | n/N | TO | SP | TC | IQ | NR | CC | call eff. | pass^k, k = 1… | claims agree | gen s | tokens |"
        );
        let _ = writeln!(
            s,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for (i, r) in self.runs.iter().enumerate() {
            let m = &r.summary;
            let p = m.pillars.values();
            let pillars: Vec<String> = p.iter().map(|v| format!("{v:.3}")).collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.4} | {:.4} ± {:.4} | {}/{} | {} | {:.3} | {} | {} | {} | {} |",
                i + 1,
                r.display_name(),
                r.domain,
                m.alpha3_macro,
                m.mean,
                m.ci95,
                m.n,
                m.requested,
                pillars.join(" | "),
                m.call_efficiency,
                pass_k_cell(m),
                m.claims.summary(),
                m.mean_gen_time_s.map_or("–".into(), |v| format!("{v:.1}")),
                m.mean_total_tokens
                    .map_or("–".into(), |v| format!("{v:.0}")),
            );
        }
        let _ = writeln!(
            s,
            "\npass^k: all k seeded repeats of a scenario succeed (k = 1 … {PASS_K_SHOWN} where as many seeds \
             were flown), with its 95 % Wilson interval over the scenarios. Claims: the agent's \
             final word on the outcome against the truth, agreeing/claimed (over: said completed, \
             was not; under: the reverse); a policy that states no outcome is silent, not wrong."
        );
        if self.runs.iter().any(|r| r.summary.baseline) {
            let _ = writeln!(
                s,
                "Baselines (hover: take off, hold, land; random: well-formed random turns) fly the \
                 same scenarios and seeds: the floor the other rows are read against."
            );
        }
        let problems: Vec<(&RunReport, &Problem)> = self
            .runs
            .iter()
            .flat_map(|r| r.problems.iter().map(move |p| (r, p)))
            .collect();
        if !problems.is_empty() {
            let _ = writeln!(
                s,
                "\nEpisodes outside V (counted as generation failures of their run):\n"
            );
            for (r, p) in problems {
                let _ = writeln!(
                    s,
                    "- {} ({}): `{}`: {}",
                    r.model, r.domain, p.file, p.reason
                );
            }
        }
        s
    }

    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, text) in [
            ("leaderboard.csv", self.to_csv()?),
            ("leaderboard.json", self.to_json()?),
            ("leaderboard.md", self.to_markdown()),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

/// pass^k shown for k = 1 … this many.
pub const PASS_K_SHOWN: u32 = 4;

impl RunReport {
    /// The model, marked when the row is a baseline.
    pub fn display_name(&self) -> String {
        if self.summary.baseline {
            format!("{} (baseline)", self.model)
        } else {
            self.model.clone()
        }
    }
}

/// `0.80 [0.38, 0.96] · 0.60 [0.23, 0.88]`: pass^k with its interval, k = 1 … [`PASS_K_SHOWN`].
pub fn pass_k_cell(m: &RunSummary) -> String {
    let cells: Vec<String> = m
        .pass_k
        .iter()
        .filter(|(k, _)| **k <= PASS_K_SHOWN)
        .map(|(k, p)| match m.pass_k_ci95.get(k) {
            Some([lo, hi]) => format!("{p:.2} [{lo:.2}, {hi:.2}]"),
            None => format!("{p:.2}"),
        })
        .collect();
    if cells.is_empty() {
        "–".into()
    } else {
        cells.join(" · ")
    }
}

fn csv_row(r: &RunReport) -> anyhow::Result<Vec<String>> {
    let m = &r.summary;
    let opt = |v: Option<f64>| v.map(py_float).unwrap_or_default();
    // As the published file writes it: a Python dict literal (`str(dict)`), not JSON.
    let pillars = format!(
        "{{{}}}",
        NAMES
            .iter()
            .zip(m.pillars.values())
            .map(|(k, v)| format!("'{k}': {}", py_float(v)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(vec![
        r.model.clone(),
        r.domain.clone(),
        py_float(m.mean),
        py_float(m.ci95),
        py_float(m.n as f64),
        py_float(m.success_rate),
        py_float(m.gen_fail_rate),
        py_float(m.reliability),
        py_float(m.coverage),
        py_float(m.alpha3_macro),
        pillars,
        opt(m.mean_gen_time_s),
        opt(m.mean_total_tokens),
        opt(m.alpha3_per_s),
        opt(m.alpha3_per_1k_tokens),
        py_float(m.total_attempts as f64),
        py_float(m.mean_attempts),
        py_float(m.call_efficiency),
    ])
}

/// A float as Python's `repr` writes it (the published CSV's style): shortest round-trip
/// digits, `50.0` for integral values, exponent form below 1e-4 and from 1e16.
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python() {
        assert_eq!(py_float(50.0), "50.0");
        assert_eq!(py_float(0.0), "0.0");
        assert_eq!(py_float(0.78125), "0.78125");
        assert_eq!(py_float(78.3004271364212), "78.3004271364212");
        assert_eq!(py_float(0.001065792637268155), "0.001065792637268155");
        assert_eq!(py_float(1.5e-5), "1.5e-05");
        assert_eq!(py_float(1e-5), "1e-05");
        assert_eq!(py_float(2e16), "2e+16");
        assert_eq!(py_float(f64::NAN), "nan");
    }
}
