//! A generator that answers from a fixed list: it drives the repair path in tests (garbage,
//! empty, unknown tools, a backend error) without a model.

use super::generator::{BoxFuture, Completion, GenerateError, Generator};
use alpha3_core::protocol::ChatMessage;
use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// Answers each call with the next canned reply; after the last one, every call is an error.
#[derive(Debug, Default)]
pub struct CannedGenerator {
    replies: VecDeque<Result<String, GenerateError>>,
    /// Delay before answering (to exercise deadlines on a paused clock).
    delay: Duration,
    /// The messages of every call, in order.
    pub calls: Vec<Vec<ChatMessage>>,
}

impl CannedGenerator {
    pub fn new<I, S>(replies: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            replies: replies.into_iter().map(|s| Ok(s.into())).collect(),
            ..Self::default()
        }
    }

    /// Replies that may also be backend errors, in order.
    pub fn from_replies<I>(replies: I) -> Self
    where
        I: IntoIterator<Item = Result<String, GenerateError>>,
    {
        Self {
            replies: replies.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Adds a reply that fails with `error`.
    pub fn then_error(mut self, error: GenerateError) -> Self {
        self.replies.push_back(Err(error));
        self
    }

    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// Whitespace-separated words: a stand-in token count that is exact and repeatable.
fn words(s: &str) -> u64 {
    s.split_whitespace().count() as u64
}

impl Generator for CannedGenerator {
    fn model(&self) -> &str {
        "canned"
    }

    fn generate<'a>(
        &'a mut self,
        messages: &'a [ChatMessage],
        _deadline: Instant,
    ) -> BoxFuture<'a, Result<Completion, GenerateError>> {
        Box::pin(async move {
            let started = Instant::now();
            self.calls.push(messages.to_vec());
            if !self.delay.is_zero() {
                tokio::time::sleep(self.delay).await;
            }
            let reply = self
                .replies
                .pop_front()
                .unwrap_or_else(|| Err(GenerateError::Fatal("no canned reply left".into())))?;
            let prompt: String = messages
                .iter()
                .map(|m| format!("{}: {}\n", m.role.as_str(), m.content))
                .collect();
            Ok(Completion {
                prompt_tokens: words(&prompt),
                completion_tokens: words(&reply),
                cached_tokens: 0,
                prompt,
                text: reply,
                latency_ms: started.elapsed().as_secs_f64() * 1000.0,
                ttft_ms: None,
            })
        })
    }
}
