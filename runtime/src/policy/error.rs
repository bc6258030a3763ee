//! Why a policy could not be built.

#[cfg(feature = "openai")]
use super::openai;
use super::{llama, replay};

/// Why a policy could not be built from its config.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("policy.{0} is missing for backend {0}")]
    MissingSection(&'static str),
    #[error("the {0} backend plans one episode: it is built with that episode's scenario")]
    NeedsEpisode(&'static str),
    #[error(transparent)]
    Llama(#[from] llama::LlamaError),
    #[cfg(feature = "openai")]
    #[error(transparent)]
    OpenAi(#[from] openai::OpenAiError),
    #[error(
        "this alpha3 was built without the `{0}` feature (the README's main job builds without \
         it); build it with the default features: cargo build --release -p alpha3"
    )]
    NotBuiltIn(&'static str),
    #[error(transparent)]
    Replay(#[from] replay::ReplayError),
    #[error("cannot compile the turn schema: {0}")]
    Schema(#[from] alpha3_core::protocol::SchemaBuildError),
}
