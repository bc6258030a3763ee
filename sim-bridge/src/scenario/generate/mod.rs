//! A seeded generator of UAVBench-shaped scenarios across mission types, weather, airspace
//! density, traffic, faults and network stress. Same spec, same scenario, byte for byte once
//! serialised: every number is drawn from one [`SimRng`] stream and rounded to a short decimal.

mod airframe;
mod conditions;
mod layout;
mod text;

use crate::rng::SimRng;
use alpha3_core::scenario::{Daa, Landing, Mission, Scenario, SimSettings, Spawn};
use serde_json::{Map, Value, json};

/// The mission families of UAVBench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissionType {
    Inspection,
    Delivery,
    SearchAndRescue,
    Mapping,
    Surveillance,
}

impl MissionType {
    pub const ALL: [MissionType; 5] = [
        MissionType::Inspection,
        MissionType::Delivery,
        MissionType::SearchAndRescue,
        MissionType::Mapping,
        MissionType::Surveillance,
    ];

    /// The `mission.type` string.
    pub fn as_str(self) -> &'static str {
        match self {
            MissionType::Inspection => "inspection",
            MissionType::Delivery => "delivery",
            MissionType::SearchAndRescue => "search_and_rescue",
            MissionType::Mapping => "mapping",
            MissionType::Surveillance => "surveillance",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// Weather families; each sets ranges for wind, gusts, visibility and phenomena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeatherKind {
    Clear,
    Windy,
    Rain,
    Fog,
    Snow,
    Gusty,
}

impl WeatherKind {
    pub const ALL: [WeatherKind; 6] = [
        WeatherKind::Clear,
        WeatherKind::Windy,
        WeatherKind::Rain,
        WeatherKind::Fog,
        WeatherKind::Snow,
        WeatherKind::Gusty,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WeatherKind::Clear => "clear",
            WeatherKind::Windy => "windy",
            WeatherKind::Rain => "rain",
            WeatherKind::Fog => "fog",
            WeatherKind::Snow => "snow",
            WeatherKind::Gusty => "gusty",
        }
    }
}

/// How crowded the airspace is: no-fly zones, moving zones, traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Density {
    Sparse,
    Moderate,
    Dense,
}

impl Density {
    pub const ALL: [Density; 3] = [Density::Sparse, Density::Moderate, Density::Dense];

    pub fn as_str(self) -> &'static str {
        match self {
            Density::Sparse => "sparse",
            Density::Moderate => "moderate",
            Density::Dense => "dense",
        }
    }
}

/// How hard the 6G link is: weakest signal and comms loss windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkStress {
    Low,
    Moderate,
    High,
    Severe,
}

impl NetworkStress {
    pub const ALL: [NetworkStress; 4] = [
        NetworkStress::Low,
        NetworkStress::Moderate,
        NetworkStress::High,
        NetworkStress::Severe,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NetworkStress::Low => "low",
            NetworkStress::Moderate => "moderate",
            NetworkStress::High => "high",
            NetworkStress::Severe => "severe",
        }
    }
}

/// What to generate; every `None` is drawn from the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSpec {
    pub seed: u64,
    /// The scenario's `name`; derived from its content when `None`.
    pub name: Option<String>,
    pub mission: Option<MissionType>,
    pub weather: Option<WeatherKind>,
    pub density: Option<Density>,
    pub stress: Option<NetworkStress>,
    /// Number of faults (0–2 drawn when `None`).
    pub faults: Option<usize>,
}

impl ScenarioSpec {
    /// Everything drawn from `seed`.
    pub fn from_seed(seed: u64) -> Self {
        Self {
            seed,
            name: None,
            mission: None,
            weather: None,
            density: None,
            stress: None,
            faults: None,
        }
    }
}

/// Rounds to `decimals` places (so files hold short, exact-looking numbers).
pub(crate) fn round_to(x: f64, decimals: i32) -> f64 {
    // Powers of ten by multiplication: exact, and unlike `powi` the same on every machine.
    let k = (0..decimals.unsigned_abs()).fold(1.0, |k, _| k * 10.0);
    if decimals < 0 {
        (x / k).round() * k
    } else {
        (x * k).round() / k
    }
}

fn pick<T: Copy>(rng: &mut SimRng, items: &[T], fallback: T) -> T {
    rng.pick(items).copied().unwrap_or(fallback)
}

/// Generates one scenario.
pub fn generate_scenario(spec: &ScenarioSpec) -> Scenario {
    let mut rng = SimRng::stream(spec.seed, "generator");
    let mission = spec
        .mission
        .unwrap_or_else(|| pick(&mut rng, &MissionType::ALL, MissionType::Inspection));
    let weather = spec
        .weather
        .unwrap_or_else(|| pick(&mut rng, &WeatherKind::ALL, WeatherKind::Clear));
    let density = spec
        .density
        .unwrap_or_else(|| pick(&mut rng, &Density::ALL, Density::Moderate));
    let stress = spec
        .stress
        .unwrap_or_else(|| pick(&mut rng, &NetworkStress::ALL, NetworkStress::Low));

    let site = layout::draw_site(&mut rng);
    let mut uav = airframe::draw_airframe(&mut rng, mission, site.band);
    let route = layout::draw_route(&mut rng, mission, &site);
    let landing_sites = layout::draw_landing_sites(&mut rng, &site, &route);
    let zones = layout::draw_zones(&mut rng, density, &site, &route, &landing_sites);
    let traffic = layout::draw_traffic(&mut rng, density, &site, &route);
    let obstacles = layout::draw_obstacles(&mut rng, density, &site, &route);
    let cruise_mps = round_to(uav.max_speed_mps * 0.6, 1);
    let route_m = layout::route_length_m(&route, &landing_sites);
    let time_budget_s = conditions::time_budget_s(route_m, cruise_mps);

    let fault_count = spec.faults.unwrap_or_else(|| match rng.uniform() {
        u if u < 0.4 => 0,
        u if u < 0.85 => 1,
        _ => 2,
    });
    let payload_ids = airframe::payload_ids(&uav);
    let faults = conditions::draw_faults(&mut rng, fault_count, time_budget_s, &payload_ids);
    let environment =
        conditions::draw_environment(&mut rng, weather, &site, stress, &faults, uav.max_speed_mps);
    let top_wind = environment
        .wind_profile
        .iter()
        .map(|l| l.wind_mps)
        .fold(environment.weather.wind_mps, f64::max);
    airframe::size_battery(&mut uav, route_m, cruise_mps + top_wind);
    let comms = conditions::draw_comms(&mut rng, stress, time_budget_s);
    let swarm = conditions::draw_swarm(&mut rng, mission);
    let daa = Daa {
        sep_threshold_m: pick(&mut rng, &[20.0, 25.0, 30.0], 25.0),
        ttc_threshold_s: pick(&mut rng, &[6.0, 8.0, 10.0], 8.0),
        extra: Map::new(),
    };

    let dt = 0.02;
    let mut scenario = Scenario {
        name: String::new(),
        sim: SimSettings {
            dt,
            duration_steps: (time_budget_s / dt).round() as u64,
            policy_frequency: Some(20.0),
            extra: Map::new(),
        },
        uav,
        environment,
        airspace: layout::airspace(&site, zones),
        spawn: Spawn {
            xyz: route.spawn,
            yaw_deg: route.yaw_deg,
            extra: Map::new(),
        },
        mission: Mission {
            kind: mission.as_str().to_string(),
            waypoints: route.waypoints.clone(),
            pattern: Some(route.pattern.to_string()),
            time_budget_s,
            extra: [("runway_required".to_string(), Value::Bool(false))]
                .into_iter()
                .collect(),
        },
        landing: Some(Landing {
            emergency_sites: landing_sites,
            extra: Map::new(),
        }),
        traffic,
        faults,
        comms: Some(comms),
        daa: Some(daa),
        extra: Map::new(),
    };
    let extra = &mut scenario.extra;
    extra.insert("moving_obstacles".into(), Value::Array(obstacles));
    extra.insert("swarm".into(), swarm);
    extra.insert("controls".into(), controls());
    extra.insert("metrics".into(), text::metrics());
    extra.insert("required".into(), text::required());
    extra.insert("_hints".into(), text::hints());
    let labels = text::Labels::of(&scenario, site.kind, weather, density, stress);
    scenario.name = spec.name.clone().unwrap_or_else(|| {
        format!(
            "{}_{}_{}_{:04x}",
            mission.as_str(),
            site.kind,
            weather.as_str(),
            spec.seed & 0xffff
        )
    });
    let description = text::description(&scenario, site.kind, weather, &labels);
    let extra = &mut scenario.extra;
    extra.insert("description".into(), json!({ "text": description }));
    extra.insert("label".into(), labels.label_json());
    extra.insert("benchmark_tags".into(), labels.tags_json());
    scenario
}

fn controls() -> Value {
    json!({
        "mode": "discrete",
        "actions": ["hold", "fwd", "back", "left", "right", "up", "down", "yaw_left", "yaw_right"]
    })
}

/// The scenario as the checked-in file holds it: pretty JSON with a final newline.
pub fn scenario_to_json(scenario: &Scenario) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(scenario)?;
    text.push('\n');
    Ok(text)
}
