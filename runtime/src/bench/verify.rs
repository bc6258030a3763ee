//! What `bench merge` checks in a record before it may enter a leaderboard: that it is what it
//! claims to be. The shards' `inputs.json` says what made them, but it is a file anyone can copy
//! in; the record itself must agree with it and with its own name:
//!
//! - its file is `<episode_id>.jsonl`, and that id is the one its policy, scenario and seed make
//!   ([`super::plan::episode_id`]): a record renamed to another episode is refused;
//! - its policy, scenario and seed are among the inputs', and its versions (alpha3, metric,
//!   operator) the inputs';
//! - its header's configuration (without the `initial_state` and `vehicle_link` the runtime adds
//!   to it) hashes, with its model, to the inputs' hash of that policy
//!   ([`super::inputs::policy_hash`]): a record flown under another configuration is refused;
//! - its closing score line is what scoring its own events again gives (scoring is a pure
//!   function of the record): an edited outcome, or an edited score, is refused.
//!
//! What a record cannot show is not checked: a scenario's content beyond its key (the inputs
//! hash it; the record names it), and events edited together with a matching score line.

use super::inputs::{Inputs, policy_hash};
use super::plan::episode_id;
use super::results::EpisodeResult;
use alpha3_core::config::Config;
use alpha3_core::record::{Event, ParsedRecord};
use alpha3_core::score::Scorer;
use serde_json::Value;
use std::path::Path;

/// Keys the runtime adds to the effective configuration in a header (not part of the inputs).
const ADDED_TO_CONFIG: [&str; 2] = ["initial_state", "vehicle_link"];

/// The scored result of the complete record `record`, read from `path`, when it is what it
/// claims to be under `inputs`; otherwise every way it is not, one phrase each.
pub fn verify_record(
    path: &Path,
    record: &ParsedRecord,
    inputs: &Inputs,
    scorer: &Scorer,
) -> Result<EpisodeResult, Vec<String>> {
    let Some(Event::Header {
        episode_id: id,
        scenario,
        seed,
        policy,
        model,
        operator_version,
        metric_version,
        alpha3_version,
        config,
    }) = record.lines.first().map(|l| &l.event)
    else {
        return Err(vec!["its first line is not a header".into()]);
    };
    let mut wrong = Vec::new();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name != format!("{id}.jsonl") {
        wrong.push(format!(
            "its file name is {name:?} but its header's episode_id is {id:?}"
        ));
    }
    let made = episode_id(policy, scenario, *seed);
    if *id != made {
        wrong.push(format!(
            "its episode_id {id:?} is not the id of its policy, scenario and seed ({made:?})"
        ));
    }
    if !inputs.scenarios.contains_key(scenario) {
        wrong.push(format!("scenario {scenario:?} is not among the inputs'"));
    }
    if !inputs.seeds.contains(seed) {
        wrong.push(format!(
            "seed {seed} is not among the inputs' {:?}",
            inputs.seeds
        ));
    }
    let mut versions = |what: &str, header: &str, theirs: &str| {
        if header != theirs {
            wrong.push(format!("{what} {header} where the inputs say {theirs}"));
        }
    };
    versions("alpha3", alpha3_version, &inputs.alpha3_version);
    versions("metric", metric_version, &inputs.metric_version);
    versions("operator", operator_version, &inputs.operator_version);
    match inputs.policies.get(policy) {
        None => wrong.push(format!("policy {policy:?} is not among the inputs'")),
        Some(expected) => {
            if let Some(why) = config_difference(config, model.as_deref(), expected) {
                wrong.push(why);
            }
        }
    }
    let result = EpisodeResult::from_record(scorer, record)
        .ok_or_else(|| vec!["its first line is not a header".to_string()])?;
    if let Some(why) = score_difference(record, &result) {
        wrong.push(why);
    }
    if wrong.is_empty() {
        Ok(result)
    } else {
        Err(wrong)
    }
}

/// Why the header's `config` and `model` are not the policy whose inputs hash is `expected`.
fn config_difference(config: &Value, model: Option<&str>, expected: &str) -> Option<String> {
    let mut config = config.clone();
    if let Value::Object(map) = &mut config {
        for key in ADDED_TO_CONFIG {
            map.shift_remove(key);
        }
    }
    match serde_json::from_value::<Config>(config) {
        Err(e) => Some(format!("its header's configuration does not read: {e}")),
        Ok(c) if policy_hash(&c, model) != expected => Some(
            "its header's configuration (or model) is not the one the inputs name for its \
             policy: it was flown under another configuration"
                .into(),
        ),
        Ok(_) => None,
    }
}

/// Why the record's last score line is not `result`'s (re-scored from the record's events).
fn score_difference(record: &ParsedRecord, result: &EpisodeResult) -> Option<String> {
    let written = record.lines.iter().rev().find_map(|l| match &l.event {
        e @ Event::Score { .. } => Some(e),
        _ => None,
    });
    let Some(Event::Score {
        metric_version,
        alpha3,
        pillars,
    }) = written
    else {
        return Some("it has no score line".into());
    };
    let again = result.score_event();
    let Event::Score {
        metric_version: m,
        alpha3: a,
        pillars: p,
    } = &again
    else {
        return None;
    };
    if metric_version == m && alpha3.to_bits() == a.to_bits() && pillars == p {
        return None;
    }
    let outcome = result.reason.as_deref().unwrap_or("no termination");
    Some(format!(
        "its score line says α3 {alpha3} ({metric_version}) but scoring its events again gives \
         α3 {a} ({m}; termination {outcome:?}): its events or its score were edited"
    ))
}
