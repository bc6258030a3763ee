//! A scenario from its text: the one function that decides whether a scenario file is flown.
//! `alpha3 validate` reports its problems ([`crate::document::check_text`]) and every loader
//! (`bench`, `sitl`, `fly`, `mcp`, `sim-vehicle`, through `alpha3_sim::scenario`) refuses what
//! it refuses, so the two cannot disagree: size first (before parsing), then JSON with unique
//! keys, then the schema, the type and [`super::scenario_problems`].

use super::unique_keys::{NotUnique, parse_unique};
use super::{Scenario, scenario_size_problem};
use crate::document::{DocumentKind, Problem, check_value};

/// The scenario `text` holds, or every problem that keeps it from being flown.
pub fn scenario_from_text(text: &str) -> Result<Scenario, Vec<Problem>> {
    if let Some(p) = scenario_size_problem(text.len() as u64) {
        return Err(vec![Problem {
            pointer: p.pointer,
            rule: p.rule.into(),
            message: p.message,
            line: None,
        }]);
    }
    let value = parse_unique(text).map_err(|e| vec![text_problem(e)])?;
    let problems = check_value(DocumentKind::Scenario, &value);
    if !problems.is_empty() {
        return Err(problems);
    }
    serde_json::from_value(value).map_err(|e| {
        vec![Problem {
            pointer: String::new(),
            rule: "type".into(),
            message: e.to_string(),
            line: None,
        }]
    })
}

fn text_problem(e: NotUnique) -> Problem {
    match e {
        NotUnique::Syntax(e) => Problem {
            pointer: String::new(),
            rule: "syntax".into(),
            message: format!("not valid JSON: {e}"),
            line: Some((e.line(), e.column())),
        },
        NotUnique::Duplicate {
            pointer,
            key,
            error,
        } => Problem {
            pointer,
            rule: "duplicate_key".into(),
            message: format!(
                "the key \"{key}\" is given twice in one object (readers differ on which counts)"
            ),
            line: Some((error.line(), error.column())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../../configs/scenarios/sc-0000.json");

    #[test]
    fn a_shipped_scenario_reads_as_its_type() {
        let ours = scenario_from_text(SAMPLE).unwrap();
        let theirs: Scenario = serde_json::from_str(SAMPLE).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn a_key_given_twice_is_refused_where_it_is() {
        let text = SAMPLE.replacen("\"radius_m\":", "\"radius_m\": 1, \"radius_m\":", 1);
        assert_ne!(text, SAMPLE, "the sample has a radius");
        let problems = scenario_from_text(&text).unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].rule, "duplicate_key");
        assert!(
            problems[0].pointer.ends_with("/radius_m"),
            "{:?}",
            problems[0]
        );
        assert!(problems[0].line.is_some());
    }
}
