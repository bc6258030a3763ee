//! The steered prompt: sized for small contexts, because every prompt token counts against the
//! episode's token budget and is evaluated on the companion computer. The mission brief once,
//! then per situation the observations as one short line, what the operator said (unless it
//! repeats the brief) and the state block instead of the raw state and link lines. With the
//! gate-aware grammar on, the header leaves out the tool catalogue: the grammar spells every
//! admissible action, so the model never has to recall a signature.

use super::examples::STEERED_EXAMPLES;
use alpha3_core::protocol::tools::CommandStatus;
use alpha3_core::protocol::{
    ChatMessage, Exchange, Role, Situation, ToolSpec, one_line, render_header, render_turn,
};
use std::fmt::Write as _;

/// The header of a steered policy (`grammar`: the gate-aware grammar is on).
pub fn steered_header(catalogue: &[ToolSpec], grammar: bool) -> String {
    let mut h = if grammar {
        String::from(
            "You are the mission agent of a drone. Every turn, answer with one JSON object:\n\
             {\"intent\":\"snake_case_goal\",\"actions\":[ACTION,...]}\n\
             Positions are metres from home: x east, y north, z up. Fly the mission's waypoints in \
             order, capture where it is owed, and answer the operator. A safety gate checks every \
             command; a refusal comes back as `last:`.",
        )
    } else {
        render_header(catalogue)
    };
    h.push_str(STEERED_EXAMPLES);
    h
}

/// The messages of a steered decision: the header, then one user message per situation (its
/// state block from `blocks`, by decision index) and one assistant message per past turn.
pub fn steered_messages(
    header: String,
    mission: &str,
    history: &[Exchange],
    now: &Situation,
    blocks: &[&str],
) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(2 * history.len() + 2);
    out.push(ChatMessage::new(Role::System, header));
    for (k, ex) in history.iter().enumerate() {
        let block = blocks.get(k).copied().unwrap_or_default();
        out.push(ChatMessage::new(
            Role::User,
            situation(mission, k == 0, &ex.situation, block),
        ));
        out.push(ChatMessage::new(Role::Assistant, render_turn(&ex.turn)));
    }
    let block = blocks.get(history.len()).copied().unwrap_or_default();
    out.push(ChatMessage::new(
        Role::User,
        situation(mission, history.is_empty(), now, block),
    ));
    out
}

fn situation(mission: &str, first: bool, s: &Situation, block: &str) -> String {
    let mut m = String::new();
    let brief = one_line(mission, 600);
    if first {
        let _ = writeln!(m, "mission: {brief}");
    }
    if !s.observations.is_empty() {
        let done: Vec<String> = s
            .observations
            .iter()
            .map(|o| {
                // No command outcome: the tool answered (a reading, an A2A reply).
                let status = o.status().map_or("ok", CommandStatus::as_str);
                format!("{} {status}", o.name)
            })
            .collect();
        let _ = writeln!(m, "obs: {}", done.join(", "));
    }
    if let Some(op) = &s.operator {
        let op = one_line(op, 400);
        if op != brief {
            let _ = writeln!(m, "operator: {op}");
        }
    }
    m.push_str(block);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::steer::testkit::situation;
    use alpha3_core::link::Slice;
    use alpha3_core::protocol::{AgentTurn, ToolObservation, catalogue};
    use serde_json::json;

    fn now(operator: Option<&str>) -> Situation {
        Situation {
            observations: vec![ToolObservation {
                name: "set_waypoint".into(),
                result: json!({"status": "accepted"}),
            }],
            operator: operator.map(str::to_owned),
            ..situation(Slice::Urllc, None)
        }
    }

    #[test]
    fn the_brief_appears_once_and_the_block_replaces_the_raw_state() {
        let brief = "Operator here. Fly waypoints 0: (1, 2, 30) in order.";
        let first = Exchange {
            situation: Situation {
                observations: vec![],
                ..now(Some(brief))
            },
            turn: AgentTurn {
                intent: "go".into(),
                actions: vec![crate::policy::actions::hold(None)],
            },
        };
        let msgs = steered_messages(
            steered_header(&catalogue(), true),
            brief,
            &[first],
            &now(Some("Copy.")),
            &["BLOCK0", "BLOCK1"],
        );
        assert_eq!(msgs.len(), 4);
        assert_eq!(msgs[1].content, format!("mission: {brief}\nBLOCK0"));
        assert_eq!(
            msgs[3].content,
            "obs: set_waypoint accepted\noperator: Copy.\nBLOCK1"
        );
        assert!(!msgs[0].content.contains("read_network"), "no catalogue");
        assert!(
            steered_header(&catalogue(), false).contains("read_network"),
            "the catalogue without the grammar"
        );
    }
}
