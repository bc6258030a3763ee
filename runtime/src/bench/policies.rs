//! How a bench run builds its policies: once per worker for the expensive ones (a local model,
//! an HTTP client), once per episode for those built from the episode (the scripted agent, a
//! replay).

use super::BenchError;
use super::episode::setup;
use super::plan::PlannedEpisode;
use super::suite::Suite;
use crate::policy::{EpisodeBrief, Policy, from_config};
use alpha3_core::config::PolicyBackend;

/// How often a policy is built.
pub(crate) enum Build {
    PerEpisode,
    PerWorker,
}

/// How the suite's policy `policy` is built.
pub(crate) fn policy_kind(suite: &Suite, policy: usize) -> Build {
    match suite.policies[policy]
        .config
        .policy
        .as_ref()
        .map(|p| p.backend)
    {
        Some(PolicyBackend::Llama | PolicyBackend::Openai) => Build::PerWorker,
        _ => Build::PerEpisode,
    }
}

/// The policy of `ep`, built for that episode.
pub(crate) fn per_episode(
    suite: &Suite,
    ep: &PlannedEpisode,
) -> Result<Box<dyn Policy>, BenchError> {
    let (settings, vehicle) = setup(suite, ep)?;
    let brief = EpisodeBrief {
        scenario: &suite.scenarios[ep.scenario].scenario,
        settings: &settings,
        vehicle: &vehicle,
        seed: ep.seed,
    };
    build(suite, ep.policy, Some(&brief))
}

/// The policy `policy` of the suite; `episode` is the episode it is built for, if only one.
pub(crate) fn build(
    suite: &Suite,
    policy: usize,
    episode: Option<&EpisodeBrief<'_>>,
) -> Result<Box<dyn Policy>, BenchError> {
    let p = &suite.policies[policy];
    let cfg = p.config.policy.as_ref().ok_or_else(|| BenchError::Policy {
        name: p.name.clone(),
        message: "no [policy] section".into(),
    })?;
    from_config(cfg, &p.base_dir, episode).map_err(|e| BenchError::Policy {
        name: p.name.clone(),
        message: e.to_string(),
    })
}
