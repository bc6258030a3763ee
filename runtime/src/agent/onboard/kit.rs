//! What an onboard episode is flown with besides the vehicle, and why one could not start.

use crate::episode_setup::{EpisodeSettings, profile_for_scenario};
use crate::policy::{EpisodeBrief, Policy};
use alpha3_core::config::Config;
use alpha3_core::frames::Geo;
use alpha3_core::gate::GateContext;
use alpha3_core::scenario::Scenario;
use alpha3_hil::HilError;
use alpha3_sim::{World, WorldOptions};
use std::path::Path;

/// Why an onboard episode could not start.
#[derive(Debug, thiserror::Error)]
pub enum OnboardError {
    #[error("configuration: {0}")]
    Config(String),
    #[error("policy: {0}")]
    Policy(String),
    #[error(transparent)]
    Link(#[from] HilError),
    #[error("bringing the vehicle to the start: {0}")]
    Start(String),
}

/// Everything one episode needs besides the vehicle: the world around it (the vehicle's twin),
/// the gate's context, the settings and the policy.
pub struct EpisodeKit {
    pub world: World,
    pub gate: GateContext,
    pub settings: EpisodeSettings,
    pub policy: Box<dyn Policy>,
}

impl std::fmt::Debug for EpisodeKit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EpisodeKit")
            .field("scenario", &self.world.scenario().name)
            .field("policy", &self.policy.name())
            .finish_non_exhaustive()
    }
}

/// The kit for `scenario` under `config` (`base_dir` resolves the policy's relative paths).
/// `origin` places the scenario on the earth ([`crate::agent::anchor`]).
pub fn episode_kit(
    config: &Config,
    scenario: &Scenario,
    seed: u64,
    base_dir: &Path,
    suite: Option<&alpha3_core::config::BenchSuite>,
    origin: Geo,
) -> Result<EpisodeKit, OnboardError> {
    let (world, gate, settings) = episode_parts(config, scenario, seed, suite, origin)?;
    let profile = gate.vehicle().clone();
    let policy_cfg = config
        .policy
        .as_ref()
        .ok_or_else(|| OnboardError::Config("no [policy] section".into()))?;
    let brief = EpisodeBrief {
        scenario,
        settings: &settings,
        vehicle: &profile,
        seed,
    };
    let policy = crate::policy::from_config(policy_cfg, base_dir, Some(&brief))
        .map_err(|e| OnboardError::Policy(e.to_string()))?;
    Ok(EpisodeKit {
        world,
        gate,
        settings,
        policy,
    })
}

/// The kit without its policy (a bench worker brings its own): the world placed at `origin`,
/// the gate's context and the settings.
pub fn episode_parts(
    config: &Config,
    scenario: &Scenario,
    seed: u64,
    suite: Option<&alpha3_core::config::BenchSuite>,
    origin: Geo,
) -> Result<(World, GateContext, EpisodeSettings), OnboardError> {
    let settings = EpisodeSettings::from_config(config, suite);
    let vehicle = config
        .vehicle
        .as_ref()
        .ok_or_else(|| OnboardError::Config("no [vehicle] section".into()))?;
    let profile = profile_for_scenario(scenario, vehicle);
    let gate = GateContext::from_scenario(scenario, &settings.limits, &profile, 0)
        .map_err(|e| OnboardError::Config(format!("gate context: {e}")))?;
    let options = WorldOptions {
        origin,
        ..WorldOptions::seeded(seed)
    };
    Ok((World::new(scenario.clone(), options), gate, settings))
}
