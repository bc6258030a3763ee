//! Configuration: TOML files made of sections (`[vehicle]`, `[limits]`, `[slices]`, `[policy]`,
//! `[link]`, `[watchdog]`, `[record]`, `[bench]`, `[forecast]`). A file may hold any subset;
//! files compose.
//! Every key carries its unit in its name, unknown keys are rejected, and [`Config::validate`]
//! applies the cross-field rules after parsing.

mod address;
mod sections;
mod validate;

pub use address::{Address, AddressError};
pub use sections::*;
pub use validate::ConfigProblem;

/// Errors from reading a configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Toml(#[from] toml::de::Error),
    #[error("invalid configuration: {}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<ConfigProblem>),
}

impl Config {
    /// Lays `other` over `self`: every section `other` has replaces the same section here.
    /// Files compose this way (base config, then vehicle, slices, policy files).
    pub fn overlay(self, other: Config) -> Config {
        Config {
            vehicle: other.vehicle.or(self.vehicle),
            limits: other.limits.or(self.limits),
            slices: other.slices.or(self.slices),
            policy: other.policy.or(self.policy),
            link: other.link.or(self.link),
            watchdog: other.watchdog.or(self.watchdog),
            record: other.record.or(self.record),
            bench: other.bench.or(self.bench),
            forecast: other.forecast.or(self.forecast),
        }
    }

    /// Parses TOML text, then validates it.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text)?;
        let problems = config.validate();
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Invalid(problems))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = include_str!("../../../configs/alpha3.toml");

    #[test]
    fn every_example_config_parses_and_validates() {
        for (name, text) in [
            ("alpha3.toml", FULL),
            (
                "quad-x500",
                include_str!("../../../configs/vehicles/quad-x500.toml"),
            ),
            (
                "hex",
                include_str!("../../../configs/vehicles/hex-inspection.toml"),
            ),
            (
                "slices",
                include_str!("../../../configs/slices/6g-default.toml"),
            ),
            (
                "scripted",
                include_str!("../../../configs/policies/scripted.toml"),
            ),
            (
                "llama",
                include_str!("../../../configs/policies/llama-local.toml"),
            ),
            (
                "openai",
                include_str!("../../../configs/policies/openai-remote.toml"),
            ),
            (
                "replay",
                include_str!("../../../configs/policies/replay-published.toml"),
            ),
            ("short", include_str!("../../../configs/bench/short.toml")),
            (
                "suite-50",
                include_str!("../../../configs/bench/suite-50.toml"),
            ),
        ] {
            Config::from_toml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let c = Config::from_toml(FULL).unwrap();
        assert_eq!(c.limits.unwrap().return_altitude_m, 60.0);
        assert_eq!(c.link.unwrap().autopilot, AutopilotKind::Auto);
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name() {
        let e =
            Config::from_toml("[limits]\nmin_altitude_m = 1.0\naltitude_max = 5.0\n").unwrap_err();
        assert!(e.to_string().contains("altitude_max"), "{e}");
        let e = Config::from_toml("[gate]\nx = 1\n").unwrap_err();
        assert!(e.to_string().contains("gate"), "{e}");
    }

    #[test]
    fn return_altitude_must_lie_in_the_band() {
        let e =
            Config::from_toml(&FULL.replace("return_altitude_m = 60.0", "return_altitude_m = 5.0"))
                .unwrap_err();
        let ConfigError::Invalid(problems) = e else {
            panic!("{e}")
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].path, "limits.return_altitude_m");
        assert_eq!(problems[0].rule, "return_altitude_in_band");
        assert_eq!(problems[0].pointer(), "/limits/return_altitude_m");
    }

    #[test]
    fn cross_field_rules_are_each_enforced() {
        for (from, to, rule) in [
            (
                "hard_reserve_battery_pct = 15.0",
                "hard_reserve_battery_pct = 30.0",
                "hard_reserve_below_reserve",
            ),
            (
                "min_altitude_m = 10.0",
                "min_altitude_m = 130.0",
                "altitude_band",
            ),
            (
                "cruise_speed_mps = 8.0",
                "cruise_speed_mps = 13.0",
                "within_max_speed",
            ),
            ("max_attempts = 1", "max_attempts = 4", "attempts_1_to_3"),
            (
                "backend = \"scripted\"",
                "backend = \"llama\"",
                "backend_section",
            ),
            (
                "connect = \"udpin:127.0.0.1:14540\"",
                "connect = \"udp:14540\"",
                "address",
            ),
            (
                "require_signing = false",
                "require_signing = true",
                "signing_key",
            ),
            (
                "hold_setpoint_hz = 10.0",
                "hold_setpoint_hz = 1.0",
                "offboard_rate",
            ),
            (
                "max_altitude_m = 120.0",
                "max_altitude_m = 12.0",
                "band_holds_stopping_distance",
            ),
        ] {
            assert!(FULL.contains(from), "{from}");
            let e = Config::from_toml(&FULL.replacen(from, to, 1)).unwrap_err();
            let ConfigError::Invalid(problems) = e else {
                panic!("{rule}: {e}")
            };
            assert!(
                problems.iter().any(|p| p.rule == rule),
                "{rule}: {problems:?}"
            );
        }
    }

    #[test]
    fn overlay_replaces_whole_sections() {
        let base = Config::from_toml(FULL).unwrap();
        let hex = Config::from_toml(include_str!(
            "../../../configs/vehicles/hex-inspection.toml"
        ))
        .unwrap();
        let llama =
            Config::from_toml(include_str!("../../../configs/policies/llama-local.toml")).unwrap();
        let c = base.clone().overlay(hex).overlay(llama);
        assert_eq!(c.vehicle.as_ref().unwrap().name, "hex-inspection");
        assert_eq!(c.policy.as_ref().unwrap().backend, PolicyBackend::Llama);
        assert_eq!(c.limits, base.limits);
        assert!(c.validate().is_empty(), "{:?}", c.validate());
    }

    #[test]
    fn a_type_error_names_the_key() {
        let e =
            Config::from_toml(&FULL.replace("max_speed_mps = 12.0", "max_speed_mps = \"fast\""))
                .unwrap_err();
        assert!(e.to_string().contains("max_speed_mps"), "{e}");
    }
}
