//! [`LlmPolicy`]: render the context, generate, parse, and repair — at most three attempts in
//! all, each one counted — on top of any [`Generator`].

use super::contract::Policy;
use super::decision::{Attempt, Decision, DecisionContext, GenerationFailure};
use super::error::PolicyError;
use super::generator::{BoxFuture, Completion, GenerateError, Generator};
use super::no_answer::{Answers, NoAnswer};
use super::steer::{Narrowing, admissible_actions, state_block, steered_header, steered_messages};
use alpha3_core::config::{PolicyConfig, SteeringConfig};
use alpha3_core::protocol::{
    ChatMessage, Role, ToolSpec, TurnParser, render, render_header, repair_message,
};
use tokio::time::Instant;

/// α3-Bench allows up to three attempts to obtain a schema-valid answer.
pub const MAX_ATTEMPTS: u32 = 3;

/// An LLM-backed policy.
pub struct LlmPolicy<G> {
    name: String,
    generator: G,
    catalogue: Vec<ToolSpec>,
    parser: TurnParser,
    max_attempts: u32,
    steering: SteeringConfig,
    /// The state block shown with each situation of the episode so far, by decision index
    /// (kept, so re-rendered history stays byte-identical and the KV cache valid).
    blocks: Vec<String>,
    /// What the model's calls gave in the episode being flown (reset at its first decision).
    answers: Answers,
}

impl<G> std::fmt::Debug for LlmPolicy<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmPolicy")
            .field("name", &self.name)
            .field("max_attempts", &self.max_attempts)
            .field("steering", &self.steering)
            .finish_non_exhaustive()
    }
}

impl<G: Generator> LlmPolicy<G> {
    /// A policy named, bounded and steered by `cfg` (attempts clamped to 1..=3).
    pub fn new(
        cfg: &PolicyConfig,
        generator: G,
        catalogue: Vec<ToolSpec>,
    ) -> Result<Self, PolicyError> {
        Ok(
            Self::with_attempts(&cfg.name, cfg.max_attempts, generator, catalogue)?
                .with_steering(cfg.steering.unwrap_or_default()),
        )
    }

    /// The same policy, steered by `steering` each turn.
    pub fn with_steering(mut self, steering: SteeringConfig) -> Self {
        self.steering = steering;
        self
    }

    pub fn with_attempts(
        name: &str,
        max_attempts: u32,
        generator: G,
        catalogue: Vec<ToolSpec>,
    ) -> Result<Self, PolicyError> {
        let parser = TurnParser::new(&catalogue)?;
        Ok(Self {
            name: name.to_owned(),
            generator,
            catalogue,
            parser,
            max_attempts: max_attempts.clamp(1, MAX_ATTEMPTS),
            steering: SteeringConfig::default(),
            blocks: Vec::new(),
            answers: Answers::default(),
        })
    }

    pub fn generator(&self) -> &G {
        &self.generator
    }

    pub fn generator_mut(&mut self) -> &mut G {
        &mut self.generator
    }

    /// The messages of the first attempt for `ctx`: with the state block on, the steered
    /// prompt, each situation with the block it was shown with (the current one computed now).
    pub fn messages(&self, ctx: &DecisionContext) -> Vec<ChatMessage> {
        if let Some(now) = self.current_block(ctx) {
            let k = ctx.decision_index();
            let mut blocks: Vec<&str> = self.blocks.iter().take(k).map(String::as_str).collect();
            blocks.push(&now);
            return steered_messages(self.header(), &ctx.mission, &ctx.history, &ctx.now, &blocks);
        }
        let mut messages = render(&ctx.prompt(&self.catalogue));
        if let Some(system) = messages.first_mut() {
            system.content = self.header();
        }
        messages
    }

    /// The system header: the protocol's, or the steered one when the state block is on.
    fn header(&self) -> String {
        if self.steering.state_block {
            steered_header(&self.catalogue, self.steering.gate_aware_grammar)
        } else {
            render_header(&self.catalogue)
        }
    }

    /// The state block for the current situation, when the block is on and the runtime gave
    /// the mission's facts.
    fn current_block(&self, ctx: &DecisionContext) -> Option<String> {
        let facts = ctx.facts.as_ref().filter(|_| self.steering.state_block)?;
        Some(state_block(facts, &ctx.now, &ctx.hard))
    }

    /// Narrows the generator's grammar for this decision; returns the admissible set's size.
    fn narrow(&mut self, ctx: &DecisionContext) -> Option<u32> {
        let admissible = ctx
            .facts
            .as_ref()
            .filter(|_| self.steering.gate_aware_grammar)
            .map(|f| admissible_actions(f, &ctx.now));
        let size = admissible
            .as_ref()
            .map(|a| u32::try_from(a.distinct()).unwrap_or(u32::MAX));
        self.generator.narrow(admissible.map(Narrowing::new));
        size
    }

    async fn run(&mut self, ctx: &DecisionContext, deadline: Instant) -> Decision {
        let mut messages = self.messages(ctx);
        let k = ctx.decision_index();
        if k == 0 {
            // A new episode (a model is kept across a worker's episodes).
            self.answers = Answers::default();
        }
        self.answers.asked();
        self.blocks.truncate(k);
        if let Some(b) = self.current_block(ctx)
            && self.blocks.len() == k
        {
            self.blocks.push(b);
        }
        let admissible = self.narrow(ctx);
        let mut attempts = Vec::new();
        let mut failure = GenerationFailure::Deadline;
        for n in 1..=self.max_attempts {
            if Instant::now() >= deadline {
                failure = GenerationFailure::Deadline;
                break;
            }
            let started = Instant::now();
            let result = match tokio::time::timeout_at(
                deadline,
                self.generator.generate(&messages, deadline),
            )
            .await
            {
                Ok(r) => r,
                Err(_) => Err(GenerateError::Deadline {
                    elapsed_ms: ms(started),
                }),
            };
            match &result {
                Ok(_) => self.answers.answered(),
                Err(e) => {
                    let refused = match e {
                        GenerateError::KeyRefused { status, .. } => Some(*status),
                        _ => None,
                    };
                    self.answers.failed(e.to_string(), refused);
                }
            }
            match result {
                Ok(c) => match self.parser.parse(&c.text) {
                    Ok(turn) => {
                        attempts.push(attempt(n, c, None, admissible));
                        return Decision {
                            outcome: Ok(turn),
                            attempts,
                        };
                    }
                    Err(e) => {
                        let error = e.to_string();
                        messages.push(ChatMessage::new(Role::Assistant, c.text.clone()));
                        messages.push(ChatMessage::new(Role::User, repair_message(&error)));
                        attempts.push(attempt(n, c, Some(error.clone()), admissible));
                        failure = GenerationFailure::Invalid {
                            attempts: n,
                            last_error: error,
                        };
                    }
                },
                Err(e) => {
                    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
                    attempts.push(Attempt {
                        attempt: n,
                        prompt: String::new(),
                        completion: String::new(),
                        prompt_tokens: 0,
                        cached_tokens: 0,
                        completion_tokens: 0,
                        latency_ms,
                        ttft_ms: None,
                        error: Some(e.to_string()),
                        admissible,
                    });
                    match e {
                        GenerateError::Deadline { .. } => {
                            failure = GenerationFailure::Deadline;
                            break;
                        }
                        GenerateError::Fatal(m) => {
                            failure = GenerationFailure::Backend(m);
                            break;
                        }
                        refused @ GenerateError::KeyRefused { .. } => {
                            failure = GenerationFailure::Backend(refused.to_string());
                            break;
                        }
                        GenerateError::Transient(m) => failure = GenerationFailure::Backend(m),
                    }
                }
            }
        }
        Decision {
            outcome: Err(failure),
            attempts,
        }
    }
}

fn ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn attempt(n: u32, c: Completion, error: Option<String>, admissible: Option<u32>) -> Attempt {
    Attempt {
        attempt: n,
        prompt: c.prompt,
        completion: c.text,
        prompt_tokens: c.prompt_tokens,
        cached_tokens: c.cached_tokens,
        completion_tokens: c.completion_tokens,
        latency_ms: c.latency_ms,
        ttft_ms: c.ttft_ms,
        error,
        admissible,
    }
}

impl<G: Generator> Policy for LlmPolicy<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide<'a>(
        &'a mut self,
        ctx: &'a DecisionContext,
        deadline: Instant,
    ) -> BoxFuture<'a, Decision> {
        Box::pin(self.run(ctx, deadline))
    }

    /// A key refused before the model's first answer ends the episode: no later call with it
    /// will be answered.
    fn finished(&self) -> Option<String> {
        self.answers
            .key_refused()
            .map(|why| alpha3_core::record::failure_reason(&why.to_string()))
    }

    fn no_answer(&self) -> Option<NoAnswer> {
        self.answers.no_answer()
    }

    fn warm_up(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let system = ChatMessage::new(Role::System, self.header());
            self.generator.prefill(&system).await;
        })
    }
}
