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
/// `origin` places the scenario on the earth ([`crate::agent::anchor`]). `adjust` changes the
/// settings (a command line's budgets) before the policy is made: a policy paces its mission
/// by the budgets it is given (the scripted agent lands at a site on what it takes for its
/// last turn).
pub fn episode_kit(
    config: &Config,
    scenario: &Scenario,
    seed: u64,
    base_dir: &Path,
    suite: Option<&alpha3_core::config::BenchSuite>,
    origin: Geo,
    adjust: impl FnOnce(&mut EpisodeSettings),
) -> Result<EpisodeKit, OnboardError> {
    let (world, gate, mut settings) = episode_parts(config, scenario, seed, suite, origin)?;
    adjust(&mut settings);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::DecisionContext;
    use alpha3_core::link::{LinkSample, Slice};
    use alpha3_core::protocol::Situation;
    use alpha3_core::snapshot::VehicleSnapshot;

    /// The first turn of the scripted agent for a scenario of the suite, under `max_turns`
    /// set through `adjust`, as `alpha3 fly --max-turns` sets it.
    fn first_turn(max_turns: Option<u32>) -> alpha3_core::protocol::AgentTurn {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let config = Config::from_toml(
            &std::fs::read_to_string(format!("{root}/configs/alpha3.toml")).unwrap(),
        )
        .unwrap();
        let scenario = alpha3_sim::scenario::suite_scenario(0);
        let mut kit = episode_kit(
            &config,
            &scenario,
            0,
            Path::new(root),
            None,
            Geo::default(),
            |s| {
                if let Some(n) = max_turns {
                    s.max_turns = n;
                }
            },
        )
        .unwrap();
        assert_eq!(kit.settings.max_turns, max_turns.unwrap_or(12));
        let ctx = DecisionContext::first(
            "fly the mission",
            Situation {
                snapshot: VehicleSnapshot::on_ground_at_home(Geo::default(), 0),
                link: LinkSample {
                    slice: Slice::Urllc,
                    lat_ms: 7.0,
                    jitter_ms: 1.0,
                    loss_pct: 0.1,
                    throughput_mbps: 50.0,
                    edge_load: 0.3,
                },
                observations: Vec::new(),
                operator: None,
            },
        );
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(kit.policy.decide(&ctx, deadline))
            .outcome
            .unwrap()
    }

    /// The policy is made with the adjusted budgets: with two dialogue turns its first turn is
    /// its last, and the scripted agent means to put the vehicle down at a site; with the
    /// default twelve it flies its waypoints. (Adjusted after the policy was made, a swarm
    /// member paced its mission by 12 turns while its episode ran 40, and went to land on a
    /// mate's pad.)
    #[test]
    fn the_policy_plans_with_the_budgets_the_command_line_set() {
        let short = first_turn(Some(2));
        assert_eq!(short.intent, "land_at_site", "{short:?}");
        let long = first_turn(None);
        assert!(long.intent.starts_with("fly_waypoints_"), "{long:?}");
    }
}
