//! The episode a policy is built for, as the policy is told it.

use crate::episode_setup::EpisodeSettings;
use alpha3_core::config::VehicleProfile;
use alpha3_core::scenario::Scenario;

/// What a policy is told of the episode it is built for.
#[derive(Debug, Clone, Copy)]
pub struct EpisodeBrief<'a> {
    pub scenario: &'a Scenario,
    /// The budgets, pacing, safety limits and watchdog the loop and the gate hold it to.
    pub settings: &'a EpisodeSettings,
    /// The vehicle profile the gate uses for the scenario's airframe.
    pub vehicle: &'a VehicleProfile,
    /// The episode's world seed (a policy that draws at random draws from it).
    pub seed: u64,
}
