//! `alpha3 check --plan` in the forecast wind: a plan file carries no weather, so the config's
//! `[forecast]` (or `--wind-mps`/`--wind-from-deg`/`--gust-mps`) is the wind every leg is judged
//! in — ground speed, time and the energy to finish and come home with the reserve. The same
//! plan passes in still air, costs more in a moderate wind, and is refused item by item when
//! the wind leaves too little ground speed; a forecast that is a unit mistake is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod plan_support;

use plan_support::{check, plan};
use std::path::{Path, PathBuf};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_alpha3"))
}

fn config() -> PathBuf {
    alpha3_test_support::root().join("configs/alpha3.toml")
}

fn checked(config: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let p = plan("zurich-detour.plan");
    let mut args = vec!["--plan", p.to_str().unwrap()];
    args.extend_from_slice(extra);
    check(&bin(), config, &args)
}

fn energy_wh(answer: &serde_json::Value) -> f64 {
    answer["check"]["energy_wh"].as_f64().unwrap()
}

#[test]
fn the_forecast_wind_is_what_the_whole_mission_is_judged_in() {
    let (code, still) = checked(&config(), &[]);
    assert_eq!(code, 0, "{still}");
    assert!(still["forecast"].is_null(), "{still}");
    assert!(
        still["wind"].as_str().unwrap().starts_with("still air"),
        "{still}"
    );

    // A moderate wind: still flyable, but the legs into it cost time and energy.
    let (code, windy) = checked(&config(), &["--wind-mps", "10", "--wind-from-deg", "200"]);
    assert_eq!(code, 0, "{windy}");
    assert_eq!(windy["forecast"]["wind_mps"], 10.0);
    assert!(
        energy_wh(&windy) > 1.3 * energy_wh(&still),
        "{} Wh in the wind, {} Wh in still air",
        energy_wh(&windy),
        energy_wh(&still)
    );

    // As strong as the airframe's top speed: the legs into it are refused, by plan item.
    let (code, strong) = checked(&config(), &["--wind-mps", "12", "--wind-from-deg", "200"]);
    assert_eq!(code, 1, "{strong}");
    let refused = plan_support::refusals(&strong);
    assert!(
        refused.contains(&(Some(4), "gate.energy.wind".to_string())),
        "{refused:?}"
    );

    // The config's [forecast] is the same wind as the flags.
    let dir = tempfile::tempdir().unwrap();
    let with_forecast = dir.path().join("alpha3.toml");
    let text = std::fs::read_to_string(config()).unwrap()
        + "\n[forecast]\nwind_mps = 12.0\nwind_from_deg = 200.0\ngust_mps = 2.0\n";
    std::fs::write(&with_forecast, text).unwrap();
    let (code, from_config) = checked(&with_forecast, &[]);
    assert_eq!(code, 1, "{from_config}");
    assert_eq!(plan_support::refusals(&from_config), refused);
    assert_eq!(from_config["forecast"]["gust_mps"], 2.0);
}

#[test]
fn a_forecast_in_the_wrong_unit_is_refused() {
    // 60 "m/s" is a km/h figure: refused before anything is judged.
    let out = std::process::Command::new(bin())
        .args(["check", "--config"])
        .arg(config())
        .arg("--plan")
        .arg(plan("zurich-detour.plan"))
        .args(["--wind-mps", "60"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("forecast.wind_mps"), "{stderr}");
}
