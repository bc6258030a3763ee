//! Why a policy could not be built.

use super::{llama, openai, replay};

/// Why a policy could not be built from its config.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("policy.{0} is missing for backend {0}")]
    MissingSection(&'static str),
    #[error("the {0} backend plans one episode: it is built with that episode's scenario")]
    NeedsEpisode(&'static str),
    #[error(transparent)]
    Llama(#[from] llama::LlamaError),
    #[error(transparent)]
    OpenAi(#[from] openai::OpenAiError),
    #[error(transparent)]
    Replay(#[from] replay::ReplayError),
    #[error("cannot compile the turn schema: {0}")]
    Schema(#[from] alpha3_core::protocol::SchemaBuildError),
}
