//! `alpha3 perf`: measures whether this device keeps up (see [`crate::perf`]).

use crate::perf::{PerfOptions, run as measure};
use crate::policy::llama::LlamaOptions;
use alpha3_core::config::{Config, PolicyBackend};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PerfArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Small iteration counts: checks that every measurement runs (seconds, figures rough).
    #[arg(long)]
    pub quick: bool,
    /// GGUF model to time (else ALPHA3_MODEL, else the config's llama policy).
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// Runtime config: its llama model and decision deadline are used.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Skip the LLM measurement even when a model is configured.
    #[arg(long, conflicts_with = "model")]
    pub no_llm: bool,
    /// Threads for the model.
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Also time a 50 Hz safety tick (sleep to its deadline, then the gate) for this many
    /// seconds each: idle, with the model decoding on every core at normal priority, and with
    /// the model's threads lowered as the runtime runs them. Needs a model.
    #[arg(long, value_name = "SECONDS")]
    pub under_load: Option<f64>,
}

pub fn run(args: &PerfArgs) -> anyhow::Result<ExitCode> {
    let config = match &args.config {
        Some(p) => Some(
            Config::from_toml(
                &std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read {}", p.display()))?,
            )
            .with_context(|| format!("{} is not a valid config", p.display()))?,
        ),
        None => None,
    };
    let model = if args.no_llm {
        None
    } else {
        model_path(args, config.as_ref())?
    };
    let llama = model
        .as_ref()
        .map(|m| llama_options(m, args, config.as_ref()));
    let deadline_ms = config.as_ref().and_then(|c| c.policy.as_ref()).map_or(
        crate::episode_setup::EpisodeSettings::default().deadline_ms,
        |p| p.deadline_ms,
    );
    if let Some(s) = args.under_load {
        if !(0.1..=3600.0).contains(&s) {
            anyhow::bail!("--under-load {s} is not in [0.1, 3600] seconds");
        }
        if model.is_none() {
            anyhow::bail!("--under-load needs a model (--model, ALPHA3_MODEL or a llama config)");
        }
    }
    let options = PerfOptions {
        quick: args.quick,
        llama,
        deadline_ms,
        under_load_s: args.under_load,
    };
    let report = super::on_current_thread(async { anyhow::Ok(measure(&options).await?) })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_table());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--model`, else `ALPHA3_MODEL`, else the config's llama policy; a named file must exist.
fn model_path(args: &PerfArgs, config: Option<&Config>) -> anyhow::Result<Option<PathBuf>> {
    let named = if let Some(m) = &args.model {
        Some(m.clone())
    } else if let Some(m) = std::env::var_os("ALPHA3_MODEL").filter(|m| !m.is_empty()) {
        Some(PathBuf::from(m))
    } else {
        config_model(args.config.as_deref(), config)?
    };
    match named {
        Some(p) if !p.is_file() => anyhow::bail!("model {} is not a file", p.display()),
        other => Ok(other),
    }
}

/// The model at `model` with the config's llama settings (context and batch sizes, as the
/// policy runs it) where it has them, else the local policy's defaults; `--threads` wins.
fn llama_options(model: &Path, args: &PerfArgs, config: Option<&Config>) -> LlamaOptions {
    let section = config
        .and_then(|c| c.policy.as_ref())
        .filter(|p| p.backend == PolicyBackend::Llama)
        .and_then(|p| p.llama.as_ref());
    let mut o = match section {
        Some(l) => LlamaOptions::with_settings(model.to_path_buf(), l),
        None => LlamaOptions::for_model(model),
    };
    o.threads = args.threads.max(1);
    o
}

fn config_model(path: Option<&Path>, config: Option<&Config>) -> anyhow::Result<Option<PathBuf>> {
    let Some(policy) = config.and_then(|c| c.policy.as_ref()) else {
        return Ok(None);
    };
    let (PolicyBackend::Llama, Some(l)) = (policy.backend, policy.llama.as_ref()) else {
        return Ok(None);
    };
    let base = path
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let o = LlamaOptions::from_config(l, &base)?;
    Ok(Some(o.model_path))
}
