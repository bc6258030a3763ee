//! Compiling llguidance matchers over the model's vocabulary: the full turn schema when the
//! model loads, a narrowed Lark grammar when a turn asks for one. Its own file so the inference
//! thread and the engine both use it without importing each other.

use super::types::LlamaError;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{InferenceCapabilities, TokEnv, TokTrie, TokenId, TokenizerEnv};
use llguidance::{Matcher, ParserFactory};
use serde_json::Value;
use std::sync::Arc;

/// llguidance needs the model's own (canonical) tokenizer to fast-forward forced text; the
/// token trie is the approximate environment's, held rather than copied (one trie of the
/// 262,144-token vocabulary, not two).
struct CanonicalTokEnv {
    model: Arc<LlamaModel>,
    approx: TokEnv,
}

impl TokenizerEnv for CanonicalTokEnv {
    fn tok_trie(&self) -> &TokTrie {
        self.approx.tok_trie()
    }

    fn tokenize_bytes(&self, s: &[u8]) -> Vec<TokenId> {
        self.model
            .vocab()
            .tokenize(s, false, false)
            .into_iter()
            .map(|t| t.0.cast_unsigned())
            .collect()
    }
}

/// A parser factory over the model's vocabulary (with its canonical tokenizer).
pub(super) fn factory(model: &Arc<LlamaModel>) -> Result<ParserFactory, LlamaError> {
    let env: TokEnv = Arc::new(CanonicalTokEnv {
        model: Arc::clone(model),
        approx: LlamaSampler::llguidance_tok_env(model),
    });
    // No vocabulary slices: llguidance's default JSON slices keep a trie per slice (about
    // 65 MB more resident with this vocabulary) to speed up masks inside long strings; the
    // turn's strings are short, and constrained decoding measured no slower without them.
    let mut factory = ParserFactory::new(&env, InferenceCapabilities::default(), &[])
        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
    factory.quiet();
    Ok(factory)
}

/// Compiles `schema` into a matcher with `factory`.
pub(super) fn compile(factory: &ParserFactory, schema: Value) -> Result<Matcher, LlamaError> {
    matcher(factory, TopLevelGrammar::from_json_schema(schema))
}

/// Compiles a Lark `grammar` into a matcher with `factory`.
pub(super) fn compile_lark(factory: &ParserFactory, grammar: &str) -> Result<Matcher, LlamaError> {
    matcher(factory, TopLevelGrammar::from_lark(grammar.to_owned()))
}

fn matcher(factory: &ParserFactory, grammar: TopLevelGrammar) -> Result<Matcher, LlamaError> {
    let parser = factory
        .create_parser(grammar)
        .map_err(|e| LlamaError::Grammar(e.to_string()))?;
    let matcher = Matcher::new(Ok(parser));
    match matcher.get_error() {
        Some(e) => Err(LlamaError::Grammar(e)),
        None => Ok(matcher),
    }
}
