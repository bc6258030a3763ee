//! The llama.cpp side of the local backend, run on its own thread: chat template, KV-cache
//! reuse, chunked prompt evaluation and the decode loop, free or constrained by llguidance.
//!
//! Constrained decoding: llguidance computes the set of tokens the turn schema allows; we pick
//! the best allowed token from the logits ourselves (greedy by default). Tokens the grammar
//! forces (`{"intent":"`, `","actions":[{"type":"mcp","name":"` …) are fast-forwarded: appended
//! without sampling and evaluated together in one batch, which is what keeps a constrained turn
//! as fast as free text.

use super::guide::compile_lark;
use super::kv::{Checkpoint, KvLedger};
use super::types::{LlamaCompletion, LlamaError, LlamaOptions, LlamaRequest};
use alpha3_core::protocol::{ChatMessage, Role};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llguidance::{Matcher, ParserFactory};
use std::time::Instant;

pub(crate) struct Engine<'m> {
    pub model: &'m LlamaModel,
    pub ctx: LlamaContext<'m>,
    pub template: LlamaChatTemplate,
    pub ledger: KvLedger,
    pub batch: LlamaBatch<'static>,
    pub n_batch: usize,
    /// A fresh matcher for the turn schema, cloned for each constrained generation.
    pub guide: Matcher,
    /// Compiles narrowed schemas over the model's vocabulary.
    pub factory: std::sync::Arc<ParserFactory>,
    /// The last narrowed grammar (Lark) and a fresh matcher for it.
    pub narrowed: Option<(String, Matcher)>,
    pub options: LlamaOptions,
    pub sampler: LlamaSampler,
}

impl Engine<'_> {
    /// Applies the chat template (the model's, else llama.cpp's built-in `gemma`).
    pub fn apply_template(&self, messages: &[ChatMessage]) -> Result<String, LlamaError> {
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.as_str().to_owned(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlamaError::Template(e.to_string()))?;
        self.model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| LlamaError::Template(e.to_string()))
    }

    pub fn generate(
        &mut self,
        messages: &[ChatMessage],
        req: LlamaRequest,
        grammar: Option<String>,
    ) -> Result<LlamaCompletion, LlamaError> {
        self.select_grammar(grammar)?;
        let prompt = self.apply_template(messages)?;
        // A prompt that does not reuse the system header evaluates it first, on its own, so
        // the cache keeps a checkpoint there: the next episode (same header) starts from it.
        let system = messages.first().filter(|m| m.role == Role::System);
        if let Some(system) = system.filter(|_| req.reuse_cache) {
            let prefix = self.system_prefix(system)?;
            if prompt.len() > prefix.len()
                && prompt.starts_with(&prefix)
                && self.ledger.reusable(prompt.as_bytes()).bytes < prefix.len()
            {
                let pre = self.run(prefix, prefill(req.deadline))?;
                let mut out = self.run(prompt, req)?;
                let evaluated = pre.prompt_tokens - pre.cached_tokens;
                out.cached_tokens = out.cached_tokens.saturating_sub(evaluated);
                out.latency_ms += pre.latency_ms;
                out.prompt_eval_ms += pre.latency_ms;
                out.ttft_ms = out.ttft_ms.map(|t| t + pre.latency_ms);
                return Ok(out);
            }
        }
        self.run(prompt, req)
    }

    /// Makes the Lark `grammar` the grammar of the next constrained generation (`None`: the
    /// full turn schema). A grammar equal to the last one is not compiled again.
    fn select_grammar(&mut self, grammar: Option<String>) -> Result<(), LlamaError> {
        let Some(text) = grammar else {
            self.narrowed = None;
            return Ok(());
        };
        if self.narrowed.as_ref().is_none_or(|(t, _)| *t != text) {
            let matcher = compile_lark(&self.factory, &text)?;
            self.narrowed = Some((text, matcher));
        }
        Ok(())
    }

    /// Evaluates the templated text every prompt starting with `system` shares (the chat
    /// template's opening and the system header), so later prompts reuse it from the cache.
    pub fn prefill_system(
        &mut self,
        system: &ChatMessage,
        deadline: Instant,
    ) -> Result<LlamaCompletion, LlamaError> {
        let prefix = self.system_prefix(system)?;
        self.run(prefix, prefill(deadline))
    }

    /// The templated text before the first user message's content.
    fn system_prefix(&self, system: &ChatMessage) -> Result<String, LlamaError> {
        const MARK: &str = "\u{1}alpha3-mark\u{1}";
        let probe = [system.clone(), ChatMessage::new(Role::User, MARK)];
        let text = self.apply_template(&probe)?;
        Ok(text
            .find(MARK)
            .map_or(text.as_str(), |at| &text[..at])
            .to_owned())
    }

    fn run(&mut self, prompt: String, req: LlamaRequest) -> Result<LlamaCompletion, LlamaError> {
        let started = Instant::now();
        let mut out = LlamaCompletion {
            prompt,
            ..LlamaCompletion::default()
        };
        let new_tokens = self.prepare_prompt(&out.prompt, req.reuse_cache)?;
        out.cached_tokens = self.ledger.len() as u64;
        out.prompt_tokens = out.cached_tokens + new_tokens.len() as u64;
        let limit = self.ctx.n_ctx() as usize;
        if out.prompt_tokens as usize + req.max_tokens as usize > limit {
            return Err(LlamaError::ContextFull {
                prompt_tokens: out.prompt_tokens,
                context_tokens: limit as u64,
            });
        }
        let result = self.decode_loop(&mut out, new_tokens, req, started);
        if result.is_err() {
            // The cache may hold a half-evaluated batch: start from scratch next time.
            self.ctx.clear_kv_cache();
            self.ledger.clear();
        }
        result?;
        out.latency_ms = ms(started);
        Ok(out)
    }

    /// Drops what the new prompt does not share with the cache; returns the tokens to evaluate.
    fn prepare_prompt(
        &mut self,
        prompt: &str,
        reuse: bool,
    ) -> Result<Vec<(LlamaToken, Vec<u8>)>, LlamaError> {
        let bytes = prompt.as_bytes();
        let keep = if reuse {
            self.ledger.reusable(bytes)
        } else {
            Checkpoint {
                bytes: 0,
                tokens: 0,
            }
        };
        if keep.tokens < self.ledger.len() {
            let removed = self
                .ctx
                .clear_kv_cache_seq(Some(0), Some(keep.tokens as u32), None)
                .unwrap_or(false);
            if !removed {
                self.ctx.clear_kv_cache();
                self.ledger.clear();
                return self.prepare_prompt(prompt, false);
            }
        }
        if keep.tokens == 0 {
            self.ctx.clear_kv_cache();
            self.ledger.clear();
        }
        self.ledger.truncate(keep);
        let rest = &bytes[keep.bytes..];
        let tokens = self.model.vocab().tokenize(rest, keep.tokens == 0, true);
        // The text of each token is attributed as a whole to the last token, so the ledger's
        // checkpoint at the end of the prompt is exact.
        let mut out: Vec<(LlamaToken, Vec<u8>)> =
            tokens.into_iter().map(|t| (t, Vec::new())).collect();
        if let Some(last) = out.last_mut() {
            last.1 = rest.to_vec();
        }
        Ok(out)
    }

    fn decode_loop(
        &mut self,
        out: &mut LlamaCompletion,
        mut pending: Vec<(LlamaToken, Vec<u8>)>,
        req: LlamaRequest,
        started: Instant,
    ) -> Result<(), LlamaError> {
        let n_prompt = pending.len();
        if req.max_tokens == 0 {
            // A prefill: evaluate the prompt into the cache, generate nothing.
            self.evaluate(&mut pending)?;
            out.prompt_eval_ms = ms(started);
            return Ok(());
        }
        let guide = self.narrowed.as_ref().map_or(&self.guide, |(_, m)| m);
        let mut matcher = req.constrained.then(|| guide.deep_clone());
        let mut text: Vec<u8> = Vec::new();
        let mut generated: u64 = 0;
        let mut prompt_pending = n_prompt > 0;
        let mut t_decode = None;
        self.sampler.reset();
        while generated < u64::from(req.max_tokens) {
            if let Some(m) = matcher.as_mut() {
                if m.is_stopped() {
                    break;
                }
                let forced = m.compute_ff_tokens();
                if !forced.is_empty() {
                    m.consume_tokens(&forced)
                        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
                    for t in forced {
                        let tok = LlamaToken(t as i32);
                        let piece = self.piece(tok);
                        text.extend_from_slice(&piece);
                        pending.push((tok, piece));
                        generated += 1;
                        out.forced_tokens += 1;
                    }
                    continue;
                }
            }
            if Instant::now() >= req.deadline {
                return Err(LlamaError::Deadline);
            }
            self.evaluate(&mut pending)?;
            if prompt_pending {
                prompt_pending = false;
                out.prompt_eval_ms = ms(started);
                t_decode = Some(Instant::now());
                if generated > 0 {
                    out.ttft_ms = Some(ms(started));
                }
            }
            let tok = match matcher.as_mut() {
                Some(m) => {
                    let mask = m
                        .compute_mask()
                        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
                    let Some(tok) = self.pick_allowed(&mask) else {
                        break;
                    };
                    if self.model.vocab().is_eog(tok) {
                        break;
                    }
                    m.consume_token(tok.0 as u32)
                        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
                    tok
                }
                None => {
                    let tok = self.sampler.sample(&self.ctx, -1);
                    if req.stop_at_eog && self.model.vocab().is_eog(tok) {
                        break;
                    }
                    tok
                }
            };
            if out.ttft_ms.is_none() {
                out.ttft_ms = Some(ms(started));
            }
            let piece = self.piece(tok);
            text.extend_from_slice(&piece);
            pending.push((tok, piece));
            generated += 1;
        }
        // The last tokens are not evaluated: the ledger ends where the cache does, and the next
        // prompt re-evaluates them with its new text.
        self.ledger.checkpoint();
        out.decode_ms = t_decode.map_or(0.0, |t| t.elapsed().as_secs_f64() * 1000.0);
        out.completion_tokens = generated;
        out.text = String::from_utf8_lossy(&text).into_owned();
        Ok(())
    }

    /// Evaluates `pending` in chunks of at most `n_batch` (a longer batch aborts llama.cpp),
    /// logits for the last token only; records it in the ledger.
    fn evaluate(&mut self, pending: &mut Vec<(LlamaToken, Vec<u8>)>) -> Result<(), LlamaError> {
        let total = pending.len();
        for (c, chunk) in pending.chunks(self.n_batch).enumerate() {
            self.batch.clear();
            let base = self.ledger.len() as i32;
            let last_chunk = (c + 1) * self.n_batch >= total;
            for (i, (tok, _)) in chunk.iter().enumerate() {
                let logits = last_chunk && i + 1 == chunk.len();
                self.batch
                    .add(*tok, base + i as i32, &[0], logits)
                    .map_err(|e| LlamaError::Decode(e.to_string()))?;
            }
            self.ctx
                .decode(&mut self.batch)
                .map_err(|e| LlamaError::Decode(e.to_string()))?;
            for (tok, piece) in chunk {
                self.ledger.push(piece, &[tok.0]);
            }
        }
        self.ledger.checkpoint();
        pending.clear();
        Ok(())
    }

    /// The highest-logit token the mask allows (greedy), or a seeded draw at temperature > 0.
    fn pick_allowed(&mut self, mask: &toktrie_mask::Mask) -> Option<LlamaToken> {
        let logits = self.ctx.get_logits_ith(-1);
        if self.options.temperature <= 0.0 {
            let mut best: Option<(usize, f32)> = None;
            mask.iter_set_entries(|i| {
                if let Some(&l) = logits.get(i)
                    && best.is_none_or(|(_, b)| l > b)
                {
                    best = Some((i, l));
                }
            });
            return best.map(|(i, _)| LlamaToken(i as i32));
        }
        let mut allowed = Vec::new();
        mask.iter_set_entries(|i| {
            if let Some(&l) = logits.get(i) {
                allowed.push(LlamaTokenData::new(LlamaToken(i as i32), l, 0.0));
            }
        });
        if allowed.is_empty() {
            return None;
        }
        let mut arr = LlamaTokenDataArray::new(allowed, false);
        arr.apply_sampler(&mut self.sampler);
        arr.selected_token()
    }

    fn piece(&self, tok: LlamaToken) -> Vec<u8> {
        self.model.vocab().token_to_piece(tok, false, None)
    }
}

/// The mask type llguidance computes.
mod toktrie_mask {
    pub use llguidance::toktrie::SimpleVob as Mask;
}

/// Evaluate only: no completion.
fn prefill(deadline: Instant) -> LlamaRequest {
    LlamaRequest {
        max_tokens: 0,
        constrained: false,
        reuse_cache: true,
        stop_at_eog: true,
        deadline,
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
