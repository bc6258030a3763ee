//! Shared by the `fault_matrix` and `stall_watchdog` tests: the shipped config, and episode
//! settings with turns enough for the whole failsafe ladder to play out.
#![allow(dead_code, clippy::unwrap_used)]

use alpha3::agent::EpisodeSettings;
use alpha3_core::config::Config;

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
