//! Shared helpers for alpha3's end-to-end tests.

use std::path::PathBuf;

/// The project root (the workspace directory).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// `../shared/data` next to the project, where the published reference data lives, or `None`
/// (with the reason printed) when it is absent, so data tests skip instead of failing.
pub fn shared_data() -> Option<PathBuf> {
    let dir = project_root().join("../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: reference data not found at {}", dir.display());
        None
    }
}

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
