//! A QGroundControl plan (or a `QGC WPL 110` mission with its fence and rally lists) made into
//! a mission the runtime flies, in the airspace that is real: the plan's fence intersected with
//! the autopilot's own, its exclusion areas as no-fly zones, rally points as landing sites, the
//! band narrowed by the autopilot's limits — and the whole mission checked before take-off.
//!
//! - [`autopilot`]: [`AutopilotAirspace`], what the autopilot holds (its FENCE and RALLY plans)
//!   and enforces (its fence parameters, [`fence_params`]).
//! - [`clip`]: inclusion areas intersected into one.
//! - [`scenario`](mod@scenario): [`plan_scenario`], the plan as a [`Scenario`](crate::scenario::Scenario)
//!   centred on the autopilot's home, with [`AirspaceSources`] naming where each limit came from.
//! - [`check`]: [`check_mission`], every leg through the gate, each refusal naming its item.
//!
//! Pure like the rest of `core`: the caller downloads the autopilot's plans, reads its
//! parameters and says where home is.

pub mod autopilot;
pub mod check;
pub mod clip;
pub mod error;
pub mod scenario;
pub mod sources;

pub use autopilot::{AutopilotAirspace, Firmware, ParamLimit, fence_params};
pub use check::{Detour, LegFinding, MissionCheck, check_mission};
pub use clip::{ClipError, intersect};
pub use error::PlanMissionError;
pub use scenario::{PLAN_MISSION_KIND, Placement, PlanParts, PlannedMission, plan_scenario};
pub use sources::AirspaceSources;
