//! Bookkeeping of what the llama.cpp KV cache holds, so a new prompt evaluates only what is new.
//!
//! The cache holds a token sequence and the text it stands for. Checkpoints mark token
//! boundaries where a text prefix and a token prefix correspond exactly (the end of each
//! evaluated prompt, the end of each decoded completion). A new prompt reuses the longest
//! checkpoint whose text it starts with; everything after it is dropped and the rest of the
//! prompt is tokenized and evaluated. Because the renderer is append-only and a constrained
//! model writes the canonical turn text, turn k reuses everything up to the end of turn k−1.

/// A point where `text[..bytes]` is exactly what `tokens[..tokens]` decode to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    pub bytes: usize,
    pub tokens: usize,
}

/// What the KV cache holds (sequence 0).
#[derive(Debug, Default)]
pub(crate) struct KvLedger {
    text: Vec<u8>,
    tokens: Vec<i32>,
    checkpoints: Vec<Checkpoint>,
}

impl KvLedger {
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The checkpoint to keep for `prompt`: the longest cached text `prompt` starts with that
    /// leaves at least one byte of the prompt to evaluate (whose logits start generation).
    pub fn reusable(&self, prompt: &[u8]) -> Checkpoint {
        self.checkpoints
            .iter()
            .rev()
            .find(|c| c.bytes < prompt.len() && prompt.starts_with(&self.text[..c.bytes]))
            .copied()
            .unwrap_or(Checkpoint {
                bytes: 0,
                tokens: 0,
            })
    }

    /// Forgets everything after `keep` (the caller removes the same tokens from the KV cache).
    pub fn truncate(&mut self, keep: Checkpoint) {
        self.text.truncate(keep.bytes);
        self.tokens.truncate(keep.tokens);
        self.checkpoints.retain(|c| c.tokens <= keep.tokens);
        if self.checkpoints.last() != Some(&keep) {
            self.checkpoints.push(keep);
        }
    }

    /// Records tokens now in the KV cache and the text they stand for.
    pub fn push(&mut self, text: &[u8], tokens: &[i32]) {
        self.text.extend_from_slice(text);
        self.tokens.extend_from_slice(tokens);
    }

    /// Marks the current end as a checkpoint.
    pub fn checkpoint(&mut self) {
        let c = Checkpoint {
            bytes: self.text.len(),
            tokens: self.tokens.len(),
        };
        if self.checkpoints.last() != Some(&c) {
            self.checkpoints.push(c);
        }
    }

    /// Forgets everything (after a failed decode the cache content is unknown).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger_with(prompt: &str, completion: &str) -> KvLedger {
        let mut l = KvLedger::default();
        l.truncate(l.reusable(prompt.as_bytes()));
        l.push(prompt.as_bytes(), &[1, 2, 3]);
        l.checkpoint();
        l.push(completion.as_bytes(), &[4, 5]);
        l.checkpoint();
        l
    }

    #[test]
    fn an_extended_prompt_reuses_prompt_and_completion() {
        let l = ledger_with("<sys>user1", "{a}");
        let c = l.reusable(b"<sys>user1{a}<eot>user2");
        assert_eq!(
            c,
            Checkpoint {
                bytes: 13,
                tokens: 5
            }
        );
    }

    #[test]
    fn a_different_completion_reuses_only_the_prompt() {
        let l = ledger_with("<sys>user1", "{a}");
        let c = l.reusable(b"<sys>user1{b}<eot>user2");
        assert_eq!(
            c,
            Checkpoint {
                bytes: 10,
                tokens: 3
            }
        );
    }

    #[test]
    fn an_identical_prompt_still_evaluates_something() {
        let l = ledger_with("<sys>user1", "{a}");
        assert_eq!(l.reusable(b"<sys>user1{a}").tokens, 3);
        assert_eq!(l.reusable(b"<sys>user1").tokens, 0);
        assert_eq!(l.reusable(b"other").tokens, 0);
    }

    #[test]
    fn truncation_drops_later_checkpoints() {
        let mut l = ledger_with("<sys>user1", "{a}");
        let keep = l.reusable(b"<sys>user1{b}");
        l.truncate(keep);
        assert_eq!(l.len(), 3);
        assert_eq!(l.reusable(b"<sys>user1{a}<eot>").tokens, 3);
    }
}
