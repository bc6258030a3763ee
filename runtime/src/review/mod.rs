//! Flight review: one self-contained HTML page per episode from its flight record — a map in
//! the scenario's frame, timelines on one time axis, the dialogue with the gate's verdicts and
//! the α3 pillars, all moved together by one time cursor.
//!
//! - [`timeline`] reads a record into the page's model;
//! - [`breach`] adds the gate's time-to-breach prediction along the flown path;
//! - [`pillars`] adds the pillars and what drove each;
//! - [`page`] assembles the HTML (the views are scripts under `assets/`);
//! - [`compare`] puts two episodes' pages side by side under one slider;
//! - [`bound`] keeps every page bounded: each text cut with a marker, the whole page under
//!   [`bound::MAX_PAGE_BYTES`] (the record keeps everything);
//! - [`tlog`] reads a MAVLink telemetry log into the same model;
//! - [`swarm`] draws a whole `alpha3 swarm` flight: every vehicle on one map, one slider.

pub mod bound;
pub mod breach;
pub mod compare;
pub mod page;
pub mod pillars;
pub mod plan_export;
pub mod swarm;
pub mod timeline;
pub mod tlog;

use alpha3_core::record::{Event, ParsedRecord, RecordError, parse_record};
use alpha3_core::scenario::Scenario;
use std::path::{Path, PathBuf};

/// Errors making a review page.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Record { path: PathBuf, source: RecordError },
}

/// The page's model for `record`: the timeline, time to breach when the scenario is known, and
/// the pillars. What could not be added is said in the model's notes.
pub fn model(record: &ParsedRecord, scenario: Option<&Scenario>) -> timeline::Timeline {
    let mut t = timeline::build(record, scenario);
    let config = record.lines.iter().find_map(|l| match &l.event {
        Event::Header { config, .. } => Some(config),
        _ => None,
    });
    t.breach_note = match (scenario, config) {
        (Some(s), Some(c)) => breach::fill(&mut t, s, c).err(),
        (None, _) => Some("the scenario is not known".into()),
        (_, None) => Some("the record has no header".into()),
    };
    if let Some(plan) = config
        .map(|c| &c["vehicle_link"]["plan"])
        .filter(|p| p.is_object())
    {
        t.notes.extend(plan_notes(plan));
    }
    match pillars::explain(record) {
        Ok((views, alpha3)) => {
            t.pillars = views;
            t.alpha3 = t.alpha3.or(Some(alpha3));
        }
        Err(e) => t.pillars_note = Some(e),
    }
    t
}

/// What the page says of the plan an episode flew (`fly --plan`): its file, where its airspace
/// came from, and each item with what was done with it.
fn plan_notes(plan: &serde_json::Value) -> Vec<String> {
    let list = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let s = &plan["sources"];
    let mut notes = vec![format!(
        "plan {}: fence = {}; no-fly zones: {}",
        plan["file"].as_str().unwrap_or("?"),
        list(&s["fence"]).join(" ∩ "),
        list(&s["no_fly"]).join("; ")
    )];
    notes.extend(list(&s["items"]).into_iter().map(|i| format!("plan {i}")));
    notes
}

/// Reads the record at `path` and writes its flight as a `.plan` to `out`.
pub fn write_plan_of(path: &Path, out: &Path) -> Result<(), ReviewError> {
    plan_export::write_flown_plan(&load(path)?, out)
}

/// Reads the record at `path` and writes its page to `out`; returns the page's size in bytes.
pub fn write_page(
    path: &Path,
    scenario: Option<&Scenario>,
    out: &Path,
) -> Result<usize, ReviewError> {
    let record = load(path)?;
    write_html(out, &page::render(&model(&record, scenario)))
}

/// Writes the page comparing the records `a` and `b` (each with its scenario, when known) to
/// `out`; returns its size in bytes.
pub fn write_comparison(
    a: (&Path, Option<&Scenario>),
    b: (&Path, Option<&Scenario>),
    out: &Path,
) -> Result<usize, ReviewError> {
    let left = model(&load(a.0)?, a.1);
    let right = model(&load(b.0)?, b.1);
    write_html(out, &compare::render(&left, &right))
}

/// Reads the telemetry log at `path` and writes its page to `out`; returns the page's size.
pub fn write_tlog_page(path: &Path, out: &Path) -> Result<usize, ReviewError> {
    let io = |source| ReviewError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let log = alpha3_hil::tlog::read_tlog_with_skips(file).map_err(|e| io(e.into()))?;
    let name = path
        .file_stem()
        .map_or_else(|| "tlog".into(), |s| s.to_string_lossy().into_owned());
    write_html(out, &page::render(&tlog::build(&log, &name)))
}

fn load(path: &Path) -> Result<ParsedRecord, ReviewError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReviewError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_record(&text).map_err(|source| ReviewError::Record {
        path: path.to_path_buf(),
        source,
    })
}

pub(crate) fn write_html(out: &Path, html: &str) -> Result<usize, ReviewError> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ReviewError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(out, html).map_err(|source| ReviewError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(html.len())
}

/// The scenario key a record names in its header, if it has one.
pub fn scenario_key(record_text: &str) -> Option<String> {
    let first = record_text.lines().next()?;
    match serde_json::from_str::<alpha3_core::record::RecordLine>(first)
        .ok()?
        .event
    {
        Event::Header { scenario, .. } => Some(scenario),
        _ => None,
    }
}
