//! Shared by the `fault_matrix` and `stall_watchdog` tests: the shipped config, and episode
//! settings with turns enough for the whole failsafe ladder to play out.
#![allow(dead_code, clippy::unwrap_used)]

use alpha3::episode_setup::{EpisodeSettings, profile_for_scenario};
use alpha3::policy::{EpisodeBrief, Policy, from_config};
use alpha3_core::config::Config;
use alpha3_core::scenario::Scenario;

/// Scripted decisions before a fault or stall starts (take off, fly the first legs).
pub const GOOD_DECISIONS: usize = 1;

pub use alpha3_test_support::root;

pub fn config() -> Config {
    Config::from_toml(&std::fs::read_to_string(root().join("configs/alpha3.toml")).unwrap())
        .unwrap()
}

/// The config's settings (deadline, watchdog ladder and step interval, truth interval) with
/// room for the whole ladder: enough turns that the episode does not end first.
pub fn settings() -> EpisodeSettings {
    let mut s = EpisodeSettings::from_config(&config(), None);
    s.max_turns = 40;
    s
}

/// The scripted agent for `scenario`, built from the config's `[policy]` by the policy factory
/// and briefed with the config's own settings (12 dialogue turns): it plans its flight as in the
/// suite, while the loop, given [`settings`], runs on so the ladder plays out.
pub fn scripted_agent(scenario: &Scenario) -> Box<dyn Policy> {
    let config = config();
    let settings = EpisodeSettings::from_config(&config, None);
    let vehicle = profile_for_scenario(scenario, config.vehicle.as_ref().unwrap());
    let brief = EpisodeBrief {
        scenario,
        settings: &settings,
        vehicle: &vehicle,
        // The scripted agent draws nothing at random.
        seed: 0,
    };
    from_config(config.policy.as_ref().unwrap(), root(), Some(&brief)).unwrap()
}
