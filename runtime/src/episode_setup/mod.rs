//! What an episode is set up with, read by the closed loop (`agent`) and by the policies alike:
//! its budgets, limits and watchdog ([`EpisodeSettings`]), the vehicle profile the gate plans
//! with for a scenario's airframe ([`profile_for_scenario`]), and other aircraft's plans as the
//! gate knows them ([`plans`]).

mod handover_cut;
pub mod plans;
mod settings;
mod vehicle;

pub use handover_cut::HandoverCut;
pub use plans::{known_plans, plans_over};
pub use settings::{AfterSuccess, EpisodeSettings};
pub use vehicle::{profile_for_scenario, shipped_vehicle};
