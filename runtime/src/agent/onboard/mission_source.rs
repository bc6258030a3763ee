//! What a connected vehicle flies: a scenario file as it is, or a QGroundControl plan made into
//! one once the autopilot is heard — its home and position place the plan, its own fence,
//! rally points and fence parameters narrow the airspace, and the whole mission is checked
//! before anything is commanded. A plan that fails the check is not flown.

use super::connect::Refusal;
use super::replan::{AirspaceWatch, Replan};
use super::start::fix_and_home;
use crate::mission_plan::{PlanInput, check_plan, read_autopilot_airspace};
use alpha3_core::config::Config;
use alpha3_core::plan_mission::{AirspaceSources, MissionCheck, Placement};
use alpha3_core::scenario::Scenario;
use alpha3_hil::HilLink;
use serde::Serialize;

/// The mission of a connected episode.
#[derive(Debug, Clone, Copy)]
pub enum MissionSource<'a> {
    Scenario(&'a Scenario),
    /// A plan, read from `file`.
    Plan {
        input: &'a PlanInput,
        file: &'a str,
    },
}

/// The plan behind an episode, for the record's header: where every limit came from and what
/// the check before take-off found.
#[derive(Debug, Clone, Serialize)]
pub struct PlanNote {
    pub file: String,
    /// The plan ends with a return to launch: the episode ends with the vehicle landed at home.
    pub ends_with_return: bool,
    /// The plan ends with a landing: the episode ends with the vehicle landed at its last
    /// waypoint.
    pub ends_with_landing: bool,
    pub sources: AirspaceSources,
    pub check: MissionCheck,
}

/// The scenario to fly on `link`; from a plan, also its note and the watch that keeps its
/// airspace true when the autopilot's own plans change during the episode.
pub async fn mission_on(
    link: &HilLink,
    source: MissionSource<'_>,
    config: &Config,
) -> Result<(Scenario, Option<PlanNote>, Option<AirspaceWatch>), Refusal> {
    let (input, file) = match source {
        MissionSource::Scenario(s) => return Ok((s.clone(), None, None)),
        MissionSource::Plan { input, file } => (input, file),
    };
    let snap = fix_and_home(link).await.map_err(Refusal::Start)?;
    // Counted before the download: a change while it runs is read again at the first turn.
    let changes = link.status().plan_changes;
    let autopilot = read_autopilot_airspace(link)
        .await
        .map_err(|e| Refusal::Plan(e.to_string()))?;
    let at = Placement {
        home: snap.home,
        vehicle: snap.position,
    };
    let battery = if snap.unreported.battery {
        100.0
    } else {
        snap.battery.remaining_pct
    };
    let checked = check_plan(input, &autopilot, at, battery, config)
        .map_err(|e| Refusal::Plan(format!("{file}: {e}")))?;
    if !checked.check.passed() {
        // The pilot at the ground station sees why, item by item (the first few).
        for f in checked
            .check
            .findings
            .iter()
            .filter(|f| f.severity == "deny")
            .take(5)
        {
            let what = f
                .item
                .map_or_else(|| f.leg.clone(), |seq| format!("item {seq}"));
            link.tell_ground_station(&format!("alpha3: denied {what}: {}", f.reason));
        }
        // The link closes with the refusal: give its task a moment to send them first.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let lines = checked
            .check
            .findings
            .iter()
            .filter(|f| f.severity == "deny")
            .map(|f| {
                format!(
                    "{}: {}: {} (limit {:.1}, measured {:.1})",
                    f.leg, f.id, f.reason, f.limit, f.measured
                )
            })
            .collect();
        return Err(Refusal::PlanFailed {
            file: file.to_string(),
            lines,
        });
    }
    let note = PlanNote {
        file: file.to_string(),
        ends_with_return: checked.planned.ends_with_return,
        ends_with_landing: checked.planned.ends_with_landing,
        sources: checked.planned.sources,
        check: checked.check,
    };
    let watch = AirspaceWatch::new(
        Replan {
            input: input.clone(),
            config: config.clone(),
            at,
        },
        changes,
        autopilot,
    );
    Ok((checked.planned.scenario, Some(note), Some(watch)))
}
