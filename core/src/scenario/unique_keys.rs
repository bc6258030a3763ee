//! JSON text to a [`Value`], refusing a key given twice in one object. serde_json keeps the last
//! of two equal keys in a `Value` but refuses them in a typed struct, so a scenario with
//! `radius_m` twice meant one thing to a reader through `Value` and was refused by one through
//! the type; read here, it is refused by both, at the duplicate's JSON pointer.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Why the text is not a JSON document with unique keys.
#[derive(Debug)]
pub(super) enum NotUnique {
    /// Not JSON at all: the parser's error (with line and column).
    Syntax(serde_json::Error),
    /// A key given twice: where (JSON pointer of the second), which key, and the parser's
    /// position.
    Duplicate {
        pointer: String,
        key: String,
        error: serde_json::Error,
    },
}

/// Parses `text` as one JSON document whose objects have unique keys.
pub(super) fn parse_unique(text: &str) -> Result<Value, NotUnique> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Seed {
        pointer: String::new(),
        duplicate: &found,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match (parsed, found.into_inner()) {
        (Ok(v), _) => Ok(v),
        (Err(error), Some((pointer, key))) => Err(NotUnique::Duplicate {
            pointer,
            key,
            error,
        }),
        (Err(e), None) => Err(NotUnique::Syntax(e)),
    }
}

/// Builds the value at `pointer`, noting the first duplicate key in `duplicate`.
struct Seed<'a> {
    pointer: String,
    duplicate: &'a RefCell<Option<(String, String)>>,
}

impl Seed<'_> {
    fn below(&self, step: &str) -> Self {
        let step = step.replace('~', "~0").replace('/', "~1");
        Seed {
            pointer: format!("{}/{step}", self.pointer),
            duplicate: self.duplicate,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // As serde_json's own `Value`: JSON text has no non-finite numbers.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self.below(&items.len().to_string()))? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let below = self.below(&key);
            if out.contains_key(&key) {
                let message = format!("duplicate key `{key}`");
                *self.duplicate.borrow_mut() = Some((below.pointer, key));
                return Err(de::Error::custom(message));
            }
            let value = map.next_value_seed(below)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_with_unique_keys_reads_as_serde_json_reads_it() {
        let text = r#"{"a": [1, -2, 3.5, {"b~/c": null, "d": true}], "e": "x", "f": 1e300}"#;
        let ours = parse_unique(text).unwrap();
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap(),
            "same key order"
        );
    }

    #[test]
    fn a_duplicate_key_is_refused_at_its_pointer_with_its_line() {
        let text = "{\"a\": [{\"r\": 1},\n {\"x/y\": 1, \"x/y\": 2}]}";
        match parse_unique(text) {
            Err(NotUnique::Duplicate {
                pointer,
                key,
                error,
            }) => {
                assert_eq!((pointer.as_str(), key.as_str()), ("/a/1/x~1y", "x/y"));
                assert_eq!(error.line(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_unique("{\"a\": 1,}"),
            Err(NotUnique::Syntax(_))
        ));
        assert!(matches!(parse_unique("{} {}"), Err(NotUnique::Syntax(_))));
    }
}
