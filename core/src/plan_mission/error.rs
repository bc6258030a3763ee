//! Why a plan cannot become a mission alpha3 flies.

use super::clip::ClipError;
use crate::episode::StructureProblem;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanMissionError {
    #[error(
        "no inclusion fence: alpha3 flies a plan only inside one (draw it in the plan's \
         GeoFence, or upload one to the autopilot)"
    )]
    NoFence,
    #[error("the fence: {0}")]
    Fence(#[from] ClipError),
    #[error(
        "the plan has no waypoint to fly (items flown: takeoff, waypoint, loiter time, land, return)"
    )]
    NoWaypoint,
    #[error("item {seq}: {what}")]
    Item { seq: u16, what: String },
    #[error("the plan is more than the runtime flies: {}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unflyable { problems: Vec<StructureProblem> },
}
