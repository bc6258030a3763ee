//! Structural soundness of a dialogue (ALPHA3.md §3: alternation holds, agent first).

use super::types::{Episode, Speaker};
use std::fmt;

/// A structural problem, with the JSON pointer of the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructureProblem {
    pub pointer: String,
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for StructureProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.pointer, self.message, self.rule)
    }
}

/// Every structural problem of `episode`; empty when it is sound. A failure stub is sound when
/// its dialogue is empty.
pub fn structure_problems(episode: &Episode) -> Vec<StructureProblem> {
    let mut out = Vec::new();
    let d = &episode.dialogue;
    if episode.is_failure_stub() {
        return out;
    }
    if d.is_empty() {
        out.push(StructureProblem {
            pointer: "/dialogue".into(),
            rule: "non_empty",
            message: "the dialogue of an episode that did not fail generation is empty".into(),
        });
        return out;
    }
    if d[0].speaker != Speaker::Agent {
        out.push(StructureProblem {
            pointer: "/dialogue/0/speaker".into(),
            rule: "agent_first",
            message: "the first turn must be spoken by the agent".into(),
        });
    }
    for (i, pair) in d.windows(2).enumerate() {
        if pair[0].speaker == pair[1].speaker {
            out.push(StructureProblem {
                pointer: format!("/dialogue/{}/speaker", i + 1),
                rule: "alternation",
                message: format!(
                    "turn {} repeats speaker {:?}: agent and user must alternate",
                    i + 2,
                    pair[1].speaker
                ),
            });
        }
    }
    out
}
