//! Renders a decision's context — mission, dialogue so far, vehicle snapshot, link state and the
//! tool catalogue — into chat messages for a policy.
//!
//! Two properties shape the text. It is compact and example-led, because the smallest model we
//! run (Gemma 3 270M, a base model) follows a pattern far better than an instruction. And it is
//! append-only: the messages for turn k+1 begin with exactly the messages for turn k followed by
//! the agent's answer, so a local backend keeps its KV cache and evaluates only the new text.

use super::catalogue::{ToolClass, ToolKind, ToolSpec};
use super::tools::CommandStatus;
use super::turn::AgentTurn;
use crate::link::{HardThresholds, LinkSample};
use crate::snapshot::{FixType, FlightMode, VehicleSnapshot};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Write as _;

/// Who speaks a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The name chat templates and OpenAI-compatible APIs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of a rendered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
}

/// The result of one action, as the agent gets it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolObservation {
    /// The tool (MCP) or task (A2A) it answers.
    pub name: String,
    pub result: Value,
}

impl ToolObservation {
    /// The command outcome the result reports ([`CommandStatus::of`]: `None` when none).
    pub fn status(&self) -> Option<CommandStatus> {
        CommandStatus::of(&self.result)
    }
}

/// What the runtime sees when it asks for a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Situation {
    pub snapshot: VehicleSnapshot,
    pub link: LinkSample,
    /// Results of the previous agent turn's actions, in the same order.
    #[serde(default)]
    pub observations: Vec<ToolObservation>,
    /// What the operator said since the previous agent turn.
    #[serde(default)]
    pub operator: Option<String>,
}

/// A past decision: what was seen, and what the agent answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub situation: Situation,
    pub turn: AgentTurn,
}

/// Everything a policy needs to decide.
#[derive(Debug, Clone, Copy)]
pub struct PromptContext<'a> {
    pub catalogue: &'a [ToolSpec],
    /// The mission brief, as the operator gave it.
    pub mission: &'a str,
    /// Earlier decisions of this episode, oldest first.
    pub history: &'a [Exchange],
    pub now: &'a Situation,
    /// When the link counts as hard (shown to the agent as `HARD`).
    pub hard: &'a HardThresholds,
}

/// The chat messages for one decision: a system header (rules, catalogue, examples), then one
/// user message per situation and one assistant message per past turn, ending with the user
/// message of the current situation.
pub fn render(ctx: &PromptContext<'_>) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(2 * ctx.history.len() + 2);
    out.push(ChatMessage::new(Role::System, render_header(ctx.catalogue)));
    let mut first = true;
    for ex in ctx.history {
        out.push(ChatMessage::new(
            Role::User,
            situation_message(ctx.mission, first, &ex.situation, ctx.hard),
        ));
        out.push(ChatMessage::new(Role::Assistant, render_turn(&ex.turn)));
        first = false;
    }
    out.push(ChatMessage::new(
        Role::User,
        situation_message(ctx.mission, first, ctx.now, ctx.hard),
    ));
    out
}

/// The canonical text of an agent turn: compact JSON, keys in schema order. Backends that
/// constrain decoding produce exactly this form, so re-rendering it keeps the KV cache valid.
pub fn render_turn(turn: &AgentTurn) -> String {
    serde_json::to_string(turn).unwrap_or_else(|_| String::from("{}"))
}

/// The follow-up user message asking for a corrected answer after `error`.
pub fn repair_message(error: &str) -> String {
    let mut e: String = error.chars().take(400).collect();
    if e.len() < error.len() {
        e.push('…');
    }
    format!(
        "error: {e}\nAnswer again with one JSON object {{\"intent\":...,\"actions\":[...]}} using only the tools listed."
    )
}

fn situation_message(mission: &str, first: bool, s: &Situation, hard: &HardThresholds) -> String {
    let mut m = String::new();
    if first {
        let _ = writeln!(m, "mission: {}", one_line(mission, 600));
    }
    m.push_str(&render_situation(s, hard));
    m
}

/// The situation as a few short lines: observations, operator, state, link.
pub fn render_situation(s: &Situation, hard: &HardThresholds) -> String {
    let mut m = String::new();
    for o in &s.observations {
        let result = serde_json::to_string(&o.result).unwrap_or_default();
        let _ = writeln!(m, "obs {}: {}", o.name, one_line(&result, 400));
    }
    if let Some(op) = &s.operator {
        let _ = writeln!(m, "operator: {}", one_line(op, 400));
    }
    let _ = writeln!(m, "{}", render_snapshot(&s.snapshot));
    let _ = write!(m, "{}", render_link(&s.link, hard));
    m
}

/// One line of vehicle state, numbers rounded to one decimal (as grounding compares them)
/// and written without a trailing `.0` (every digit is a token for the smallest models).
pub fn render_snapshot(v: &VehicleSnapshot) -> String {
    let p = v.position;
    let vel = v.velocity;
    format!(
        "state t={}s {} {} mode={} pos=({},{},{}) vel=({},{},{}) yaw={} battery={}% gnss={}/{}",
        num(v.time_ms as f64 / 1000.0, 1),
        if v.armed { "armed" } else { "disarmed" },
        if v.is_airborne() {
            "airborne"
        } else {
            "on_ground"
        },
        mode_name(v.mode),
        num(p.x, 1),
        num(p.y, 1),
        num(p.z, 1),
        num(vel.x, 1),
        num(vel.y, 1),
        num(vel.z, 1),
        num(v.yaw_deg, 0),
        num(v.battery.remaining_pct, 1),
        fix_name(v.gnss.fix),
        v.gnss.satellites,
    )
}

/// One line of link state, flagged `HARD` when any threshold is crossed.
pub fn render_link(l: &LinkSample, hard: &HardThresholds) -> String {
    format!(
        "link {} lat={}ms jitter={}ms loss={}% thr={}Mbps edge={} {}",
        l.slice,
        num(l.lat_ms, 1),
        num(l.jitter_ms, 1),
        num(l.loss_pct, 1),
        num(l.throughput_mbps, 1),
        num(l.edge_load, 2),
        if l.is_hard(hard) { "HARD" } else { "ok" }
    )
}

/// `x` rounded to `decimals`, without trailing zeros: 30.0 → `30`, 0.30 → `0.3`, -0.0 → `0`.
pub fn num(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return String::from("null");
    }
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" {
        String::from("0")
    } else {
        s.to_owned()
    }
}

fn mode_name(m: FlightMode) -> String {
    match m {
        FlightMode::Other(raw) => format!("other({raw})"),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| String::from("unknown")),
    }
}

fn fix_name(f: FixType) -> &'static str {
    match f {
        FixType::None => "none",
        FixType::Fix2d => "2d",
        FixType::Fix3d => "3d",
        FixType::Dgps => "dgps",
        FixType::RtkFloat => "rtk_float",
        FixType::RtkFixed => "rtk_fixed",
    }
}

/// Collapses whitespace runs (so a message cannot fake a new line of the protocol) and caps
/// the length in characters.
pub fn one_line(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars));
    let mut n = 0;
    for word in s.split_whitespace() {
        if n > 0 {
            out.push(' ');
        }
        for c in word.chars() {
            if n >= max_chars {
                out.push('…');
                return out;
            }
            out.push(c);
            n += 1;
        }
        n += 1;
    }
    out
}

/// The fixed system header: the answer format, the rules, the catalogue and two examples.
/// Depends only on the catalogue, so it is shared (and cached) across episodes.
pub fn render_header(catalogue: &[ToolSpec]) -> String {
    let mut h = String::from(
        "You are the mission agent of a drone. Every turn, answer with exactly one JSON object and nothing else:\n\
         {\"intent\":\"snake_case_goal\",\"actions\":[ACTION,...]}\n\
         ACTION is {\"type\":\"mcp\",\"name\":TOOL,\"args\":{...}} or {\"type\":\"a2a\",\"task\":TASK,\"to\":PEER,\"payload\":{...}}.\n\
         Positions are metres from home: x east, y north, z up. A safety gate checks every command; a denial comes back as obs.\n\
         Read state before acting. When the link is HARD, switch control to URLLC and defer capture.\n\
         tools (arguments are numbers unless marked; ? = optional):\n",
    );
    for t in catalogue.iter().filter(|t| t.kind == ToolKind::Mcp) {
        let _ = writeln!(h, "{}", tool_line(t));
    }
    h.push_str("a2a tasks:\n");
    for t in catalogue.iter().filter(|t| t.kind == ToolKind::A2a) {
        let _ = writeln!(h, "{}", tool_line(t));
    }
    h.push_str(EXAMPLES);
    h
}

const EXAMPLES: &str = "example:\n\
state t=0s disarmed on_ground mode=hold pos=(0,0,0) vel=(0,0,0) yaw=0 battery=100% gnss=3d/12\n\
link URLLC lat=6ms jitter=1ms loss=0.1% thr=50Mbps edge=0.3 ok\n\
answer: {\"intent\":\"take_off\",\"actions\":[{\"type\":\"mcp\",\"name\":\"takeoff\",\"args\":{\"altitude_m\":30}}]}\n\
example:\n\
state t=40s armed airborne mode=offboard pos=(120,80,30) vel=(0,0,0) yaw=90 battery=82% gnss=3d/12\n\
link eMBB lat=65ms jitter=9ms loss=2% thr=3Mbps edge=0.9 HARD\n\
answer: {\"intent\":\"secure_control_link\",\"actions\":[{\"type\":\"mcp\",\"name\":\"switch_network_slice\",\"args\":{\"slice\":\"URLLC\"}},{\"type\":\"mcp\",\"name\":\"hold\",\"args\":{}}]}";

fn tool_line(t: &ToolSpec) -> String {
    let class = match t.class {
        ToolClass::ControlCritical => "control",
        ToolClass::Sensing => "sensing",
        ToolClass::Monitoring => "monitor",
    };
    let args = signature(&t.args_schema, 0);
    let args = args
        .strip_prefix('{')
        .and_then(|a| a.strip_suffix('}'))
        .unwrap_or(&args);
    format!("{}({args}) {class}", t.name)
}

/// A compact signature of a JSON Schema, numbers unmarked: `{waypoint:{x,y,z},speed_mps?}`,
/// `{sensor:str,kind?:"image"|"scan"|"clip"}`. Short, because every token of the header is
/// evaluated by the smallest devices; exact types are enforced by the schema anyway.
pub fn signature(schema: &Value, depth: usize) -> String {
    if depth > 4 {
        return String::from("any");
    }
    if let Some(c) = schema.get("const") {
        return c.to_string();
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        return join(e.iter().map(Value::to_string), "|");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .map(|b| signature(b, depth + 1))
                .collect();
            return parts.join("|");
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => "any",
    };
    match ty {
        "object" => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let props = schema.get("properties").and_then(Value::as_object);
            let fields = props.into_iter().flatten().map(|(k, v)| {
                let opt = if required.contains(&k.as_str()) {
                    ""
                } else {
                    "?"
                };
                match signature(v, depth + 1).as_str() {
                    "num" => format!("{k}{opt}"),
                    sig => format!("{k}{opt}:{sig}"),
                }
            });
            format!("{{{}}}", join(fields, ","))
        }
        "array" => format!(
            "[{}]",
            schema
                .get("items")
                .map_or_else(|| String::from("any"), |i| signature(i, depth + 1))
        ),
        "number" | "integer" => String::from("num"),
        "string" => String::from("str"),
        "boolean" => String::from("bool"),
        other => String::from(other),
    }
}

fn join(parts: impl Iterator<Item = String>, sep: &str) -> String {
    parts.collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::Geo;
    use crate::link::Slice;
    use crate::protocol::{Action, catalogue};
    use serde_json::json;

    fn situation(t_ms: u64, loss_pct: f64) -> Situation {
        Situation {
            snapshot: VehicleSnapshot::on_ground_at_home(Geo::default(), t_ms),
            link: LinkSample {
                slice: Slice::Urllc,
                lat_ms: 7.0,
                jitter_ms: 1.0,
                loss_pct,
                throughput_mbps: 50.0,
                edge_load: 0.3,
            },
            observations: vec![],
            operator: None,
        }
    }

    fn turn() -> AgentTurn {
        AgentTurn {
            intent: "read_state".into(),
            actions: vec![Action::mcp("read_telemetry", json!({}))],
        }
    }

    #[test]
    fn the_header_lists_every_tool_with_its_signature() {
        let h = render_header(&catalogue());
        for t in catalogue() {
            assert!(h.contains(&format!("\n{}(", t.name)), "{}", t.name);
        }
        assert!(h.contains("\nset_waypoint(waypoint:{x,y,z},speed_mps?) control\n"));
        assert!(h.contains(r#"switch_network_slice(slice:"URLLC"|"eMBB"|"mMTC") control"#));
        assert!(h.contains(r#"capture(sensor:str,kind?:"image"|"scan"|"clip") sensing"#));
        assert!(h.contains("\nread_telemetry() monitor\n"));
        assert!(h.contains("collision_avoidance(pose:{x,y,z},planned_path:[{x,y,z}],speed_mps?)"));
    }

    #[test]
    fn rendering_is_append_only_across_turns() {
        let c = catalogue();
        let hard = HardThresholds::default();
        let s1 = situation(0, 0.1);
        let s2 = Situation {
            observations: vec![ToolObservation {
                name: "read_telemetry".into(),
                result: json!({"battery_pct": 99.0}),
            }],
            operator: Some("go   north\nnow".into()),
            ..situation(5000, 2.0)
        };
        let ctx = PromptContext {
            catalogue: &c,
            mission: "survey the field",
            history: &[],
            now: &s1,
            hard: &hard,
        };
        let first = render(&ctx);
        let history = vec![Exchange {
            situation: s1.clone(),
            turn: turn(),
        }];
        let second = render(&PromptContext {
            history: &history,
            now: &s2,
            ..ctx
        });
        assert_eq!(first.len(), 2);
        assert_eq!(second.len(), 4);
        assert_eq!(&second[..2], &first[..]);
        assert_eq!(second[2].role, Role::Assistant);
        assert_eq!(second[2].content, render_turn(&turn()));
        assert!(
            first[1]
                .content
                .starts_with("mission: survey the field\nstate t=0s disarmed")
        );
        let last = &second[3].content;
        assert!(!last.contains("mission"));
        assert!(last.contains("obs read_telemetry: {\"battery_pct\":99.0}"));
        assert!(last.contains("operator: go north now\n"));
        assert!(last.ends_with("HARD"), "{last}");
    }

    #[test]
    fn the_canonical_turn_round_trips() {
        let text = render_turn(&turn());
        assert_eq!(
            text,
            r#"{"intent":"read_state","actions":[{"type":"mcp","name":"read_telemetry","args":{}}]}"#
        );
        let back: AgentTurn = serde_json::from_str(&text).unwrap();
        assert_eq!(back, turn());
    }

    #[test]
    fn the_examples_are_valid_turns() {
        let v =
            jsonschema::validator_for(&crate::protocol::agent_turn_schema(&catalogue())).unwrap();
        for line in EXAMPLES.lines().filter_map(|l| l.strip_prefix("answer: ")) {
            let value: Value = serde_json::from_str(line).unwrap();
            assert!(v.is_valid(&value), "{line}");
        }
    }

    #[test]
    fn numbers_are_written_short() {
        assert_eq!(num(30.0, 1), "30");
        assert_eq!(num(0.30, 2), "0.3");
        assert_eq!(num(-0.04, 1), "0");
        assert_eq!(num(12.345, 1), "12.3");
        assert_eq!(num(f64::NAN, 1), "null");
        assert_eq!(num(89.96, 0), "90");
    }

    #[test]
    fn repair_messages_quote_a_bounded_error() {
        let m = repair_message(&"x".repeat(1000));
        assert!(m.starts_with("error: xxx"));
        assert!(m.chars().count() < 520);
    }
}
