//! What the flight record keeps of a client's text that is over a cap: its first bytes and
//! how long it was, so the record shows what was sent without growing with it.

use super::caps::{ARGUMENTS_BYTES, STRING_ARGUMENT_BYTES, json_len};
use serde_json::Value;

/// Bytes kept of a string over its cap.
pub const KEPT_BYTES: usize = 64;

/// Bytes kept of a call's arguments (as JSON) that are over the cap as a whole.
pub const KEPT_ARGUMENTS_BYTES: usize = 256;

/// `s` itself when it fits in `keep` bytes; else its first bytes (cut at a character) and
/// `…[truncated, N bytes]`.
pub fn text(s: &str, keep: usize) -> String {
    if s.len() <= keep {
        return s.to_string();
    }
    let mut end = keep;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[truncated, {} bytes]", &s[..end], s.len())
}

/// `arguments` with every string and key over the cap cut to an excerpt; if they are still
/// over the cap as a whole, an excerpt of their JSON.
pub fn arguments(arguments: &Value) -> Value {
    let cut = strings(arguments);
    if json_len(&cut) <= ARGUMENTS_BYTES {
        return cut;
    }
    Value::String(text(&cut.to_string(), KEPT_ARGUMENTS_BYTES))
}

fn strings(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > STRING_ARGUMENT_BYTES => Value::String(text(s, KEPT_BYTES)),
        Value::Array(items) => Value::Array(items.iter().map(strings).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, item)| {
                    let key = if k.len() > STRING_ARGUMENT_BYTES {
                        text(k, KEPT_BYTES)
                    } else {
                        k.clone()
                    };
                    (key, strings(item))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_text_keeps_its_head_and_says_how_long_it_was() {
        assert_eq!(text("short", 64), "short");
        let long = "a".repeat(10_000);
        assert_eq!(
            text(&long, 4),
            "aaaa…[truncated, 10000 bytes]",
            "cut at the byte count"
        );
        // Never inside a character.
        assert_eq!(text("ééé", 3), "é…[truncated, 6 bytes]");
    }

    #[test]
    fn oversized_arguments_become_bounded_excerpts() {
        let long = "A".repeat(1 << 20);
        let cut = arguments(&json!({"sensor": long, "n": 1}));
        assert_eq!(cut["n"], 1);
        assert!(
            cut["sensor"]
                .as_str()
                .unwrap()
                .ends_with("[truncated, 1048576 bytes]")
        );
        let many: serde_json::Map<String, Value> =
            (0..2000).map(|i| (format!("k{i}"), json!("v"))).collect();
        let cut = arguments(&Value::Object(many));
        let s = cut.as_str().unwrap();
        assert!(s.len() < KEPT_ARGUMENTS_BYTES + 40, "{s}");
        assert!(s.contains("[truncated,"), "{s}");
    }
}
