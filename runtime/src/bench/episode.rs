//! Flying one planned episode in the built-in world: world, gate and settings from the suite,
//! the record's header, the closed loop, then the score — read back from the record just
//! written, appended as its last line — and the record renamed into place.

use super::BenchError;
use super::plan::PlannedEpisode;
use super::results::EpisodeResult;
use super::resume::{partial_path, record_path};
use super::suite::{Suite, SuitePolicy, SuiteScenario};
use crate::agent::run_episode;
use crate::episode_setup::{EpisodeSettings, profile_for_scenario};
use crate::policy::Policy;
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::{Recorder, read_record};
use alpha3_core::config::VehicleProfile;
use alpha3_core::gate::GateContext;
use alpha3_sim::{World, WorldOptions};
use std::path::Path;

/// Runs `ep` with `policy` and returns its scored result; the record ends up complete at
/// `records/<id>.jsonl`.
pub async fn fly(
    suite: &Suite,
    ep: &PlannedEpisode,
    policy: &mut dyn Policy,
    records: &Path,
    scorer: &alpha3_core::score::Scorer,
) -> Result<EpisodeResult, BenchError> {
    let s: &SuiteScenario = &suite.scenarios[ep.scenario];
    let p: &SuitePolicy = &suite.policies[ep.policy];
    let (settings, profile) = setup(suite, ep)?;
    let mut gate =
        GateContext::from_scenario(&s.scenario, &settings.limits, &profile, 0).map_err(|e| {
            BenchError::Episode {
                id: ep.id.clone(),
                message: format!("gate context: {e}"),
            }
        })?;
    let mut world = World::new(s.scenario.clone(), WorldOptions::seeded(ep.seed));
    let band = [gate.limits().min_altitude_m, gate.limits().max_altitude_m];
    let initial = initial_state(&s.scenario, &world.snapshot(), band);
    let identity = EpisodeIdentity {
        episode_id: &ep.id,
        scenario: &s.key,
        seed: ep.seed,
        metric: scorer.options().metric,
    };
    let part = partial_path(records, &ep.id);
    let mut recorder = Recorder::create(&part)?.without_sync();
    recorder.append(world.now_ms(), header_event(&identity, &p.config, &initial))?;
    run_episode(&mut world, policy, &mut gate, &settings, &mut recorder).await?;
    let end_ms = world.now_ms();
    close_record(recorder, &part, records, &ep.id, scorer, end_ms)
}

/// Scores the record just written at `part` (read back from the file), appends the score as
/// its last line at `end_ms` and renames it into place as `records/<id>.jsonl`.
pub(crate) fn close_record(
    mut recorder: Recorder,
    part: &Path,
    records: &Path,
    id: &str,
    scorer: &alpha3_core::score::Scorer,
    end_ms: u64,
) -> Result<EpisodeResult, BenchError> {
    let record = read_record(part)?;
    let result =
        EpisodeResult::from_record(scorer, &record).ok_or_else(|| BenchError::Episode {
            id: id.to_string(),
            message: "the record has no header".into(),
        })?;
    recorder.append(end_ms, result.score_event())?;
    recorder.flush()?;
    drop(recorder);
    let done = record_path(records, id);
    std::fs::rename(part, &done).map_err(|e| BenchError::io(&done, e))?;
    Ok(result)
}

/// The settings of `ep` (its policy's config and the suite's budgets) and the vehicle profile
/// its gate uses for the scenario's airframe.
pub(crate) fn setup(
    suite: &Suite,
    ep: &PlannedEpisode,
) -> Result<(EpisodeSettings, VehicleProfile), BenchError> {
    let s = &suite.scenarios[ep.scenario];
    let p = &suite.policies[ep.policy];
    let settings = EpisodeSettings::from_config(&p.config, Some(&suite.bench));
    let vehicle = p.config.vehicle.as_ref().ok_or_else(|| BenchError::Suite {
        path: suite_base(suite),
        message: format!(
            "policy {}: no [vehicle] section in its configuration",
            p.name
        ),
    })?;
    Ok((settings, profile_for_scenario(&s.scenario, vehicle)))
}

fn suite_base(suite: &Suite) -> std::path::PathBuf {
    suite
        .bench
        .base_config
        .clone()
        .unwrap_or_else(|| suite.bench.name.clone())
        .into()
}
