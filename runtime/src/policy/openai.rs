//! The remote backend: any OpenAI-compatible chat-completions endpoint.
//!
//! Structured output is negotiated per server: a JSON-schema `response_format` first; a server
//! that refuses it (400/422 naming the field) is asked with a forced tool call instead; one that
//! refuses tools gets plain messages and our parser finds the JSON. The choice is remembered.
//! Transient failures (timeouts, 429, 5xx, dropped connections) are retried a bounded number of
//! times with exponential backoff, never past the decision's deadline. Several endpoints of one
//! model (`base_url` and `more_base_urls`) share the load through an [`EndpointPool`]: a failed
//! request moves to another endpoint at once, and a 429/503 `Retry-After` rests its endpoint
//! that long. A server that refuses the key (401, 403) ends the decision at once
//! ([`GenerateError::KeyRefused`]); before the model's first answer of an episode it ends the
//! episode as failed ([`super::NoAnswer`]). The API key is read from
//! the environment variable the config names and is never logged, printed or recorded, in any
//! form that decodes to it ([`super::redact`]).

use super::endpoints::{EndpointPool, Outcome, retry_after};
use super::generator::{BoxFuture, Completion, GenerateError, Generator};
use super::grammar::constrained_turn_schema;
use super::redact::redact;
use super::steer::Narrowing;
use alpha3_core::config::OpenAiConfig;
use alpha3_core::protocol::{ChatMessage, Role, ToolSpec};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The name of the one function offered in tool-call mode.
const TURN_FUNCTION: &str = "agent_turn";
const BACKOFF_START: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(4);
/// The largest response read: a chat completion is a few kilobytes, and redaction looks
/// through every layer of escaping of what it reads.
const MAX_BODY_BYTES: u64 = 4 * 1024 * 1024;

/// Why the remote backend could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenAiError {
    #[error("environment variable {0} (policy.openai.api_key_env) is not set")]
    MissingKey(String),
    #[error("base URL {0:?} is not an http(s) URL")]
    BadUrl(String),
}

/// How the server is asked for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    JsonSchema,
    ToolCall,
    PlainJson,
}

/// A secret that never shows in `Debug` output.
#[derive(Clone)]
struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// An OpenAI-compatible endpoint.
#[derive(Debug)]
pub struct OpenAiGenerator {
    agent: ureq::Agent,
    /// The chat-completions URLs of every endpoint.
    pool: Arc<EndpointPool>,
    model: String,
    key: Option<ApiKey>,
    timeout: Duration,
    max_retries: u32,
    max_tokens: u32,
    temperature: f64,
    mode: OutputMode,
    schema: Value,
    /// A narrowed turn schema sent instead of `schema`, if any.
    narrowed: Option<Value>,
    /// The server takes llama.cpp's `grammar` field (`policy.openai.gbnf_grammar`).
    gbnf: bool,
    /// The narrowed turn grammar (GBNF) sent instead of any schema, when `gbnf` is on.
    narrowed_gbnf: Option<String>,
}

/// The outcome of one HTTP exchange.
enum Reply {
    Ok(Completion),
    /// Refused because of the structured-output request: try the next mode.
    Unsupported(String),
    /// Worth another try; `after` is the server's `Retry-After`.
    Retry {
        why: String,
        after: Option<Duration>,
    },
    Fatal(String),
    /// The key was refused (401/403): nothing will be answered with it.
    KeyRefused {
        status: u16,
        detail: String,
    },
}

impl Reply {
    fn retry(why: String) -> Self {
        Self::Retry { why, after: None }
    }
}

impl OpenAiGenerator {
    /// Reads the API key from the variable `cfg.api_key_env` names (none when unnamed).
    pub fn new(cfg: &OpenAiConfig, catalogue: &[ToolSpec]) -> Result<Self, OpenAiError> {
        let key = match &cfg.api_key_env {
            Some(var) => Some(
                std::env::var(var)
                    .ok()
                    .filter(|k| !k.is_empty())
                    .ok_or_else(|| OpenAiError::MissingKey(var.clone()))?,
            ),
            None => None,
        };
        Self::with_key(cfg, catalogue, key)
    }

    /// As [`Self::new`], with the key given.
    pub fn with_key(
        cfg: &OpenAiConfig,
        catalogue: &[ToolSpec],
        key: Option<String>,
    ) -> Result<Self, OpenAiError> {
        let mut urls = Vec::new();
        for base in std::iter::once(&cfg.base_url).chain(&cfg.more_base_urls) {
            let trimmed = base.trim_end_matches('/');
            if !(trimmed.starts_with("http://") || trimmed.starts_with("https://")) {
                return Err(OpenAiError::BadUrl(base.clone()));
            }
            urls.push(format!("{trimmed}/chat/completions"));
        }
        let key = key.map(ApiKey);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent();
        Ok(Self {
            agent,
            pool: EndpointPool::shared(&urls, cfg.max_in_flight_per_endpoint),
            model: cfg.model.clone(),
            key,
            timeout: Duration::from_millis(cfg.timeout_ms.max(1)),
            max_retries: cfg.max_retries,
            max_tokens: cfg.max_completion_tokens,
            temperature: cfg.temperature,
            mode: OutputMode::JsonSchema,
            schema: constrained_turn_schema(catalogue),
            narrowed: None,
            gbnf: cfg.gbnf_grammar,
            narrowed_gbnf: None,
        })
    }

    /// The chat-completions URL of every endpoint.
    pub fn urls(&self) -> &[String] {
        self.pool.urls()
    }

    /// The structured-output mode in use (it steps down when a server refuses one).
    pub fn mode(&self) -> OutputMode {
        self.mode
    }

    fn body(&self, messages: &[ChatMessage]) -> Value {
        let msgs: Vec<Value> = fold_system(messages)
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        let mut body = json!({
            "model": self.model,
            "messages": msgs,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": 42,
        });
        if let Some(g) = &self.narrowed_gbnf {
            body["grammar"] = json!(g);
            return body;
        }
        let schema = self.narrowed.as_ref().unwrap_or(&self.schema);
        match self.mode {
            OutputMode::JsonSchema => {
                body["response_format"] = json!({"type": "json_schema", "json_schema": {
                    "name": TURN_FUNCTION, "strict": false, "schema": schema}});
            }
            OutputMode::ToolCall => {
                body["tools"] = json!([{"type": "function", "function": {
                    "name": TURN_FUNCTION,
                    "description": "The agent's turn: its intent and the actions to take.",
                    "parameters": schema}}]);
                body["tool_choice"] =
                    json!({"type": "function", "function": {"name": TURN_FUNCTION}});
            }
            OutputMode::PlainJson => {}
        }
        body
    }

    /// One blocking exchange (run on tokio's blocking pool).
    fn exchange(
        agent: ureq::Agent,
        url: String,
        key: Option<ApiKey>,
        body: String,
        timeout: Duration,
        mode: OutputMode,
        prompt: String,
    ) -> Reply {
        let started = std::time::Instant::now();
        let mut req = agent
            .post(&url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", "application/json");
        if let Some(k) = &key {
            req = req.header("Authorization", format!("Bearer {}", k.0));
        }
        let mut resp = match req.send(body.as_bytes()) {
            Ok(r) => r,
            // Transport errors (refused, reset, timed out) carry no secret: the key is a header.
            Err(e) => return Reply::retry(format!("request failed: {e}")),
        };
        let status = resp.status().as_u16();
        let after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(retry_after);
        // A server may echo the Authorization header in an error body, or a model the key in
        // its answer — plain or escaped: nothing it sends reaches an error, a log, a prompt or
        // a record in any form that decodes to the key (`redact`).
        let body = resp.body_mut().with_config().limit(MAX_BODY_BYTES);
        let text = match body.read_to_string() {
            Ok(t) => match &key {
                Some(k) => redact(&t, &k.0).into_owned(),
                None => t,
            },
            Err(e) => return Reply::retry(format!("reading the response failed: {e}")),
        };
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        match status {
            200..=299 => parse_response(&text, mode, prompt, latency_ms),
            // Before the structured-output test: a refusal of the key that names a field is
            // still a refusal of the key.
            401 | 403 => Reply::KeyRefused {
                status,
                detail: clip(&text),
            },
            // Some servers answer an unknown field with 400 or 422, llama-cpp-python with 500.
            400..=599 if mode != OutputMode::PlainJson && refuses_mode(&text, mode) => {
                Reply::Unsupported(format!("HTTP {status}: {}", clip(&text)))
            }
            408 | 409 | 429 | 500..=599 => Reply::Retry {
                why: format!("HTTP {status}: {}", clip(&text)),
                after: after.filter(|_| matches!(status, 429 | 503)),
            },
            _ => Reply::Fatal(format!("HTTP {status}: {}", clip(&text))),
        }
    }

    async fn run(
        &mut self,
        messages: &[ChatMessage],
        deadline: Instant,
    ) -> Result<Completion, GenerateError> {
        let started = Instant::now();
        let prompt: String = messages
            .iter()
            .map(|m| format!("{}: {}\n", m.role.as_str(), m.content))
            .collect();
        let mut backoff = BACKOFF_START;
        // Failures per endpoint; the last one that failed is avoided while another is free.
        let mut retries = vec![0u32; self.pool.len()];
        let mut avoid: Vec<usize> = Vec::new();
        let deadline_error = |started: Instant| GenerateError::Deadline {
            elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(deadline_error(started));
            }
            let lease = match self.pool.acquire(deadline, &avoid).await {
                Ok(l) => l,
                Err(e) => return Err(GenerateError::Transient(e.to_string())),
            };
            let now = Instant::now();
            let timeout = self.timeout.min(deadline.saturating_duration_since(now));
            let body = self.body(messages).to_string();
            let (agent, url, key, mode, p) = (
                self.agent.clone(),
                lease.url().to_owned(),
                self.key.clone(),
                self.mode,
                prompt.clone(),
            );
            let reply = tokio::task::spawn_blocking(move || {
                Self::exchange(agent, url, key, body, timeout, mode, p)
            })
            .await
            .unwrap_or_else(|e| Reply::Fatal(format!("request task failed: {e}")));
            let now = Instant::now();
            match reply {
                Reply::Ok(c) => {
                    lease.report(Outcome::Answered, now);
                    return Ok(c);
                }
                Reply::Unsupported(why) => {
                    lease.report(Outcome::Answered, now);
                    tracing::info!(mode = ?self.mode, %why, "server refused structured output; stepping down");
                    self.mode = match self.mode {
                        OutputMode::JsonSchema => OutputMode::ToolCall,
                        _ => OutputMode::PlainJson,
                    };
                }
                Reply::Fatal(m) => {
                    lease.report(Outcome::Answered, now);
                    return Err(GenerateError::Fatal(m));
                }
                Reply::KeyRefused { status, detail } => {
                    lease.report(Outcome::Answered, now);
                    return Err(GenerateError::KeyRefused { status, detail });
                }
                Reply::Retry { why, after } => {
                    let index = lease.index();
                    lease.report(after.map_or(Outcome::Failed, Outcome::Busy), now);
                    drop(lease);
                    // Each endpoint brings `max_retries + 1` attempts to the decision.
                    let n = retries.len() as u32;
                    if retries.iter().sum::<u32>() + 1 >= (self.max_retries + 1) * n {
                        return Err(GenerateError::Transient(why));
                    }
                    retries[index] += 1;
                    let tried = retries[index];
                    avoid = vec![index];
                    // Another endpoint awake (free, or busy and worth waiting for): go there
                    // at once. Otherwise back off (or wait out Retry-After), never past the
                    // deadline.
                    let elsewhere = self.pool.another_awake(index, now);
                    if elsewhere {
                        tracing::debug!(retry = tried, %why, "retrying on another endpoint");
                        continue;
                    }
                    let wake = now + after.unwrap_or(backoff);
                    if wake >= deadline {
                        return Err(GenerateError::Transient(why));
                    }
                    tracing::debug!(retry = tried, %why, "retrying");
                    tokio::time::sleep_until(wake).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }
}

/// The system header folded into the first user message. Some chat formats have no system
/// role and silently drop it (Gemma's, as llama-cpp-python applies it); every server keeps a
/// user message, and a prefix cache works the same on either.
fn fold_system(messages: &[ChatMessage]) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::with_capacity(messages.len());
    let mut system = String::new();
    for m in messages {
        match m.role {
            Role::System => {
                system.push_str(&m.content);
                system.push_str("\n\n");
            }
            Role::User if !system.is_empty() => {
                out.push(ChatMessage::new(
                    Role::User,
                    format!("{system}{}", m.content),
                ));
                system.clear();
            }
            _ => out.push(m.clone()),
        }
    }
    if !system.is_empty() {
        out.push(ChatMessage::new(Role::User, system.trim_end().to_owned()));
    }
    out
}

/// Whether an error body blames the structured-output field this mode sends.
fn refuses_mode(body: &str, mode: OutputMode) -> bool {
    let b = body.to_ascii_lowercase();
    match mode {
        OutputMode::JsonSchema => b.contains("response_format") || b.contains("json_schema"),
        OutputMode::ToolCall => b.contains("tool"),
        OutputMode::PlainJson => false,
    }
}

fn parse_response(text: &str, mode: OutputMode, prompt: String, latency_ms: f64) -> Reply {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Reply::retry(format!("the response is not JSON: {}", clip(text)));
    };
    let message = &v["choices"][0]["message"];
    let from_tool = message["tool_calls"][0]["function"]["arguments"].as_str();
    let content = message["content"].as_str();
    let completion = match (mode, from_tool, content) {
        (OutputMode::ToolCall, Some(args), _) => args,
        (_, _, Some(c)) => c,
        (_, Some(args), None) => args,
        _ => "",
    };
    let usage = &v["usage"];
    let n = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Reply::Ok(Completion {
        prompt,
        text: completion.to_owned(),
        prompt_tokens: n("/prompt_tokens"),
        cached_tokens: n("/prompt_tokens_details/cached_tokens"),
        completion_tokens: n("/completion_tokens"),
        latency_ms,
        ttft_ms: None,
    })
}

fn clip(s: &str) -> String {
    let c: String = s.chars().take(300).collect();
    if c.len() < s.len() {
        format!("{c}…")
    } else {
        c
    }
}

impl Generator for OpenAiGenerator {
    fn model(&self) -> &str {
        &self.model
    }

    /// Sends the narrowed schema as the structured-output schema (without llguidance's
    /// options), or its GBNF grammar where the server takes one.
    fn narrow(&mut self, narrowing: Option<Narrowing>) {
        // Only the form this server takes is written.
        let (schema, gbnf) = match narrowing {
            Some(n) if self.gbnf => (None, Some(n.gbnf())),
            Some(n) => (Some(n.schema()), None),
            None => (None, None),
        };
        self.narrowed = schema.map(|mut s| {
            if let Some(o) = s.as_object_mut() {
                o.remove("x-guidance");
            }
            s
        });
        self.narrowed_gbnf = gbnf;
    }

    fn generate<'a>(
        &'a mut self,
        messages: &'a [ChatMessage],
        deadline: Instant,
    ) -> BoxFuture<'a, Result<Completion, GenerateError>> {
        Box::pin(self.run(messages, deadline))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alpha3_core::protocol::catalogue;

    fn config(env: Option<&str>) -> OpenAiConfig {
        OpenAiConfig {
            base_url: "http://127.0.0.1:9/v1/".into(),
            more_base_urls: vec![],
            max_in_flight_per_endpoint: None,
            model: "m".into(),
            api_key_env: env.map(str::to_owned),
            timeout_ms: 1000,
            max_retries: 1,
            max_completion_tokens: 64,
            temperature: 0.0,
            gbnf_grammar: false,
        }
    }

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let g =
            OpenAiGenerator::with_key(&config(None), &catalogue(), Some("sk-secret-123".into()))
                .unwrap();
        let shown = format!("{g:?}");
        assert!(!shown.contains("sk-secret-123"), "{shown}");
        assert!(shown.contains("redacted"));
        assert_eq!(g.urls(), ["http://127.0.0.1:9/v1/chat/completions"]);
    }

    #[test]
    fn a_missing_key_variable_is_named() {
        let err = OpenAiGenerator::new(&config(Some("ALPHA3_TEST_NO_SUCH_VAR")), &catalogue())
            .unwrap_err();
        assert_eq!(
            err,
            OpenAiError::MissingKey("ALPHA3_TEST_NO_SUCH_VAR".into())
        );
    }

    #[test]
    fn the_system_header_is_folded_into_the_first_user_message() {
        let m = [
            ChatMessage::new(Role::System, "rules"),
            ChatMessage::new(Role::User, "state 1"),
            ChatMessage::new(Role::Assistant, "{}"),
            ChatMessage::new(Role::User, "state 2"),
        ];
        let f = fold_system(&m);
        assert_eq!(f.len(), 3);
        assert_eq!(f[0], ChatMessage::new(Role::User, "rules\n\nstate 1"));
        assert_eq!(&f[1..], &m[2..]);
    }

    #[test]
    fn refusals_are_told_from_other_errors() {
        assert!(refuses_mode(
            r#"{"detail":[{"loc":["body","response_format","type"]}]}"#,
            OutputMode::JsonSchema
        ));
        assert!(!refuses_mode(
            r#"{"error":"context too long"}"#,
            OutputMode::JsonSchema
        ));
        let Reply::Ok(c) = parse_response(
            r#"{"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"agent_turn","arguments":"{\"intent\":\"x\"}"}}]}}],"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}"#,
            OutputMode::ToolCall,
            String::new(),
            1.0,
        ) else {
            panic!()
        };
        assert_eq!(
            (
                c.text.as_str(),
                c.prompt_tokens,
                c.cached_tokens,
                c.completion_tokens
            ),
            ("{\"intent\":\"x\"}", 10, 4, 3)
        );
    }
}
