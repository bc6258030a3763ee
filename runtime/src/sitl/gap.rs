//! The twin-vs-real gap: an episode flown on a SITL autopilot next to the same episode
//! (scenario, seed, policy) flown in the built-in world, read from the two flight records.
//! It says how far the built-in world's vehicle is from the real autopilot's: where each
//! ended, with how much battery, after how long, and whether both completed without a truth
//! violation.

use alpha3_core::frames::Enu;
use alpha3_core::record::{Event, ParsedRecord};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// One side of the comparison, from its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub success: bool,
    pub reason: String,
    /// Episode time at the termination, s.
    pub duration_s: f64,
    pub violations: usize,
    pub final_position: Option<Enu>,
    pub final_battery_pct: Option<f64>,
}

/// One scenario on both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    pub id: String,
    pub scenario: String,
    pub seed: u64,
    pub sitl: Side,
    pub builtin: Side,
    /// Distance between where the two ended, m.
    pub final_position_error_m: Option<f64>,
}

impl Side {
    pub fn of(record: &ParsedRecord) -> Self {
        let mut side = Self {
            success: false,
            reason: String::new(),
            duration_s: 0.0,
            violations: 0,
            final_position: None,
            final_battery_pct: None,
        };
        for line in &record.lines {
            match &line.event {
                Event::Truth {
                    position,
                    battery_pct,
                    ..
                } => {
                    side.final_position = Some(*position);
                    side.final_battery_pct = Some(*battery_pct);
                }
                Event::Violation { .. } => side.violations += 1,
                Event::Termination {
                    reason, success, ..
                } => {
                    side.success = *success;
                    side.reason.clone_from(reason);
                    side.duration_s = line.t_ms as f64 / 1000.0;
                }
                _ => {}
            }
        }
        side
    }
}

impl Gap {
    pub fn new(id: &str, scenario: &str, seed: u64, sitl: Side, builtin: Side) -> Self {
        let final_position_error_m = match (sitl.final_position, builtin.final_position) {
            (Some(a), Some(b)) => Some(a.distance(b)),
            _ => None,
        };
        Self {
            id: id.into(),
            scenario: scenario.into(),
            seed,
            sitl,
            builtin,
            final_position_error_m,
        }
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.digits$}"))
}

fn outcome(s: &Side) -> String {
    let done = if s.success {
        "complete"
    } else {
        "not complete"
    };
    format!("{done} ({})", s.reason)
}

/// The gap as a Markdown table, with a summary line.
pub fn markdown(title: &str, gaps: &[Gap]) -> String {
    let mut md = format!("# {title}\n\n");
    let ok = |s: &Side| s.success && s.violations == 0;
    let _ = writeln!(
        md,
        "SITL: {}/{} complete with no truth violation; built-in world: {}/{}.\n",
        gaps.iter().filter(|g| ok(&g.sitl)).count(),
        gaps.len(),
        gaps.iter().filter(|g| ok(&g.builtin)).count(),
        gaps.len()
    );
    md.push_str(
        "| scenario | seed | SITL outcome | SITL time s | SITL violations | built-in outcome | built-in time s | built-in violations | final position gap m | battery SITL / built-in % |\n",
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for g in gaps {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.1} | {} | {} | {:.1} | {} | {} | {} / {} |",
            g.scenario,
            g.seed,
            outcome(&g.sitl),
            g.sitl.duration_s,
            g.sitl.violations,
            outcome(&g.builtin),
            g.builtin.duration_s,
            g.builtin.violations,
            opt(g.final_position_error_m, 1),
            opt(g.sitl.final_battery_pct, 0),
            opt(g.builtin.final_battery_pct, 0),
        );
    }
    md
}

/// Writes `twin_gap.json` and `twin_gap.md` into `out`.
pub fn write(out: &Path, title: &str, gaps: &[Gap]) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let json = serde_json::to_string_pretty(gaps).map_err(std::io::Error::other)?;
    std::fs::write(out.join("twin_gap.json"), json)?;
    std::fs::write(out.join("twin_gap.md"), markdown(title, gaps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::record::RecordLine;

    fn line(t_ms: u64, event: Event) -> RecordLine {
        RecordLine {
            v: alpha3_core::record::RECORD_VERSION,
            seq: 0,
            t_ms,
            event,
        }
    }

    fn truth(x: f64, battery: f64) -> Event {
        Event::Truth {
            position: Enu::new(x, 0.0, 30.0),
            velocity: Enu::default(),
            battery_pct: battery,
            armed: true,
            airborne: true,
        }
    }

    #[test]
    fn the_gap_is_read_off_the_two_records() {
        let sitl = ParsedRecord {
            lines: vec![
                line(1_000, truth(0.0, 99.0)),
                line(2_000, truth(10.0, 80.0)),
                line(
                    3_000,
                    Event::Violation {
                        kind: "altitude".into(),
                        detail: String::new(),
                    },
                ),
                line(
                    250_000,
                    Event::Termination {
                        reason: "mission_complete".into(),
                        success: true,
                        turns: 3,
                    },
                ),
            ],
            torn_tail: false,
        };
        let builtin = ParsedRecord {
            lines: vec![
                line(1_000, truth(13.0, 70.0)),
                line(
                    200_000,
                    Event::Termination {
                        reason: "mission_complete".into(),
                        success: true,
                        turns: 3,
                    },
                ),
            ],
            torn_tail: false,
        };
        let g = Gap::new("ep", "sc", 1, Side::of(&sitl), Side::of(&builtin));
        assert_eq!(g.sitl.violations, 1);
        assert_eq!(g.sitl.duration_s, 250.0);
        assert_eq!(g.builtin.duration_s, 200.0);
        assert_eq!(g.sitl.final_battery_pct, Some(80.0));
        assert!((g.final_position_error_m.unwrap() - 3.0).abs() < 1e-9);
        let md = markdown("t", &[g]);
        assert!(md.contains("SITL: 0/1 complete with no truth violation; built-in world: 1/1"));
    }
}
