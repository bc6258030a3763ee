//! One loaded model per GGUF file in the process, shared by every worker that names it (a
//! bench runs several, `perf` a few): the weights are mapped once and the vocabulary's
//! llguidance token trie built once, so each further worker adds only its own context — its
//! KV cache and compute buffers (issue 31: about 600 MB resident per worker when each loaded
//! its own). Freed with the last worker that holds it.

use super::guide::factory;
use super::types::LlamaError;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llguidance::ParserFactory;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// A model and the parser factory over its vocabulary.
pub(super) struct Loaded {
    pub model: Arc<LlamaModel>,
    pub factory: Arc<ParserFactory>,
}

type Held = (PathBuf, Weak<LlamaModel>, Weak<ParserFactory>);

static LOADED: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// The model at `path` as another worker already holds it, else loaded now. Loads are
/// serialised (a second worker waits for the first one's load, then shares it).
pub(super) fn load(backend: &LlamaBackend, path: &Path) -> Result<Loaded, LlamaError> {
    let mut held = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
    held.retain(|(_, m, f)| m.strong_count() > 0 && f.strong_count() > 0);
    if let Some((_, m, f)) = held.iter().find(|(p, _, _)| p == path)
        && let (Some(model), Some(factory)) = (m.upgrade(), f.upgrade())
    {
        return Ok(Loaded { model, factory });
    }
    let model =
        LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).map_err(|e| {
            LlamaError::Load {
                path: path.to_path_buf(),
                message: e.to_string(),
            }
        })?;
    let model = Arc::new(model);
    let factory = Arc::new(factory(&model)?);
    held.push((
        path.to_path_buf(),
        Arc::downgrade(&model),
        Arc::downgrade(&factory),
    ));
    Ok(Loaded { model, factory })
}
