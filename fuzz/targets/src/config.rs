//! Config parsing: any TOML text, through [`Config::from_toml`] (parse, then validate) and the
//! `alpha3 validate` pipeline for configs.
//!
//! Invariants: no panic; a config the runtime accepts has only finite numbers (a NaN limit would
//! make every gate comparison false) and survives a serialise-and-read round trip unchanged;
//! `alpha3 validate` finds no problem in a config the runtime accepts.

use crate::bytes::text;
use alpha3_core::config::Config;
use alpha3_core::document::{DocumentKind, check_text};

pub fn run(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let loaded = Config::from_toml(text);
    let problems = check_text(DocumentKind::Config, text);
    let Ok(config) = loaded else { return };
    assert!(
        problems.is_empty(),
        "the runtime accepts a config that `alpha3 validate` refuses: {problems:?}"
    );
    let value = match serde_json::to_value(&config) {
        Ok(v) => v,
        Err(e) => panic!("an accepted config does not serialise: {e}"),
    };
    // serde_json writes a non-finite number as null, so a NaN or an infinity shows up here.
    match serde_json::from_value::<Config>(value) {
        Ok(again) => assert_eq!(
            again, config,
            "an accepted config changes in a round trip (a non-finite number?)"
        ),
        Err(e) => panic!("an accepted config does not read back (a non-finite number?): {e}"),
    }
    let merged = Config::default().overlay(config.clone());
    assert_eq!(merged, config, "overlaying on an empty config changes it");
}
