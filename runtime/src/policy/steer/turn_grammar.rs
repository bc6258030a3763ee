//! The narrowed turn as a grammar: a snake_case intent, then one to [`MAX_ACTIONS`] admissible
//! actions in an order [`Admissible`] allows, each written exactly as the canonical compact
//! rendering (so the model's text re-renders byte-identically and the KV cache stays valid).
//! The same grammar is written for llguidance (Lark, the local backend) and for llama.cpp's
//! servers (GBNF, the remote backend), so both backends decode under one constraint.

use super::admissible::{Admissible, narrowed_schema, short_numbers};
use crate::policy::grammar::MAX_ACTIONS;
use alpha3_core::protocol::Action;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;

const OPEN: &str = "{\"intent\":\"";
const MIDDLE: &str = "\",\"actions\":[";
const CLOSE: &str = "]}";

/// One decision's turn constraint: its admissible set, written in whichever form a backend
/// takes (each backend asks for one, once per decision).
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowing(Admissible);

impl Narrowing {
    pub fn new(set: Admissible) -> Self {
        Self(set)
    }

    /// The admissible actions in any order (JSON Schema: all a schema-only server can take).
    pub fn schema(&self) -> Value {
        narrowed_schema(&self.0.distinct_actions())
    }

    /// The exact grammar (order and no repeats) in llguidance's Lark syntax.
    pub fn lark(&self) -> String {
        write_grammar(&self.0, &rules(&self.0), &LARK)
    }

    /// The same grammar in llama.cpp's GBNF.
    pub fn gbnf(&self) -> String {
        write_grammar(&self.0, &rules(&self.0), &GBNF)
    }
}

/// The compact text of `a` as the grammar spells it (whole numbers without `.0`).
pub fn action_text(a: &Action) -> String {
    serde_json::to_value(a)
        .map(|v| short_numbers(&v).to_string())
        .unwrap_or_default()
}

/// One rule: action `item` as the `depth`-th of the turn, and what may come after it.
struct Rule {
    item: usize,
    depth: u64,
    next: Vec<usize>,
    /// The turn may end after this action.
    ends: bool,
}

/// The first actions, and every (action, depth) reachable from them.
fn rules(set: &Admissible) -> (Vec<usize>, Vec<Rule>) {
    // An action fits at `depth` when the ones it forces still fit in the turn.
    let fits = |j: usize, depth: u64| depth + set.forced[j] as u64 <= MAX_ACTIONS;
    let first: Vec<usize> = (0..set.len())
        .filter(|&j| set.may_follow(None, j) && fits(j, 1))
        .collect();
    let mut todo: Vec<(usize, u64)> = first.iter().map(|&j| (j, 1)).collect();
    let mut seen: BTreeSet<(usize, u64)> = todo.iter().copied().collect();
    let mut out = Vec::new();
    while let Some((item, depth)) = todo.pop() {
        let next: Vec<usize> = if depth < MAX_ACTIONS {
            (item + 1..set.len())
                .filter(|&k| set.may_follow(Some(item), k) && fits(k, depth + 1))
                .collect()
        } else {
            Vec::new()
        };
        for &k in &next {
            if seen.insert((k, depth + 1)) {
                todo.push((k, depth + 1));
            }
        }
        out.push(Rule {
            item,
            depth,
            next,
            ends: set.forced[item] == 0,
        });
    }
    out.sort_by_key(|r| (r.depth, r.item));
    (first, out)
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// What differs between the two syntaxes.
struct Syntax {
    /// The start rule's name.
    start: &'static str,
    /// What follows a rule's name (`:`, ` ::=`).
    defines: &'static str,
    /// Joins an action's index and depth in a rule name (GBNF names allow no `_`).
    sep: char,
    /// The intent's grammar, and a line defining it if it is a named token.
    intent: &'static str,
    intent_token: &'static str,
}

/// llguidance's Lark: the intent is a regex token.
const LARK: Syntax = Syntax {
    start: "start",
    defines: ":",
    sep: '_',
    intent: "INTENT",
    intent_token: "INTENT: /[a-z][a-z0-9_]{0,39}/\n",
};

/// llama.cpp's GBNF.
const GBNF: Syntax = Syntax {
    start: "root",
    defines: " ::=",
    sep: '-',
    intent: "[a-z] [a-z0-9_]{0,39}",
    intent_token: "",
};

fn write_grammar(
    set: &Admissible,
    (first, rules): &(Vec<usize>, Vec<Rule>),
    syn: &Syntax,
) -> String {
    let name = |j: usize, d: u64| format!("a{j}{}{d}", syn.sep);
    let alts = |items: &[usize], d: u64| {
        items
            .iter()
            .map(|&j| name(j, d))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let defines = syn.defines;
    let mut g = format!(
        "{}{defines} {} {} {} first {}\n{}first{defines} {}\n",
        syn.start,
        quoted(OPEN),
        syn.intent,
        quoted(MIDDLE),
        quoted(CLOSE),
        syn.intent_token,
        alts(first, 1)
    );
    for r in rules {
        let text = quoted(&action_text(&set.actions[r.item]));
        let _ = if r.next.is_empty() {
            writeln!(g, "{}{defines} {text}", name(r.item, r.depth))
        } else {
            writeln!(
                g,
                "{}{defines} {text} (\",\" ({})){}",
                name(r.item, r.depth),
                alts(&r.next, r.depth + 1),
                if r.ends { "?" } else { "" }
            )
        };
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::actions;
    use crate::policy::steer::testkit::situation;
    use crate::policy::steer::{MissionFacts, admissible_actions};
    use alpha3_core::link::Slice;
    use alpha3_core::protocol::tools::CaptureKind;
    use alpha3_core::protocol::{AgentTurn, render_turn};
    use llguidance::api::TopLevelGrammar;
    use llguidance::toktrie::ApproximateTokEnv;
    use llguidance::{Matcher, ParserFactory};

    fn set() -> Admissible {
        let facts = MissionFacts {
            waypoints: vec![[10.0, 0.0, 30.0], [20.0, 0.0, 30.0], [30.5, 0.0, 30.0]],
            remaining: vec![
                (0, [10.0, 0.0, 30.0]),
                (1, [20.0, 0.0, 30.0]),
                (2, [30.5, 0.0, 30.0]),
            ],
            total_waypoints: 3,
            captures_owed: vec![(1, CaptureKind::Image)],
            hold_owed_s: None,
            sites: vec![[0.0, 0.0]],
            band_m: (15.0, 120.0),
            reserve_pct: 20.0,
            sensors: vec!["rgb".into()],
            active: vec![],
            peers: vec![],
        };
        admissible_actions(&facts, &situation(Slice::Urllc, Some(30.0)))
    }

    /// Whether the Lark grammar, compiled by llguidance over a byte tokenizer, accepts `text`.
    fn lark_accepts(grammar: &str, text: &str) -> bool {
        let env = ApproximateTokEnv::single_byte_env();
        let mut factory = ParserFactory::new_simple(&env).unwrap();
        factory.quiet();
        let parser = factory
            .create_parser(TopLevelGrammar::from_lark(grammar.to_owned()))
            .unwrap();
        let mut m = Matcher::new(Ok(parser));
        assert!(m.get_error().is_none(), "{:?}", m.get_error());
        let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
        m.consume_tokens(&tokens).is_ok() && m.is_accepting().unwrap_or(false)
    }

    /// The turn as the model writes it under the grammar, checked against the canonical
    /// rendering of its parse (what the history re-renders, for the KV cache).
    fn turn(actions: Vec<Action>) -> String {
        let texts: Vec<String> = actions.iter().map(action_text).collect();
        let text = format!("{{\"intent\":\"go_on\",\"actions\":[{}]}}", texts.join(","));
        let parsed: AgentTurn = serde_json::from_str(&text).unwrap();
        assert_eq!(render_turn(&parsed), text);
        text
    }

    #[test]
    fn the_grammar_spells_exactly_the_admitted_turns() {
        let set = set();
        let n = Narrowing::new(set.clone());
        let (lark, gbnf) = (n.lark(), n.gbnf());
        let w = |x: f64| actions::set_waypoint([x, 0.0, 30.0], None);
        let on = actions::activate_sensor("rgb");
        let shoot = actions::capture("rgb", CaptureKind::Image);
        let good = [
            vec![w(10.0), actions::return_to_home()],
            vec![actions::hold(None)],
        ];
        let bad = [
            vec![w(10.0), w(10.0)],
            vec![w(20.0)],
            vec![w(10.0), w(20.0), shoot.clone()],
            vec![w(10.0), w(20.0), w(30.5)],
            vec![w(10.0), w(20.0)],
            vec![w(10.0), w(20.0), on.clone()],
            vec![w(10.0), w(20.0), on.clone(), shoot.clone(), w(30.5)],
            vec![actions::hold(None), w(10.0)],
            vec![actions::takeoff(30.0)],
        ];
        for t in good {
            assert!(set.admits(&t), "{t:?}");
            let text = turn(t);
            assert!(lark_accepts(&lark, &text), "{text}");
        }
        for t in bad {
            assert!(!set.admits(&t), "{t:?}");
            let text = turn(t);
            assert!(!lark_accepts(&lark, &text), "{text}");
        }
        assert!(!lark_accepts(&lark, "{\"intent\":\"Go\",\"actions\":[]}"));
        assert!(gbnf.starts_with("root ::= "), "{gbnf}");
        assert_eq!(
            gbnf.lines().count(),
            lark.lines().count() - 1,
            "one rule per rule (Lark has the INTENT token on its own line)"
        );
    }

    #[test]
    fn whole_numbers_are_written_without_a_fraction() {
        let a = actions::set_waypoint([10.0, 0.0, 30.5], None);
        assert_eq!(
            action_text(&a),
            "{\"type\":\"mcp\",\"name\":\"set_waypoint\",\"args\":{\"waypoint\":{\"x\":10,\"y\":0,\"z\":30.5}}}"
        );
    }
}
