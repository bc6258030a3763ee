//! What alpha3's tests share across crates: where the project and its reference data are, the
//! test model and the project's Python, and [`require_or_skip`]: a test whose data, model or
//! peer is absent skips on a developer machine and fails under `CI=true`.
//!
//! A dev-dependency only; it depends on no alpha3 crate, so any crate's tests can use it.

mod llama_server;
mod paths;
mod skip;

pub use llama_server::{LlamaServer, free_port};
pub use paths::{python, python_path, root, shared_data, shared_file, test_model};
pub use skip::{in_ci, require_or_skip};
