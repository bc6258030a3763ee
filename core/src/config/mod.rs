//! Configuration: TOML files made of sections (`[vehicle]`, `[limits]`, `[slices]`, `[policy]`,
//! `[link]`, `[watchdog]`, `[record]`, `[bench]`). A file may hold any subset; files compose.
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
