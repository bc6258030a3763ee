//! The JSON Schemas checked in under `configs/schema/` are the ones the types generate.
//! Regenerate with: ALPHA3_BLESS=1 cargo nextest run -p alpha3-tests --test schema_current

#![allow(clippy::unwrap_used)]

use alpha3_core::schema::{all_schemas, render};
use alpha3_test_support::root;

const REGENERATE: &str = "ALPHA3_BLESS=1 cargo nextest run -p alpha3-tests --test schema_current";

#[test]
fn checked_in_schemas_are_current() {
    let dir = root().join("configs/schema");
    let bless = std::env::var_os("ALPHA3_BLESS").is_some();
    let mut stale = Vec::new();
    let expected: Vec<_> = all_schemas();
    for (name, doc) in &expected {
        let path = dir.join(name);
        let want = render(doc);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(have) if have == want => {}
            Ok(_) => stale.push(format!("{name} differs")),
            Err(_) => stale.push(format!("{name} is missing")),
        }
    }
    // No leftover schema files that the types no longer generate.
    let names: std::collections::BTreeSet<String> =
        expected.iter().map(|(n, _)| n.clone()).collect();
    for f in alpha3_tests::json_files(&dir) {
        let rel = f
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !names.contains(&rel) {
            if bless {
                std::fs::remove_file(&f).unwrap();
            } else {
                stale.push(format!("{rel} is no longer generated"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "configs/schema/ is out of date ({}).\nRegenerate with:\n    {REGENERATE}",
        stale.join(", ")
    );
}

#[test]
fn every_checked_in_schema_is_a_valid_2020_12_schema() {
    for (name, doc) in all_schemas() {
        if name == "mcp-tools-list.json" {
            continue;
        }
        assert!(jsonschema::draft202012::meta::is_valid(&doc), "{name}");
    }
}
