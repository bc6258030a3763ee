//! The episode's α3 pillars and what drove each, from the scorer's evaluation of the record
//! ([`alpha3_core::score::Scorer::evaluate_record`]). The values are those of the record's own
//! score line when it has one (it used the run's T*); otherwise the evaluation's, with T* = 10.

use super::timeline::PillarView;
use alpha3_core::record::{Event, ParsedRecord};
use alpha3_core::score::{
    ClaimCheck, EpisodeEval, MetricVersion, NAMES, Pillars, ScoreOptions, Scorer,
};

/// T* when the record has no score line (the scorer's own default without successes).
const DEFAULT_T_STAR: f64 = 10.0;

/// The six pillars with their drivers, and α3(e).
pub fn explain(record: &ParsedRecord) -> Result<(Vec<PillarView>, f64), String> {
    let metric = record
        .lines
        .iter()
        .find_map(|l| match &l.event {
            Event::Header { metric_version, .. } => metric_version.parse::<MetricVersion>().ok(),
            _ => None,
        })
        .unwrap_or_default();
    let scorer = Scorer::new(ScoreOptions {
        metric,
        ..ScoreOptions::default()
    })
    .map_err(|e| format!("building the scorer: {e}"))?;
    let eval = scorer.evaluate_record(record);
    let recorded = record.lines.iter().rev().find_map(|l| match &l.event {
        Event::Score { pillars, .. } => serde_json::from_value::<Pillars>(pillars.clone()).ok(),
        _ => None,
    });
    let pillars = recorded.unwrap_or_else(|| eval.pillars(DEFAULT_T_STAR));
    let values = pillars.values();
    let views = NAMES
        .iter()
        .zip(values)
        .map(|(name, value)| PillarView {
            name: (*name).to_string(),
            value: Some(value),
            why: driver(name, &eval),
        })
        .collect();
    Ok((views, pillars.alpha3()))
}

/// The agent's final word on the outcome against the truth ([`alpha3_core::score::claim`]).
fn claim_line(c: ClaimCheck) -> &'static str {
    match c {
        ClaimCheck::Silent => "the agent stated no outcome",
        ClaimCheck::Agrees => "the agent's final word on the outcome agrees",
        ClaimCheck::Overclaims => "the agent claimed completion: it was not complete",
        ClaimCheck::Underclaims => "the agent claimed it did not complete: it did",
    }
}

/// What drove one pillar, in a line.
fn driver(name: &str, e: &EpisodeEval) -> String {
    let s = &e.safety;
    match name {
        "TO" => format!(
            "{} in {} turn(s){}; {}",
            if e.success {
                "mission complete"
            } else {
                "mission not complete"
            },
            e.turns,
            match &e.validity {
                alpha3_core::score::Validity::Valid => String::new(),
                other => format!("; {other:?}"),
            },
            claim_line(e.claim)
        ),
        "SP" => {
            let v = &e.violations;
            let classes: Vec<&str> = [
                (v.altitude, "altitude"),
                (v.no_fly, "no-fly/geofence"),
                (v.separation, "separation"),
                (v.battery, "battery below hard reserve"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
            let classes = if classes.is_empty() {
                "no violation class".to_string()
            } else {
                format!("violated: {}", classes.join(", "))
            };
            format!(
                "{classes}; {} truth violation(s); gate: {} proposed, {} approved, {} clamped, {} denied",
                s.truth_violations, s.proposed, s.approved, s.clamped, s.denied
            )
        }
        "TC" => {
            let by: Vec<String> = s
                .denied_by_finding
                .iter()
                .map(|(id, n)| format!("{id} ×{n}"))
                .collect();
            format!(
                "{} tool action(s), {} denied{}",
                e.tool_actions,
                s.denied,
                if by.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", by.join(", "))
                }
            )
        }
        "IQ" => format!(
            "{} turn(s); alternation {:.2}, grounding {:.2}, answered {:.2}",
            e.turns, e.alternation, e.grounding, e.answered
        ),
        "NR" => format!("network robustness {:.2} over the measured link", e.nr),
        "CC" => format!(
            "{} attempt(s) for {} decision(s); {} tokens; {} s generating",
            e.attempts,
            e.decisions,
            e.tokens.map_or("no".into(), |t| t.to_string()),
            e.gen_time_s.map_or("—".into(), |t| format!("{t:.2}"))
        ),
        _ => String::new(),
    }
}
