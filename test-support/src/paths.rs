//! Where the tests find the project, the published reference data, the test model and Python.

use crate::skip::require_or_skip;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The project root (the workspace directory).
pub fn root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest)
}

/// The published reference data: `$ALPHA3_SHARED_DATA` when set, else `../shared/data` next to
/// the project. `None` when it is not a directory, after [`require_or_skip`] (a failure under
/// `CI=true`).
pub fn shared_data() -> Option<PathBuf> {
    let dir = std::env::var_os("ALPHA3_SHARED_DATA")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/data"));
    if dir.is_dir() {
        return Some(dir);
    }
    require_or_skip(
        "reference data",
        &format!(
            "{} is not a directory (the published data lives in ../shared/data; \
             ALPHA3_SHARED_DATA points elsewhere)",
            dir.display()
        ),
    );
    None
}

/// The file `rel` of the reference data ([`shared_data`]); `None` after [`require_or_skip`]
/// when the data or the file is absent.
pub fn shared_file(rel: &str) -> Option<PathBuf> {
    let path = shared_data()?.join(rel);
    if path.is_file() {
        return Some(path);
    }
    require_or_skip(
        "reference file",
        &format!("{} is not a file", path.display()),
    );
    None
}

/// The test model: `$ALPHA3_MODEL` when it names a file, else what `scripts/model-path.sh`
/// prints (the model `scripts/setup.sh` fetched), if that is a file. `None` after
/// [`require_or_skip`] (a failure under `CI=true`).
pub fn test_model() -> Option<PathBuf> {
    let found = model_path();
    if found.is_none() {
        require_or_skip(
            "test model",
            "set ALPHA3_MODEL or run scripts/setup.sh (scripts/model-path.sh finds it)",
        );
    }
    found
}

fn model_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ALPHA3_MODEL").map(PathBuf::from)
        && p.is_file()
    {
        return Some(p);
    }
    let out = Command::new(root().join("scripts/model-path.sh"))
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && p.is_file()).then_some(p)
}

/// Where the project's Python is: `$ALPHA3_PYTHON`, else `.venv/bin/python` (which
/// `scripts/setup.sh` makes, with pymavlink). Not checked: for a caller that probes it.
pub fn python_path() -> PathBuf {
    std::env::var_os("ALPHA3_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".venv/bin/python"))
}

/// The project's Python with pymavlink ([`python_path`]); panics when it is absent, since
/// `scripts/setup.sh` always makes it.
pub fn python() -> PathBuf {
    let p = python_path();
    assert!(
        p.exists(),
        "no Python at {} — run scripts/setup.sh (it installs pymavlink into .venv)",
        p.display()
    );
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_workspace() {
        assert!(root().join("Cargo.toml").is_file());
        assert!(root().join("test-support/Cargo.toml").is_file());
    }
}
