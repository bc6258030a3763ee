//! The compact state block added to each turn's prompt: phase, position, next waypoint, what
//! is still owed, battery and reserve, link and slice, and the gate's refusals of the last
//! turn with their reasons (a line only when there were any). A few short lines, for small contexts.

use super::admissible::refusals;
use super::facts::MissionFacts;
use alpha3_core::link::HardThresholds;
use alpha3_core::protocol::Situation;
use alpha3_core::protocol::num;
use alpha3_core::protocol::tools::CaptureKind;
use std::fmt::Write as _;

/// The next waypoints the block lists (the grammar offers as many as [`MAX_WAYPOINTS`]).
///
/// [`MAX_WAYPOINTS`]: super::MAX_WAYPOINTS
const SHOWN_WAYPOINTS: usize = 3;

/// The state block for `now`.
pub fn state_block(facts: &MissionFacts, now: &Situation, hard: &HardThresholds) -> String {
    let v = &now.snapshot;
    let p = v.position;
    let phase = if !v.is_airborne() {
        "on_ground"
    } else if facts.remaining.is_empty() {
        "waypoints_done"
    } else {
        "en_route"
    };
    let mut m = format!(
        "phase={phase} pos=({},{},{}) battery={}% reserve={}% link={} {}\n",
        num(p.x, 0),
        num(p.y, 0),
        num(p.z, 0),
        num(v.battery.remaining_pct, 0),
        num(facts.reserve_pct, 0),
        now.link.slice,
        if now.link.is_hard(hard) { "HARD" } else { "ok" },
    );
    // Captures owed where the vehicle is (a reached waypoint close by) come first.
    let here = facts.owed_here([p.x, p.y]);
    for (i, kind) in &here {
        let _ = write!(m, "capture {} owed here (waypoint {i}); ", kind_name(kind));
    }
    if facts.remaining.is_empty() {
        m.push_str("all waypoints reached");
    } else {
        let next: Vec<String> = facts
            .remaining
            .iter()
            .take(SHOWN_WAYPOINTS)
            .map(|(i, w)| format!("{i}: ({},{},{})", num(w[0], 1), num(w[1], 1), num(w[2], 1)))
            .collect();
        let _ = write!(
            m,
            "next waypoints {}; {} of {} left",
            next.join(", "),
            facts.remaining.len(),
            facts.total_waypoints
        );
    }
    for (i, kind) in facts.captures_owed.iter().filter(|c| !here.contains(c)) {
        let _ = write!(m, "; capture {} at waypoint {i}", kind_name(kind));
    }
    if let Some(d) = facts.hold_owed_s {
        let _ = write!(m, "; hold {}s ordered", num(d, 0));
    }
    let refused = refusals(&now.observations);
    if !refused.is_empty() {
        let _ = write!(m, "\nlast: {}", refused.join("; "));
    }
    m
}

fn kind_name(kind: &CaptureKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|k| k.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::steer::testkit::situation;
    use alpha3_core::link::Slice;
    use alpha3_core::protocol::ToolObservation;
    use serde_json::json;

    #[test]
    fn the_block_names_the_next_waypoint_what_is_owed_and_the_refusals() {
        let facts = MissionFacts {
            waypoints: vec![],
            remaining: vec![(2, [412.0, 307.0, 89.0])],
            total_waypoints: 4,
            captures_owed: vec![(3, CaptureKind::Image)],
            hold_owed_s: Some(15.0),
            sites: vec![[0.0, 0.0]],
            band_m: (15.0, 120.0),
            reserve_pct: 28.000000000000004,
            sensors: vec![],
            active: vec![],
            peers: vec![],
        };
        let now = Situation {
            observations: vec![ToolObservation {
                name: "takeoff".into(),
                result: json!({"status": "denied", "findings": [{"reason": "already airborne"}]}),
            }],
            ..situation(Slice::Urllc, None)
        };
        let b = state_block(&facts, &now, &HardThresholds::default());
        assert!(b.starts_with("phase=on_ground pos=(0,0,0)"), "{b}");
        assert!(b.contains("reserve=28%"), "{b}");
        assert!(
            b.contains("next waypoints 2: (412,307,89); 1 of 4 left"),
            "{b}"
        );
        assert!(
            b.contains("capture image at waypoint 3; hold 15s ordered"),
            "{b}"
        );
        assert!(b.ends_with("last: takeoff denied: already airborne"), "{b}");
        assert!(b.lines().count() == 3);
    }
}
