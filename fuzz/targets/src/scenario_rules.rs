//! `alpha3 validate`'s rules for scenario documents, through the entry point the command uses
//! ([`check_text`] with [`DocumentKind::Scenario`]), so any rule added there is fuzzed too.
//!
//! Input: a first byte choosing the mode. Even: the rest is the document's text. Odd: the rest
//! is a program of edits to a real scenario (`configs/scenarios/sc-0001.json`) — set a value
//! anywhere to an absurd number, a string, null, an empty array or object; delete a key;
//! repeat an element; scale a subtree's numbers — so that the rules' edges are reached, not
//! only the JSON syntax. Invariants: no panic; every problem names a rule; a scenario that is
//! accepted, read into its type and written again, is still accepted.

use crate::bytes::{Bytes, text};
use alpha3_core::document::{DocumentKind, check_text};
use alpha3_core::scenario::Scenario;
use serde_json::{Map, Number, Value};

const BASE: &str = include_str!("../../../configs/scenarios/sc-0001.json");
const MAX_EDITS: usize = 24;

pub fn run(data: &[u8]) {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    if mode.is_multiple_of(2) {
        if let Some(text) = text(rest) {
            check(text);
        }
        return;
    }
    let Ok(mut doc) = serde_json::from_str::<Value>(BASE) else {
        panic!("the base scenario is not JSON");
    };
    let mut input = Bytes::new(rest);
    for _ in 0..MAX_EDITS {
        if input.is_empty() {
            break;
        }
        edit(&mut doc, &mut input);
    }
    if let Ok(text) = serde_json::to_string(&doc) {
        check(&text);
    }
}

fn check(text: &str) {
    let problems = check_text(DocumentKind::Scenario, text);
    for p in &problems {
        assert!(!p.rule.is_empty(), "a problem without a rule: {p:?}");
    }
    if !problems.is_empty() {
        return;
    }
    let scenario: Scenario = match serde_json::from_str(text) {
        Ok(s) => s,
        Err(e) => panic!("an accepted scenario does not read into its type: {e}"),
    };
    let again = match serde_json::to_string(&scenario) {
        Ok(t) => t,
        Err(e) => panic!("an accepted scenario does not serialise: {e}"),
    };
    let problems = check_text(DocumentKind::Scenario, &again);
    assert!(
        problems.is_empty(),
        "an accepted scenario, written again, is refused: {problems:?}"
    );
}

/// Every JSON pointer in `v`, the root included, in document order.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// A number from the input: a flight-sized one, an absurd one, or any finite bit pattern.
fn number(input: &mut Bytes) -> Value {
    let x = match input.u8() % 6 {
        0 => input.f64(),
        1 => [0.0, -0.0, 1e300, -1e300, 1e308, f64::MIN_POSITIVE, 1e-300]
            [usize::from(input.u8() % 7)],
        2 => f64::from(input.u32()),
        3 => -f64::from(input.u16()),
        _ => input.coordinate(),
    };
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn scale(v: &mut Value, by: f64) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64().and_then(|x| Number::from_f64(x * by)) {
                *n = x;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scale(x, by)),
        Value::Object(m) => m.values_mut().for_each(|x| scale(x, by)),
        _ => {}
    }
}

fn edit(doc: &mut Value, input: &mut Bytes) {
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let op = input.u8();
    let at = all[usize::from(input.u16()) % all.len()].clone();
    let value = match op % 10 {
        0..=2 => number(input),
        3 => Value::String(String::from_utf8_lossy(input.slice(24)).into_owned()),
        4 => Value::Array(Vec::new()),
        5 => Value::Object(Map::new()),
        6 => match input.u8() % 3 {
            0 => Value::Null,
            n => Value::Bool(n == 1),
        },
        7 => {
            remove(doc, &at);
            return;
        }
        8 => {
            if let Some(Value::Array(a)) = doc.pointer_mut(&at)
                && let Some(first) = a.first().cloned()
            {
                let times = usize::from(input.u8() % 64) + 1;
                a.extend(std::iter::repeat_n(first, times));
            }
            return;
        }
        _ => {
            let by = [-1.0, 0.0, 1e3, 1e6, 1e-6, 1e12][usize::from(input.u8() % 6)];
            if let Some(v) = doc.pointer_mut(&at) {
                scale(v, by);
            }
            return;
        }
    };
    if let Some(v) = doc.pointer_mut(&at) {
        *v = value;
    }
}

fn remove(doc: &mut Value, at: &str) {
    let Some((parent, key)) = at.rsplit_once('/') else {
        return;
    };
    let key = key.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.shift_remove(&key);
        }
        Some(Value::Array(a)) => {
            if let Ok(i) = key.parse::<usize>()
                && i < a.len()
            {
                a.remove(i);
            }
        }
        _ => {}
    }
}
