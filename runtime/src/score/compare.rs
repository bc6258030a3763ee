//! `--compare leaderboard.csv`: our figures next to a published leaderboard, per model and per
//! column, with the difference (ours − published). The published `pillars` column is a Python
//! dict literal (`{'TO': 1.0, 'SP': 1, …}`), not JSON, so it has its own small parser.

use super::report::{Leaderboard, RunReport};
use alpha3_core::score::NAMES;
use anyhow::{Context, bail};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One published row: model, domain and every numeric column (pillars as `pillar.TO` …).
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedRow {
    pub model: String,
    pub domain: String,
    pub values: BTreeMap<String, f64>,
}

/// One compared figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub model: String,
    pub domain: String,
    pub column: String,
    pub ours: Option<f64>,
    pub published: Option<f64>,
}

impl Comparison {
    pub fn difference(&self) -> Option<f64> {
        Some(self.ours? - self.published?)
    }
}

/// Reads a published leaderboard CSV.
pub fn read_published(path: &Path) -> anyhow::Result<Vec<PublishedRow>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("{}: row {}", path.display(), i + 2))?;
        let mut row = PublishedRow {
            model: String::new(),
            domain: String::new(),
            values: BTreeMap::new(),
        };
        for (h, v) in headers.iter().zip(record.iter()) {
            match h {
                "model" => row.model = v.to_string(),
                "domain" => row.domain = v.to_string(),
                "pillars" if !v.trim().is_empty() => {
                    let pillars = parse_py_dict(v)
                        .with_context(|| format!("{}: row {}: pillars", path.display(), i + 2))?;
                    for (k, x) in pillars {
                        row.values.insert(format!("pillar.{k}"), x);
                    }
                }
                _ => {
                    if let Ok(x) = v.trim().parse::<f64>() {
                        row.values.insert(h.to_string(), x);
                    }
                }
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Parses a flat Python dict literal of numbers: `{'TO': 1.0, "SP": 1, 'NR': nan}`.
pub fn parse_py_dict(text: &str) -> anyhow::Result<BTreeMap<String, f64>> {
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .with_context(|| format!("not a dict literal: {text:?}"))?;
    let mut out = BTreeMap::new();
    for pair in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((k, v)) = pair.split_once(':') else {
            bail!("no `key: value` in {pair:?}");
        };
        let k = k.trim();
        let key = k
            .strip_prefix('\'')
            .and_then(|x| x.strip_suffix('\''))
            .or_else(|| k.strip_prefix('"').and_then(|x| x.strip_suffix('"')))
            .with_context(|| format!("unquoted key {k:?}"))?;
        let value: f64 = v
            .trim()
            .parse()
            .with_context(|| format!("{key}: not a number: {:?}", v.trim()))?;
        out.insert(key.to_string(), value);
    }
    Ok(out)
}

/// Our value of a published column, by its name.
fn ours(r: &RunReport, column: &str) -> Option<f64> {
    let m = &r.summary;
    if let Some(p) = column.strip_prefix("pillar.") {
        let i = NAMES.iter().position(|n| *n == p)?;
        return Some(m.pillars.values()[i]);
    }
    if let Some(k) = column.strip_prefix("pass^") {
        return m.pass_k.get(&k.parse::<u32>().ok()?).copied();
    }
    Some(match column {
        "mean" => m.mean,
        "ci95" => m.ci95,
        "n" => m.n as f64,
        "success_rate" => m.success_rate,
        "gen_fail_rate" => m.gen_fail_rate,
        "reliability" => m.reliability,
        "coverage" => m.coverage,
        "alpha3_rel" => m.alpha3_macro,
        "mean_gen_time_s" => m.mean_gen_time_s?,
        "mean_total_tokens" => m.mean_total_tokens?,
        "alpha3_per_second" => m.alpha3_per_s?,
        "alpha3_per_1k_tokens" => m.alpha3_per_1k_tokens?,
        "total_attempt_calls" => m.total_attempts as f64,
        "mean_attempts_used" => m.mean_attempts,
        "call_efficiency" => m.call_efficiency,
        "claim_agreement" => m.claims.agreement()?,
        _ => return None,
    })
}

/// The columns compared, in the published order with pillars expanded.
fn columns() -> Vec<String> {
    let mut c: Vec<String> = [
        "mean",
        "ci95",
        "n",
        "success_rate",
        "gen_fail_rate",
        "reliability",
        "coverage",
        "alpha3_rel",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    c.extend(NAMES.iter().map(|n| format!("pillar.{n}")));
    c.extend(
        [
            "mean_gen_time_s",
            "mean_total_tokens",
            "alpha3_per_second",
            "alpha3_per_1k_tokens",
            "total_attempt_calls",
            "mean_attempts_used",
            "call_efficiency",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    // Ours only (the published leaderboard has neither): pass^k where as many seeds were
    // flown, and how often the agent's final word on the outcome agreed with the truth.
    c.extend((1..=super::report::PASS_K_SHOWN).map(|k| format!("pass^{k}")));
    c.push("claim_agreement".into());
    c
}

/// Every figure of every run of ours, next to the published row of the same model and domain
/// (published figures empty when the model is not in the published leaderboard).
pub fn compare(board: &Leaderboard, published: &[PublishedRow]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for r in &board.runs {
        let row = published
            .iter()
            .find(|p| p.model == r.model && p.domain == r.domain);
        for column in columns() {
            out.push(Comparison {
                model: r.model.clone(),
                domain: r.domain.clone(),
                published: row.and_then(|p| p.values.get(&column).copied()),
                ours: ours(r, &column),
                column,
            });
        }
    }
    out
}

/// The comparison as a plain-text table.
pub fn to_table(rows: &[Comparison]) -> String {
    let mut s = String::new();
    let mut last = None;
    let fmt = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.6}"));
    for c in rows {
        if last != Some((&c.model, &c.domain)) {
            let _ = writeln!(s, "\n{} ({})", c.model, c.domain);
            let _ = writeln!(
                s,
                "  {:<22} {:>16} {:>16} {:>16}",
                "column", "ours", "published", "difference"
            );
            last = Some((&c.model, &c.domain));
        }
        let diff = c
            .difference()
            .map_or("–".to_string(), |d| format!("{d:+.6}"));
        let _ = writeln!(
            s,
            "  {:<22} {:>16} {:>16} {:>16}",
            c.column,
            fmt(c.ours),
            fmt(c.published),
            diff
        );
    }
    s
}

/// The comparison as CSV: model, domain, column, ours, published, difference.
pub fn to_csv(rows: &[Comparison]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "model",
        "domain",
        "column",
        "ours",
        "published",
        "difference",
    ])?;
    let cell = |v: Option<f64>| v.map(super::report::py_float).unwrap_or_default();
    for c in rows {
        w.write_record([
            c.model.clone(),
            c.domain.clone(),
            c.column.clone(),
            cell(c.ours),
            cell(c.published),
            cell(c.difference()),
        ])?;
    }
    let bytes = w.into_inner().context("finishing the CSV")?;
    Ok(String::from_utf8(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_dict_literals_parse() {
        let d =
            parse_py_dict("{'TO': 1.0, 'SP': 1, 'IQ': 0.9952525252525253, \"NR\": nan}").unwrap();
        assert_eq!(d["TO"], 1.0);
        assert_eq!(d["SP"], 1.0);
        assert_eq!(d["IQ"], 0.9952525252525253);
        assert!(d["NR"].is_nan());
        assert!(parse_py_dict("{}").unwrap().is_empty());
        assert!(parse_py_dict("[1, 2]").is_err());
        assert!(parse_py_dict("{TO: 1}").is_err());
        assert!(parse_py_dict("{'TO': high}").is_err());
    }
}
