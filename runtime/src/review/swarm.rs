//! The swarm's review page: every vehicle of one `alpha3 swarm` flight on one map under one
//! time slider, from the autopilots' own positions on the hub's clock (`swarm-track.json`),
//! with each vehicle's planned waypoints, the places its gate refused or changed a command
//! (from its own record), and the closest pair over time against the separation. One
//! self-contained HTML file, like the other review pages.

use super::ReviewError;
use super::page::{escape_html, script_safe};
use alpha3_core::gate::VerdictOutcome;
use alpha3_core::record::Event;
use alpha3_core::swarm::{Closest, SwarmTrack, VehicleTrack};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

const SCRIPT: &str = include_str!("assets/swarm.js");
/// Gate findings drawn per vehicle at most (the rest are counted).
const MAX_FINDINGS: usize = 200;

/// The page's model.
#[derive(Debug, Clone, Serialize)]
pub struct SwarmPage {
    pub title: String,
    pub speed_factor: f64,
    pub limit_m: f64,
    /// Separation violations in truth (the hub's count).
    pub violations: u64,
    /// The closest pair over the flight, m (the hub's, from every broadcast position).
    pub closest_m: Option<f64>,
    pub missions_completed: u64,
    pub vehicles: Vec<PageVehicle>,
    /// The closest airborne pair every half second.
    pub closest: Vec<Closest>,
    pub start_s: f64,
    pub end_s: f64,
    /// What could not be shown, and why.
    pub notes: Vec<String>,
}

/// One vehicle on the page.
#[derive(Debug, Clone, Serialize)]
pub struct PageVehicle {
    pub name: String,
    pub system_id: u8,
    pub termination: Option<String>,
    pub success: bool,
    pub intents_sent: Option<u64>,
    pub intents_taken: Option<u64>,
    /// Its scenario's waypoints, common frame (x east, y north, z up), m.
    pub waypoints: Vec<[f64; 3]>,
    pub track: VehicleTrack,
    /// Where its gate denied or changed a command (its record's own position at the time).
    pub findings: Vec<PageFinding>,
    pub findings_left_out: usize,
}

/// One denied or changed command, where it happened.
#[derive(Debug, Clone, Serialize)]
pub struct PageFinding {
    /// Episode time of that vehicle's record, s.
    pub t_s: f64,
    pub x: f64,
    pub y: f64,
    pub outcome: String,
    pub ids: Vec<String>,
}

/// Reads the flight in `dir` (`swarm-summary.json`, `swarm-track.json`, the records and
/// scenarios they name) into the page's model.
pub fn model(dir: &Path) -> Result<SwarmPage, ReviewError> {
    let summary: Value = read_json(&dir.join("swarm-summary.json"))?;
    let track: SwarmTrack = read_json(&dir.join("swarm-track.json"))?;
    let mut notes = Vec::new();
    let listed = summary["vehicles"].as_array().cloned().unwrap_or_default();
    let mut vehicles = Vec::new();
    for v in &track.vehicles {
        let line = listed
            .iter()
            .find(|l| l["system_id"].as_u64() == Some(u64::from(v.system_id)))
            .cloned()
            .unwrap_or(Value::Null);
        let (findings, left_out) = match line["record"].as_str().map(PathBuf::from) {
            Some(path) => findings_of(&path).unwrap_or_else(|e| {
                notes.push(format!("{}: no gate findings: {e}", v.name));
                (Vec::new(), 0)
            }),
            None => {
                notes.push(format!("{}: no record named in the summary", v.name));
                (Vec::new(), 0)
            }
        };
        let waypoints = match line["scenario"].as_str() {
            Some(path) => match std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| alpha3_sim::scenario::parse_scenario(&t).map_err(|e| e.to_string()))
            {
                Ok(s) => s.mission.waypoints,
                Err(e) => {
                    notes.push(format!("{}: no waypoints ({path}: {e})", v.name));
                    Vec::new()
                }
            },
            None => Vec::new(),
        };
        vehicles.push(PageVehicle {
            name: v.name.clone(),
            system_id: v.system_id,
            termination: line["termination"].as_str().map(str::to_string),
            success: line["success"].as_bool().unwrap_or(false),
            intents_sent: line["swarm"]["intents_sent"].as_u64(),
            intents_taken: line["swarm"]["intents_taken"].as_u64(),
            waypoints,
            track: v.clone(),
            findings,
            findings_left_out: left_out,
        });
    }
    let times = || track.vehicles.iter().flat_map(|v| v.t.iter().copied());
    let start_s = times().reduce(f64::min).unwrap_or(0.0);
    let end_s = times().reduce(f64::max).unwrap_or(0.0);
    Ok(SwarmPage {
        title: format!(
            "alpha3 swarm · {} · {} vehicles · ×{}",
            summary["swarm"].as_str().unwrap_or("?"),
            track.vehicles.len(),
            summary["speed_factor"].as_f64().unwrap_or(1.0)
        ),
        speed_factor: summary["speed_factor"].as_f64().unwrap_or(1.0),
        limit_m: track.min_separation_m,
        violations: summary["hub"]["separation_violations"]
            .as_u64()
            .unwrap_or(0),
        closest_m: summary["hub"]["min_separation_m"].as_f64(),
        missions_completed: summary["missions_completed"].as_u64().unwrap_or(0),
        closest: track.closest_over_time(),
        vehicles,
        start_s,
        end_s,
        notes,
    })
}

/// Writes the page of the flight in `dir` to `out`; returns its size in bytes.
pub fn write_swarm_page(dir: &Path, out: &Path) -> Result<usize, ReviewError> {
    let page = model(dir)?;
    super::write_html(out, &render(&page))
}

/// The page for `page`.
pub fn render(page: &SwarmPage) -> String {
    let data = script_safe(&serde_json::to_string(page).unwrap_or_else(|_| "null".into()));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-errors=\"\" data-rendered=\"0\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n<header><h1>{t}</h1><p id=\"verdict\"></p></header>\n<div id=\"scrub\"><input id=\"slider\" type=\"range\" step=\"0.1\" aria-label=\"swarm time\"><span id=\"clock\"></span><span id=\"now-closest\"></span></div>\n<main>\n<section><h2>Map (x east, y north, m; circles: half the separation, so touching circles are at the limit)</h2><div id=\"map\"></div></section>\n<section><h2>Closest airborne pair over swarm time</h2><div id=\"chart\"></div><h2>Vehicles</h2><table id=\"vehicles\"></table><ul id=\"notes\"></ul></section>\n</main>\n<script>window.onerror = function (m) {{ var r = document.documentElement; r.setAttribute('data-errors', (r.getAttribute('data-errors') + ' ' + m).trim()); }};\nvar SWARM = {data};\n{SCRIPT}</script>\n</body>\n</html>\n",
        t = escape_html(&page.title),
    )
}

const CSS: &str = "body { font: 13px system-ui, sans-serif; margin: 0; }
header { padding: 8px 16px; background: #1c2430; color: #fff; }
h1 { font-size: 17px; margin: 0; } header p { margin: 4px 0 0; }
h2 { font-size: 14px; margin: 6px 0; }
#scrub { position: sticky; top: 0; background: #fff; padding: 6px 16px; display: flex; gap: 16px; border-bottom: 1px solid #ccc; z-index: 2; }
#slider { flex: 1; }
main { display: grid; grid-template-columns: 600px 1fr; gap: 12px; padding: 8px 16px; }
svg { background: #fafafa; border: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; }
.planned { fill: none; stroke-dasharray: 5 4; stroke-width: 1.2; opacity: 0.7; }
.flown { fill: none; stroke-width: 2; }
.finding { stroke-width: 2; }
.bubble { fill-opacity: 0.12; stroke-width: 1; }
.bubble.close { fill: #d00 !important; fill-opacity: 0.35; }
.limit { stroke: #d00; stroke-dasharray: 4 3; }
.cursor { stroke: #333; }
.bad { color: #b00; font-weight: bold; }";

fn findings_of(path: &Path) -> Result<(Vec<PageFinding>, usize), String> {
    let record = super::load(path).map_err(|e| e.to_string())?;
    let mut here: Option<(f64, f64)> = None;
    let mut out = Vec::new();
    let mut left_out = 0;
    for line in &record.lines {
        match &line.event {
            Event::Truth { position, .. } => here = Some((position.x, position.y)),
            Event::Verdict {
                outcome, findings, ..
            } if !matches!(outcome, VerdictOutcome::Approved) => {
                let Some((x, y)) = here else { continue };
                if out.len() >= MAX_FINDINGS {
                    left_out += 1;
                    continue;
                }
                out.push(PageFinding {
                    t_s: line.t_ms as f64 / 1000.0,
                    x,
                    y,
                    outcome: outcome.as_str().to_string(),
                    ids: findings.iter().map(|f| f.id.clone()).collect(),
                });
            }
            _ => {}
        }
    }
    Ok((out, left_out))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReviewError> {
    let io = |source| ReviewError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}
