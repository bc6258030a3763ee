//! Shared helpers for alpha3's end-to-end tests (the project's paths and the reference data are
//! `alpha3_test_support`'s).

use std::path::PathBuf;

/// Every `*.json` file under `dir`, recursively, sorted (hidden folders included).
pub fn json_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
