//! Errors of the world: scenarios that cannot be read or make no physical sense.

use std::path::PathBuf;

/// Why a scenario could not become a world.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("scenario is not valid JSON or misses a field: {0}")]
    Parse(#[from] serde_json::Error),
    #[error("scenario breaks {count} rule(s): {first}")]
    Invalid {
        count: usize,
        /// The first problem, `pointer: message`.
        first: String,
    },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}
