//! The first line of every flight record: what ran (episode, scenario, seed, policy, model),
//! under which versions (operator, metric, alpha3) and with which settings — the effective
//! configuration plus the `initial_state` the policy was shown, which the scorer reads to
//! ground the first decision and to know the airspace. One builder, so records written by
//! `bench`, `fly`, `sitl` and the tests are scored alike.

use alpha3_core::airspace::Area;
use alpha3_core::config::{Config, PolicyBackend, PolicyConfig};
use alpha3_core::episode::{Energy, Env, EpisodeAirspace, PolicyState, UavState, WorldState};
use alpha3_core::protocol::tools::Pose;
use alpha3_core::record::Event;
use alpha3_core::scenario::Scenario;
use alpha3_core::snapshot::VehicleSnapshot;
use serde_json::{Map, Value};

/// What identifies one episode.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeIdentity<'a> {
    pub episode_id: &'a str,
    /// The scenario's name (pass^k groups episodes by it).
    pub scenario: &'a str,
    pub seed: u64,
    /// The metric the episode is scored under.
    pub metric: alpha3_core::score::MetricVersion,
}

/// The record's [`Event::Header`]: `config` is the effective configuration, its `[policy]`
/// section names the policy and the model, and `initial_state` is written into the config
/// JSON under that key.
pub fn header_event(id: &EpisodeIdentity<'_>, config: &Config, initial: &WorldState) -> Event {
    let policy = config.policy.as_ref();
    let mut json = serde_json::to_value(config).unwrap_or_else(|_| Value::Object(Map::new()));
    if let (Value::Object(map), Ok(state)) = (&mut json, serde_json::to_value(initial)) {
        map.insert("initial_state".into(), state);
    }
    Event::Header {
        episode_id: id.episode_id.to_string(),
        scenario: id.scenario.to_string(),
        seed: id.seed,
        policy: policy.map_or_else(|| "none".to_string(), |p| p.name.clone()),
        model: policy.and_then(model_of),
        operator_version: alpha3_sim::OPERATOR_VERSION.to_string(),
        metric_version: id.metric.as_str().to_string(),
        alpha3_version: env!("CARGO_PKG_VERSION").to_string(),
        config: json,
    }
}

/// The model a policy runs, for reports: the GGUF file's stem for a local model (the
/// environment variable's path when set, as the loader does), the endpoint's model name for an
/// OpenAI-compatible one; none for the scripted agent and replays.
pub fn model_of(policy: &PolicyConfig) -> Option<String> {
    match policy.backend {
        PolicyBackend::Llama => {
            let l = policy.llama.as_ref()?;
            let path = l
                .model_path_env
                .as_ref()
                .and_then(|v| std::env::var(v).ok())
                .filter(|p| !p.is_empty())
                .or_else(|| l.model_path.clone())?;
            std::path::Path::new(&path)
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string)
        }
        PolicyBackend::Openai => policy.openai.as_ref().map(|o| o.model.clone()),
        PolicyBackend::Scripted
        | PolicyBackend::Replay
        | PolicyBackend::Hover
        | PolicyBackend::Random => None,
    }
}

/// The initial state of a closed-loop episode in the published episodes' shape: environment,
/// airspace (band, geofence, no-fly zones, landing sites), the vehicle as it starts (pose,
/// speed limit, battery, sensors) and the band the gate enforces (`policy.alt_bounds`).
pub fn initial_state(
    scenario: &Scenario,
    start: &VehicleSnapshot,
    gate_band_m: [f64; 2],
) -> WorldState {
    let air = &scenario.airspace;
    let weather = &scenario.environment.weather;
    let mut env_extra = Map::new();
    if let Some(kind) = &scenario.environment.airspace {
        env_extra.insert("airspace".into(), Value::from(kind.as_str()));
    }
    let mut air_extra = Map::new();
    if let Some(l) = &scenario.landing {
        let sites: Vec<Value> = l
            .emergency_sites
            .iter()
            .map(|s| Value::from(s.to_vec()))
            .collect();
        air_extra.insert("emergency_sites".into(), Value::Array(sites));
    }
    let no_fly: Vec<Area> = air
        .no_fly_zones
        .iter()
        .chain(&air.no_fly_zones_dynamic)
        .cloned()
        .collect();
    let mut uav_extra = Map::new();
    let sensors: Map<String, Value> = alpha3_sim::scenario::sensor_names(scenario)
        .into_iter()
        .map(|s| (s, Value::from("ok")))
        .collect();
    if !sensors.is_empty() {
        uav_extra.insert("sensors".into(), Value::Object(sensors));
    }
    WorldState {
        domain: Some("uav".into()),
        time_s: Some(start.time_ms as f64 / 1000.0),
        env: Some(Env {
            weather: weather
                .extra
                .get("visibility")
                .and_then(Value::as_str)
                .map(|v| format!("visibility_{v}")),
            wind_mps: Some(weather.wind_mps),
            wind_dir_deg: Some(weather.wind_dir_deg),
            extra: env_extra,
        }),
        airspace: Some(EpisodeAirspace {
            alt_bounds: Some([air.altitude_agl_min_m, air.altitude_agl_max_m]),
            geofence: air.geofence.clone(),
            no_fly_zones: no_fly,
            extra: air_extra,
        }),
        uav: Some(UavState {
            pose: Some(Pose {
                x: start.position.x,
                y: start.position.y,
                z: start.position.z,
                yaw: start.yaw_deg,
            }),
            speed_mps: Some(scenario.uav.max_speed_mps),
            energy: Some(Energy {
                battery_pct: Some(start.battery.remaining_pct),
                extra: Map::new(),
            }),
            extra: uav_extra,
        }),
        policy: Some(PolicyState {
            alt_bounds: Some(gate_band_m),
            extra: Map::new(),
        }),
        safety_flags: None,
        extra: Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::record::{RECORD_VERSION, RecordLine};
    use alpha3_core::score::episode_from_record;

    fn scenario() -> Scenario {
        let text = include_str!("../../configs/scenarios/sc-0000.json");
        alpha3_sim::scenario::parse_scenario(text).unwrap()
    }

    #[test]
    fn the_header_carries_what_the_scorer_reads() {
        let s = scenario();
        let world = alpha3_sim::World::new(s.clone(), alpha3_sim::WorldOptions::seeded(1));
        let config = Config::from_toml(include_str!("../../configs/alpha3.toml")).unwrap();
        let initial = initial_state(&s, &world.snapshot(), [10.0, 120.0]);
        let id = EpisodeIdentity {
            episode_id: "ep-1",
            scenario: &s.name,
            seed: 1,
            metric: alpha3_core::score::MetricVersion::V1,
        };
        let event = header_event(&id, &config, &initial);
        let Event::Header {
            config: json,
            policy,
            operator_version,
            ..
        } = &event
        else {
            panic!("{event:?}")
        };
        assert_eq!(policy, &config.policy.as_ref().unwrap().name);
        assert_eq!(operator_version, alpha3_sim::OPERATOR_VERSION);
        assert!(json.pointer("/limits/hard_reserve_battery_pct").is_some());
        let record = alpha3_core::record::ParsedRecord {
            lines: vec![RecordLine {
                v: RECORD_VERSION,
                seq: 0,
                t_ms: 0,
                event,
            }],
            torn_tail: false,
        };
        let built = episode_from_record(&record);
        assert_eq!(built.episode.initial_state, initial);
        assert_eq!(built.scenario.as_deref(), Some(s.name.as_str()));
        let fence = &built
            .episode
            .initial_state
            .airspace
            .as_ref()
            .unwrap()
            .geofence;
        assert_eq!(fence, &s.airspace.geofence);
    }
}
