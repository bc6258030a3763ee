//! What `px4_conformance` compares: the transcripts of `tests/py/px4_conformance.py` reduced to
//! the fields that must agree between the real PX4 SITL and `alpha3 sim-vehicle`, and the
//! comparison against the known differences (`tests/py/px4_conformance_known.json`).
#![allow(dead_code, clippy::unwrap_used)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Measured distances agree when within this, metres (PX4's altitude is noisy by ±1–2 m).
const METRES_TOLERANCE: f64 = 3.0;

/// The known differences and the texts left out of the comparison.
#[derive(Debug, Clone)]
pub struct Known {
    pub ignore_prefixes: Vec<String>,
    pub entries: Vec<KnownDifference>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KnownDifference {
    pub step: String,
    pub field: String,
    pub px4: Value,
    pub sim: Value,
    /// Timing-dependent: allowed, not required.
    pub optional: bool,
}

impl Known {
    pub fn parse(v: &Value) -> Self {
        let ignore_prefixes = v["ignore_texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["prefix"].as_str().unwrap().to_string())
            .collect();
        let entries = v["differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                assert!(d["why"].as_str().is_some_and(|w| !w.is_empty()), "{d}");
                KnownDifference {
                    step: d["step"].as_str().unwrap().to_string(),
                    field: d["field"].as_str().unwrap().to_string(),
                    px4: d["px4"].clone(),
                    sim: d["sim"].clone(),
                    optional: d["optional"].as_bool().unwrap_or(false),
                }
            })
            .collect();
        Self {
            ignore_prefixes,
            entries,
        }
    }
}

/// How a compared field came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Same,
    Known,
    Unexplained,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub step: String,
    pub field: String,
    pub px4: Value,
    pub sim: Value,
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub rows: Vec<Row>,
    /// Required known differences that did not occur (the list is out of date).
    pub stale: Vec<KnownDifference>,
}

impl Comparison {
    pub fn unexplained(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Unexplained)
            .collect()
    }

    /// One line per compared field.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for r in &self.rows {
            let mark = match r.verdict {
                Verdict::Same => "same",
                Verdict::Known => "KNOWN",
                Verdict::Unexplained => "DIFFERENT",
            };
            let _ = writeln!(
                out,
                "{:<26} {:<30} {:<9} px4 {}  sim {}",
                r.step, r.field, mark, r.px4, r.sim
            );
        }
        out
    }
}

/// A step's compared fields: field name → value.
fn fields(step: &Value, known: &Known) -> BTreeMap<String, Value> {
    let mut f = BTreeMap::new();
    // Repeats collapse: how often a command was retried (arming at boot) is timing, the
    // results are not. (Both vehicles ACK DO_SET_MODE twice, receipt then result; a refusal
    // keeps both: ACCEPTED, then TEMPORARILY_REJECTED.)
    let mut acks: Vec<Value> = Vec::new();
    for a in step["acks"].as_array().unwrap() {
        let pair = json!([a["command"], a["result"]]);
        if acks.last() != Some(&pair) {
            acks.push(pair);
        }
    }
    f.insert("acks".into(), Value::Array(acks));
    for k in ["modes", "armed", "landed"] {
        f.insert(k.into(), step[k].clone());
    }
    let mut severities: Vec<u64> = step["statustext"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            let text = t["text"].as_str().unwrap_or("");
            !known.ignore_prefixes.iter().any(|p| text.starts_with(p))
        })
        .map(|t| t["severity"].as_u64().unwrap())
        .collect();
    severities.sort_unstable();
    severities.dedup();
    f.insert("severities".into(), json!(severities));
    if let Some(m) = step["measured"].as_object() {
        for (k, v) in m {
            let compared =
                k.ends_with("_m") || k.chars().all(|c| c.is_ascii_uppercase() || c == '_');
            if compared {
                f.insert(format!("measured.{k}"), v.clone());
            }
        }
    }
    f
}

fn same(field: &str, a: &Value, b: &Value) -> bool {
    if field.starts_with("measured.")
        && field.ends_with("_m")
        && let (Some(x), Some(y)) = (a.as_f64(), b.as_f64())
    {
        return (x - y).abs() <= METRES_TOLERANCE;
    }
    a == b
}

/// Compares two transcripts step by step. `require_known`: every required known difference
/// must occur (true against the recorded PX4 transcript; a live, sped-up PX4 may differ).
pub fn compare(px4: &Value, sim: &Value, known: &Known, require_known: bool) -> Comparison {
    let mut rows = Vec::new();
    let mut used = vec![false; known.entries.len()];
    let steps = |t: &Value| -> Vec<Value> { t["steps"].as_array().cloned().unwrap_or_default() };
    let (p_steps, s_steps) = (steps(px4), steps(sim));
    let names = |s: &[Value]| -> Vec<Value> { s.iter().map(|x| x["step"].clone()).collect() };
    let mut push = |step: &str, field: &str, p: Value, s: Value, rows: &mut Vec<Row>| {
        let verdict = if same(field, &p, &s) {
            Verdict::Same
        } else if let Some(i) = known
            .entries
            .iter()
            .position(|k| k.step == step && k.field == field && k.px4 == p && k.sim == s)
        {
            used[i] = true;
            Verdict::Known
        } else {
            Verdict::Unexplained
        };
        rows.push(Row {
            step: step.into(),
            field: field.into(),
            px4: p,
            sim: s,
            verdict,
        });
    };
    push("-", "ok", px4["ok"].clone(), sim["ok"].clone(), &mut rows);
    push(
        "-",
        "steps",
        json!(names(&p_steps)),
        json!(names(&s_steps)),
        &mut rows,
    );
    for (p, s) in p_steps.iter().zip(&s_steps) {
        if p["step"] != s["step"] {
            break;
        }
        let step = p["step"].as_str().unwrap();
        let (pf, sf) = (fields(p, known), fields(s, known));
        let mut keys: Vec<&String> = pf.keys().chain(sf.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let get = |m: &BTreeMap<String, Value>| m.get(k).cloned().unwrap_or(Value::Null);
            push(step, k, get(&pf), get(&sf), &mut rows);
        }
    }
    let stale = known
        .entries
        .iter()
        .zip(&used)
        .filter(|(k, u)| require_known && !k.optional && !**u)
        .map(|(k, _)| k.clone())
        .collect();
    Comparison { rows, stale }
}
