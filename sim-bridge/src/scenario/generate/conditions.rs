//! The conditions: weather and wind profile, GNSS and EM environment, faults with their times,
//! comms loss windows by network stress, the swarm block and the time budget.

use super::layout::Site;
use super::{MissionType, NetworkStress, WeatherKind, round_to};
use crate::rng::SimRng;
use alpha3_core::scenario::{Comms, Environment, Fault, Weather, WindLayer};
use serde_json::{Map, Value, json};

/// Relative growth of the wind with height, per metre.
pub(super) const PROFILE_GROWTH_PER_M: f64 = 0.0026;

/// Time budget: the route at half the cruise speed plus two minutes, in 30 s steps.
pub(super) fn time_budget_s(route_m: f64, cruise_mps: f64) -> f64 {
    let t = route_m / (0.5 * cruise_mps) + 120.0;
    (t / 30.0).ceil() * 30.0
}

pub(super) fn draw_environment(
    rng: &mut SimRng,
    weather: WeatherKind,
    site: &Site,
    stress: NetworkStress,
    faults: &[Fault],
    max_speed_mps: f64,
) -> Environment {
    let (wind, gust, visibility, phenomena): (f64, f64, &str, &[&str]) = match weather {
        WeatherKind::Clear => (rng.range(0.0, 5.0), rng.range(0.0, 2.0), "high", &[]),
        WeatherKind::Windy => (
            rng.range(8.0, 14.0),
            rng.range(3.0, 7.0),
            "high",
            &["strong_wind"],
        ),
        WeatherKind::Rain => (
            rng.range(3.0, 9.0),
            rng.range(1.0, 4.0),
            "medium",
            &["light_rain"],
        ),
        WeatherKind::Fog => (
            rng.range(0.0, 5.0),
            rng.range(0.0, 2.0),
            "low",
            &["fog", "low_visibility"],
        ),
        WeatherKind::Snow => (
            rng.range(2.0, 8.0),
            rng.range(1.0, 4.0),
            "medium",
            &["snow"],
        ),
        WeatherKind::Gusty => (
            rng.range(5.0, 10.0),
            rng.range(5.0, 9.0),
            "high",
            &["gusts", "turbulence"],
        ),
    };
    // Keep the aircraft able to make headway at the top of the band: the wind there stays
    // under 60 % of its airspeed.
    let top_factor = 1.0 + PROFILE_GROWTH_PER_M * site.band.1;
    let wind = round_to(wind.min(0.6 * max_speed_mps / top_factor), 1);
    let gust = gust.min(0.25 * max_speed_mps);
    let dir = round_to(rng.range(0.0, 72.0), 0) * 5.0;
    let (lo, hi) = site.band;
    // Wind grows with height (UAVBench's example: +26 % at 100 m); it veers 5° a layer.
    let layers = [0.0, round_to((lo + hi) / 2.0, 0), hi];
    let wind_profile = layers
        .iter()
        .enumerate()
        .map(|(i, &alt)| WindLayer {
            alt_m: alt,
            wind_mps: round_to(wind * (1.0 + PROFILE_GROWTH_PER_M * alt), 1),
            dir_deg: (dir + 5.0 * i as f64) % 360.0,
            extra: Map::new(),
        })
        .collect();
    let jammed = faults.iter().any(|f| f.kind == "gnss_jamming");
    let mut extra = Map::new();
    let weather_extra: Map<String, Value> = [
        ("visibility".to_string(), json!(visibility)),
        ("phenomena".to_string(), json!(phenomena)),
    ]
    .into_iter()
    .collect();
    extra.insert(
        "gnss_multipath".into(),
        json!(matches!(site.kind, "urban" | "harbor" | "industrial") && rng.chance(0.7)),
    );
    let jam = if jammed {
        rng.range(-105.0, -95.0)
    } else {
        rng.range(-130.0, -120.0)
    };
    extra.insert("gnss_jam_dbm".into(), json!(round_to(jam, 0)));
    extra.insert(
        "em_interference".into(),
        json!(
            matches!(stress, NetworkStress::High | NetworkStress::Severe)
                || site.kind == "industrial"
        ),
    );
    Environment {
        airspace: Some(site.kind.to_string()),
        weather: Weather {
            wind_mps: wind,
            wind_dir_deg: dir,
            gust_mps: round_to(gust, 1),
            extra: weather_extra,
        },
        wind_profile,
        extra,
    }
}

pub(super) fn draw_faults(
    rng: &mut SimRng,
    count: usize,
    budget_s: f64,
    payloads: &[String],
) -> Vec<Fault> {
    let kinds = [
        "motor_failure",
        "gnss_jamming",
        "battery_sag",
        "sensor_offline",
    ];
    let mut faults: Vec<Fault> = (0..count)
        .map(|_| {
            let kind = rng.pick(&kinds).copied().unwrap_or("battery_sag");
            let t_s = round_to(rng.range(0.2, 0.7) * budget_s / 5.0, 0) * 5.0;
            let (duration_s, severity) = match kind {
                "motor_failure" => (0.0, rng.range(0.2, 0.6)),
                "gnss_jamming" => (rng.range(15.0, 60.0), rng.range(0.5, 1.0)),
                "battery_sag" => (0.0, rng.range(0.1, 0.4)),
                _ => (rng.range(30.0, 120.0), 1.0),
            };
            let mut extra = Map::new();
            if kind == "sensor_offline"
                && let Some(p) = rng.pick(payloads)
            {
                extra.insert("sensor".into(), json!(p));
            }
            Fault {
                t_s,
                kind: kind.to_string(),
                duration_s: round_to(duration_s, 0),
                severity: round_to(severity, 2),
                extra,
            }
        })
        .collect();
    faults.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
    faults
}

pub(super) fn draw_comms(rng: &mut SimRng, stress: NetworkStress, budget_s: f64) -> Comms {
    let (rssi, windows, len): (f64, u64, (f64, f64)) = match stress {
        NetworkStress::Low => (rng.range(-80.0, -70.0), 0, (0.0, 0.0)),
        NetworkStress::Moderate => (rng.range(-92.0, -85.0), rng.int_in(0, 1), (5.0, 10.0)),
        NetworkStress::High => (rng.range(-102.0, -95.0), 1, (10.0, 20.0)),
        NetworkStress::Severe => (rng.range(-110.0, -104.0), 2, (10.0, 25.0)),
    };
    let mut loss_windows: Vec<[f64; 2]> = (0..windows)
        .map(|i| {
            // Spread windows over the budget so they do not overlap.
            let slot = budget_s / (windows as f64 + 1.0);
            let start = round_to(slot * (i as f64 + rng.range(0.6, 1.2)), 0);
            [start, start + round_to(rng.range(len.0, len.1), 0)]
        })
        .collect();
    loss_windows.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let extra: Map<String, Value> = [
        ("uplink_ok".to_string(), json!(loss_windows.is_empty())),
        ("downlink_ok".to_string(), json!(true)),
        ("rssi_dbm_min".to_string(), json!(round_to(rssi, 0))),
    ]
    .into_iter()
    .collect();
    Comms {
        loss_windows,
        extra,
    }
}

pub(super) fn draw_swarm(rng: &mut SimRng, mission: MissionType) -> Value {
    let can = matches!(
        mission,
        MissionType::SearchAndRescue | MissionType::Mapping | MissionType::Surveillance
    );
    if can && rng.chance(0.3) {
        let size = rng.int_in(2, 3);
        let roles: Vec<&str> = (0..size)
            .map(|i| if i == 0 { "leader" } else { "follower" })
            .collect();
        json!({ "enabled": true, "size": size, "roles": roles, "inter_uav_sep_min_m": 25.0 })
    } else {
        json!({ "enabled": false, "size": 1, "roles": ["leader"], "inter_uav_sep_min_m": 25.0 })
    }
}
