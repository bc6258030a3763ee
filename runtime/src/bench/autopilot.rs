//! Flying one planned episode on an autopilot (`alpha3 sitl`'s target): a fresh PX4 SITL first
//! when we start them, then the one onboard path ([`crate::agent::onboard`]) — connect, land a
//! vehicle an earlier episode left in the air, anchor, bring it to the spawn point, fly with the
//! world as its twin, score — and, unless told not to, the same episode in the built-in world
//! for the twin-vs-real gap.

use super::BenchError;
use super::episode::{close_record, setup};
use super::plan::PlannedEpisode;
use super::results::EpisodeResult;
use super::resume::{partial_path, record_path};
use super::suite::Suite;
use super::target::{Autopilot, Autopilots};
use crate::agent::onboard::{
    BatterySource, LeftInAir, OnboardEnd, OnboardKit, VehicleRequest, bring_to_start,
    check_address, connect_vehicle, episode_parts, run_onboard,
};
use crate::agent::{OperatorSource, Sources, run_episode_on};
use crate::policy::Policy;
use crate::record_header::{EpisodeIdentity, header_event, initial_state};
use crate::recorder::Recorder;
use crate::sitl::px4::{self, Px4Options, Px4Process};
use alpha3_core::config::{Config, LinkConfig};
use alpha3_core::score::Scorer;
use std::path::Path;
use std::time::Duration;

/// Flies `ep` with `policy` on `vehicle` and returns its scored result; the record ends up
/// complete at `records/<id>.jsonl`, its telemetry log at `tlogs/<id>.tlog` beside it.
pub async fn fly(
    suite: &Suite,
    ep: &PlannedEpisode,
    policy: &mut dyn Policy,
    records: &Path,
    scorer: &Scorer,
    target: &Autopilots,
    vehicle: &Autopilot,
) -> Result<EpisodeResult, BenchError> {
    let process = match &vehicle.px4 {
        Some((install, options)) => {
            let options = Px4Options {
                params: airframe_of(suite, ep)?,
                ..options.clone()
            };
            Some(Px4Process::start(install, &options).map_err(|e| episode_error(ep, &e))?)
        }
        None => None,
    };
    let flown = fly_one(suite, ep, policy, records, scorer, target, &vehicle.connect).await;
    if let Some(p) = process {
        if flown.is_err() {
            eprintln!("  {}: the PX4 log is {}", ep.id, p.log().display());
        }
        p.stop().await;
    }
    let result = flown?;
    if target.builtin_twins {
        fly_builtin(suite, ep, target, scorer).await?;
    }
    Ok(result)
}

fn episode_error(ep: &PlannedEpisode, e: &dyn std::fmt::Display) -> BenchError {
    BenchError::Episode {
        id: ep.id.clone(),
        message: e.to_string(),
    }
}

/// PX4's airframe parameters for `ep`: the vehicle the gate and the world assume.
fn airframe_of(suite: &Suite, ep: &PlannedEpisode) -> Result<Vec<(String, String)>, BenchError> {
    let s = &suite.scenarios[ep.scenario].scenario;
    let (settings, profile) = setup(suite, ep)?;
    let gate = alpha3_core::gate::GateContext::from_scenario(s, &settings.limits, &profile, 0)
        .map_err(|e| episode_error(ep, &format!("gate context: {e}")))?;
    Ok(px4::airframe_params(gate.vehicle(), gate.limits()))
}

/// The same episode in the built-in world, for the gap (kept if already there), with a policy
/// of its own.
async fn fly_builtin(
    suite: &Suite,
    ep: &PlannedEpisode,
    target: &Autopilots,
    scorer: &Scorer,
) -> Result<(), BenchError> {
    let dir = target.out.join("builtin").join("records");
    if record_path(&dir, &ep.id).exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| BenchError::io(&dir, e))?;
    let mut policy = super::policies::per_episode(suite, ep)?;
    super::episode::fly(suite, ep, policy.as_mut(), &dir, scorer).await?;
    Ok(())
}

/// One episode on the autopilot at `connect`: connect (with its telemetry log), bring the
/// vehicle to the start, fly, score.
async fn fly_one(
    suite: &Suite,
    ep: &PlannedEpisode,
    policy: &mut dyn Policy,
    records: &Path,
    scorer: &Scorer,
    target: &Autopilots,
    connect: &str,
) -> Result<EpisodeResult, BenchError> {
    let s = &suite.scenarios[ep.scenario];
    let p = &suite.policies[ep.policy];
    let config = with_link(&p.config);
    let request = VehicleRequest {
        config: &config,
        connect,
        allow_real_vehicle: false,
        allow_unsigned: false,
        ready_timeout_s: target.ready_timeout_s,
        start_timeout_s: target.start_timeout_s,
        tlog: Some(target.out.join("tlogs").join(format!("{}.tlog", ep.id))),
        left_in_air: LeftInAir::Land,
        battery: BatterySource::Twin,
    };
    let refused = |refusal| BenchError::Refused {
        id: ep.id.clone(),
        refusal,
    };
    let address = check_address(&request).map_err(refused)?;
    let mut connected = connect_vehicle(&request, address, &s.scenario, "  sitl")
        .await
        .map_err(refused)?;
    if connected.landed_first {
        eprintln!(
            "  {}: landed the vehicle an earlier run left in the air",
            ep.id
        );
    }
    let parts = episode_parts(
        &p.config,
        &s.scenario,
        ep.seed,
        Some(&suite.bench),
        connected.anchor.origin,
    );
    let (world, gate, settings) = match parts {
        Ok(parts) => parts,
        Err(e) => {
            connected.link.close().await;
            return Err(episode_error(ep, &e));
        }
    };
    let start = Duration::from_secs(target.start_timeout_s);
    let steps = match bring_to_start(&mut connected.link, &world, &gate, start).await {
        Ok(steps) => steps,
        Err(e) => {
            connected.link.close().await;
            return Err(episode_error(ep, &e));
        }
    };
    if !steps.is_empty() {
        eprintln!("  {}: brought to the start ({})", ep.id, steps.join(", "));
    }
    let band = [gate.limits().min_altitude_m, gate.limits().max_altitude_m];
    let identity = EpisodeIdentity {
        episode_id: &ep.id,
        scenario: &s.key,
        seed: ep.seed,
        metric: scorer.options().metric,
    };
    let part = partial_path(records, &ep.id);
    let mut recorder = Recorder::create(&part)?;
    let mut header = header_event(
        &identity,
        &p.config,
        &initial_state(&s.scenario, &world.snapshot(), band),
    );
    connected.note_now().note_in(&mut header);
    recorder.append(0, header)?;
    let kit = OnboardKit {
        vehicle: connected,
        world,
        gate,
        settings,
        recorder: &mut recorder,
        operator: OperatorSource::World,
        sources: Sources::Simulated,
        swarm: None,
    };
    let OnboardEnd {
        driven,
        end_ms,
        foreign,
        ..
    } = run_onboard(kit, async |side, gate, settings, recorder| {
        // Warmed once by the worker that built it, as in the built-in world.
        run_episode_on(side, &mut *policy, gate, settings, recorder).await
    })
    .await?;
    let age = driven.safety.summary();
    if let Some(dir) = records.parent() {
        driven.safety.write(&dir.join("safety"), &ep.id);
    }
    eprintln!(
        "  {}: telemetry age at the gate p50/p99/max {} ms deciding, {} ms otherwise; \
         ticks late {} ms",
        ep.id,
        age.deciding.telemetry_age_ms.short(0),
        age.calm.telemetry_age_ms.short(0),
        age.calm.tick_late_ms.short(0),
    );
    if let Some(note) = foreign {
        eprintln!("  {}: {note}", ep.id);
    }
    close_record(recorder, &part, records, &ep.id, scorer, end_ms)
}

/// A suite's policies need no `[link]`: the autopilot is then flown with a companion's defaults.
fn with_link(config: &Config) -> Config {
    let mut c = config.clone();
    if c.link.is_none() {
        c.link = Some(LinkConfig::companion_defaults("udpin:0.0.0.0:14540"));
    }
    c
}
