//! Replays the agent turns of a published α3-Bench episode, in order, so published model
//! decisions can be executed (and gated) in our closed loop. Published episodes use a free-form
//! tool vocabulary: their turns are passed on as written, and the gate judges them.

use super::contract::Policy;
use super::decision::{Attempt, Decision, DecisionContext, GenerationFailure};
use super::generator::BoxFuture;
use alpha3_core::episode::{Episode, Speaker};
use alpha3_core::protocol::{AgentTurn, render_turn};
use std::path::{Path, PathBuf};
use tokio::time::Instant;

/// Why an episode could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not an α3-Bench episode: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{dir} holds no episode file number {index} (found {found})")]
    NoEpisode {
        dir: PathBuf,
        index: usize,
        found: usize,
    },
}

/// Plays back one episode's agent turns.
#[derive(Debug, Clone)]
pub struct ReplayPolicy {
    name: String,
    turns: Vec<AgentTurn>,
    next: usize,
}

impl ReplayPolicy {
    /// The agent turns of `episode`, in dialogue order.
    pub fn from_episode(name: &str, episode: &Episode) -> Self {
        let turns = episode
            .dialogue
            .iter()
            .filter(|t| t.speaker == Speaker::Agent)
            .map(|t| AgentTurn {
                intent: t.intent.clone(),
                actions: t.actions.clone(),
            })
            .collect();
        Self {
            name: name.to_owned(),
            turns,
            next: 0,
        }
    }

    /// Loads an episode file.
    pub fn from_file(name: &str, path: &Path) -> Result<Self, ReplayError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let episode: Episode =
            serde_json::from_str(&text).map_err(|source| ReplayError::Format {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Self::from_episode(name, &episode))
    }

    /// `source` is an episode file, or a directory whose `index`-th `.json` file (in name
    /// order) is played.
    pub fn from_source(name: &str, source: &Path, index: usize) -> Result<Self, ReplayError> {
        if !source.is_dir() {
            return Self::from_file(name, source);
        }
        let entries = std::fs::read_dir(source).map_err(|e| ReplayError::Io {
            path: source.to_path_buf(),
            source: e,
        })?;
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        let found = files.len();
        let file = files.get(index).ok_or_else(|| ReplayError::NoEpisode {
            dir: source.to_path_buf(),
            index,
            found,
        })?;
        Self::from_file(name, file)
    }

    /// Agent turns not played yet.
    pub fn remaining(&self) -> usize {
        self.turns.len() - self.next
    }

    fn next_decision(&mut self) -> Decision {
        let started = std::time::Instant::now();
        let Some(turn) = self.turns.get(self.next).cloned() else {
            return Decision {
                outcome: Err(GenerationFailure::Exhausted),
                attempts: vec![replayed(String::new(), started, Some("exhausted".into()))],
            };
        };
        self.next += 1;
        Decision {
            attempts: vec![replayed(render_turn(&turn), started, None)],
            outcome: Ok(turn),
        }
    }
}

fn replayed(completion: String, started: std::time::Instant, error: Option<String>) -> Attempt {
    Attempt {
        attempt: 1,
        prompt: String::new(),
        completion,
        prompt_tokens: 0,
        cached_tokens: 0,
        completion_tokens: 0,
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        ttft_ms: None,
        error,
        admissible: None,
    }
}

impl Policy for ReplayPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        _ctx: &'a DecisionContext,
        _deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        let d = self.next_decision();
        Box::pin(async move { d })
    }
}
