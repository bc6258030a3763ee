//! Building the policy a config names: every backend through [`from_config`], with what the
//! episode it will fly knows ([`EpisodeBrief`]) for the backends that plan with it.

use super::baseline::{HoverPolicy, RandomPolicy};
use super::brief::EpisodeBrief;
use super::contract::Policy;
use super::error::PolicyError;
use super::llm::LlmPolicy;
#[cfg(feature = "openai")]
use super::openai;
use super::scripted::ScriptedPolicy;
use super::{llama, replay};
use alpha3_core::config::{PolicyBackend, PolicyConfig};
use std::path::Path;

/// Builds the policy `cfg` names. Relative paths (model, replay source) are resolved against
/// `base_dir`, the directory of the config file. `episode` is the episode the policy will fly:
/// the scripted agent needs it; a model serves any episode, so it may be built without one
/// (and kept across episodes).
pub fn from_config(
    cfg: &PolicyConfig,
    base_dir: &Path,
    episode: Option<&EpisodeBrief<'_>>,
) -> Result<Box<dyn Policy>, PolicyError> {
    let catalogue = alpha3_core::protocol::catalogue();
    match cfg.backend {
        PolicyBackend::Llama => {
            let l = cfg
                .llama
                .as_ref()
                .ok_or(PolicyError::MissingSection("llama"))?;
            let generator = llama::LlamaGenerator::load(
                &llama::LlamaOptions::from_config(l, base_dir)?,
                &catalogue,
            )?;
            Ok(Box::new(LlmPolicy::new(cfg, generator, catalogue)?))
        }
        #[cfg(not(feature = "openai"))]
        PolicyBackend::Openai => Err(PolicyError::NotBuiltIn("openai")),
        #[cfg(feature = "openai")]
        PolicyBackend::Openai => {
            let o = cfg
                .openai
                .as_ref()
                .ok_or(PolicyError::MissingSection("openai"))?;
            let generator = openai::OpenAiGenerator::new(o, &catalogue)?;
            Ok(Box::new(LlmPolicy::new(cfg, generator, catalogue)?))
        }
        PolicyBackend::Replay => {
            let r = cfg
                .replay
                .as_ref()
                .ok_or(PolicyError::MissingSection("replay"))?;
            let source = base_dir.join(&r.source);
            Ok(Box::new(replay::ReplayPolicy::from_source(
                &cfg.name, &source, 0,
            )?))
        }
        PolicyBackend::Scripted => {
            let episode = episode.ok_or(PolicyError::NeedsEpisode("scripted"))?;
            Ok(Box::new(ScriptedPolicy::new(cfg.name.clone(), episode)))
        }
        PolicyBackend::Hover => {
            let episode = episode.ok_or(PolicyError::NeedsEpisode("hover"))?;
            Ok(Box::new(HoverPolicy::new(cfg.name.clone(), episode)))
        }
        PolicyBackend::Random => {
            let episode = episode.ok_or(PolicyError::NeedsEpisode("random"))?;
            Ok(Box::new(RandomPolicy::new(cfg.name.clone(), episode)))
        }
    }
}
