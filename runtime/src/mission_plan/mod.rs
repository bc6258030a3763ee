//! QGroundControl plans on the runtime's side: read from files ([`read`]), the autopilot's own
//! fence, rally points and fence parameters read over the link ([`autopilot`]), and the two made
//! into the mission flown and checked (`alpha3_core::plan_mission`).

pub mod autopilot;
pub mod checked;
pub mod read;

pub use autopilot::read_autopilot_airspace;
pub use checked::{CheckedPlan, PlanCheckError, check_plan};
pub use read::{PlanInput, read_plan_files};
