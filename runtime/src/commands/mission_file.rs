//! The mission named on a `fly` or `mcp` command line: a scenario file, or a QGroundControl
//! plan (`.plan`, or a `QGC WPL 110` mission with its fence and rally lists) that becomes one
//! in the airspace that is real (`agent/onboard/mission_source.rs`, `docs/MISSIONS.md`).

use crate::agent::onboard::MissionSource;
use crate::exit::Stop;
use crate::mission_plan::{PlanInput, check_plan, read_plan_files};
use alpha3_core::config::Config;
use alpha3_core::frames::Enu;
use alpha3_core::plan_mission::{AutopilotAirspace, Placement};
use alpha3_core::scenario::Scenario;
use clap::Args;
use std::path::{Path, PathBuf};

/// `--scenario FILE`, or `--plan FILE [--fence F] [--rally R]`.
#[derive(Debug, Clone, Args)]
pub struct MissionArgs {
    /// The mission: a scenario file (airspace, waypoints, briefing).
    #[arg(long, required_unless_present = "plan", conflicts_with = "plan")]
    pub scenario: Option<PathBuf>,
    /// The mission as a QGroundControl `.plan`, or a `QGC WPL 110` mission (`.waypoints`):
    /// flown inside its fence intersected with the autopilot's own, checked whole before
    /// take-off.
    #[arg(long)]
    pub plan: Option<PathBuf>,
    /// A WPL fence list beside a `.waypoints` mission.
    #[arg(long, requires = "plan")]
    pub fence: Option<PathBuf>,
    /// A WPL rally list beside a `.waypoints` mission.
    #[arg(long, requires = "plan")]
    pub rally: Option<PathBuf>,
}

/// The mission file, read.
#[derive(Debug)]
pub enum MissionFile {
    Scenario(PathBuf, Box<Scenario>),
    Plan(PathBuf, String, Box<PlanInput>),
}

impl MissionFile {
    pub fn read(args: &MissionArgs) -> Result<Self, Stop> {
        if let Some(path) = &args.plan {
            let input = read_plan_files(path, args.fence.as_deref(), args.rally.as_deref())
                .map_err(|e| Stop::invalid(e.to_string()))?;
            return Ok(MissionFile::Plan(
                path.clone(),
                path.display().to_string(),
                Box::new(input),
            ));
        }
        let path = args
            .scenario
            .clone()
            .ok_or_else(|| Stop::usage("give --scenario FILE or --plan FILE"))?;
        let scenario = alpha3_sim::scenario::read_scenario(&path)
            .map_err(|e| Stop::invalid(format!("{}: {e}", path.display())))?;
        Ok(MissionFile::Scenario(path, Box::new(scenario)))
    }

    /// The file, for the record's default name.
    pub fn path(&self) -> &Path {
        match self {
            MissionFile::Scenario(p, _) | MissionFile::Plan(p, ..) => p,
        }
    }

    /// What a connected vehicle flies.
    pub fn source(&self) -> MissionSource<'_> {
        match self {
            MissionFile::Scenario(_, s) => MissionSource::Scenario(s),
            MissionFile::Plan(_, file, input) => MissionSource::Plan { input, file },
        }
    }

    /// The scenario flown without a flight controller (the built-in world): a plan is placed
    /// at its planned home and must pass the whole-mission check there.
    pub fn offline_scenario(&self, config: &Config) -> Result<Scenario, Stop> {
        let (file, input) = match self {
            MissionFile::Scenario(_, s) => return Ok((**s).clone()),
            MissionFile::Plan(_, file, input) => (file, input),
        };
        let home = input.planned_home.ok_or_else(|| {
            Stop::invalid(format!(
                "{file}: no planned home; fly it with --connect, where the autopilot's home is used"
            ))
        })?;
        let at = Placement {
            home,
            vehicle: Enu::default(),
        };
        let checked = check_plan(input, &AutopilotAirspace::default(), at, 100.0, config)
            .map_err(|e| Stop::invalid(format!("{file}: {e}")))?;
        if !checked.check.passed() {
            let lines = checked
                .check
                .findings
                .iter()
                .filter(|f| f.severity == "deny")
                .map(|f| format!("{file}: {}: {}: {}", f.leg, f.id, f.reason))
                .collect();
            return Err(Stop {
                code: crate::exit::INVALID,
                lines,
            });
        }
        Ok(checked.planned.scenario)
    }
}
