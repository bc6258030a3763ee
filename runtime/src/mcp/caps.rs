//! What one MCP client may send. Every tool call is written to the flight record (the call, the
//! turn, the observation) and checked against the tool's schema, so without caps one client
//! fills the disk and the CPU with a few calls carrying megabytes of text.

use serde_json::Value;

/// One JSON-RPC message (a stdio line, an HTTP body), bytes. The largest message a client needs
/// (`initialize` with its capabilities) is about a kilobyte; a megabyte parses in milliseconds.
pub const MESSAGE_BYTES: usize = 1 << 20;

/// A tool's name, bytes (the catalogue's longest is 20).
pub const TOOL_NAME_BYTES: usize = 64;

/// One string in a call's arguments, keys included, bytes (the catalogue's only free strings
/// are sensor names).
pub const STRING_ARGUMENT_BYTES: usize = 256;

/// A call's arguments as JSON, bytes (the largest valid call, `set_waypoint`, is under 100).
pub const ARGUMENTS_BYTES: usize = 4096;

/// Which cap a call is over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverCap {
    #[error("the tool name is {len} bytes, over the {cap}-byte cap for a tool name")]
    ToolName { len: usize, cap: usize },
    #[error(
        "a string in the arguments (at {at}) is {len} bytes, over the {cap}-byte cap for a string argument"
    )]
    String { at: String, len: usize, cap: usize },
    #[error(
        "the arguments are {len} bytes of JSON, over the {cap}-byte cap for a call's arguments"
    )]
    Arguments { len: usize, cap: usize },
}

/// Checks one `tools/call`: its name, every string (and key) in its arguments, then the
/// arguments as a whole.
pub fn check(name: &str, arguments: &Value) -> Result<(), OverCap> {
    if name.len() > TOOL_NAME_BYTES {
        return Err(OverCap::ToolName {
            len: name.len(),
            cap: TOOL_NAME_BYTES,
        });
    }
    long_string(arguments, "arguments")?;
    let len = json_len(arguments);
    if len > ARGUMENTS_BYTES {
        return Err(OverCap::Arguments {
            len,
            cap: ARGUMENTS_BYTES,
        });
    }
    Ok(())
}

/// The first string or key over the cap, with where it is (`arguments.sensor`, `arguments[2]`).
fn long_string(v: &Value, at: &str) -> Result<(), OverCap> {
    let over = |len: usize, at: &str| OverCap::String {
        at: super::excerpt::text(at, STRING_ARGUMENT_BYTES),
        len,
        cap: STRING_ARGUMENT_BYTES,
    };
    match v {
        Value::String(s) if s.len() > STRING_ARGUMENT_BYTES => Err(over(s.len(), at)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| long_string(item, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().try_for_each(|(k, item)| {
            if k.len() > STRING_ARGUMENT_BYTES {
                return Err(over(k.len(), &format!("a key of {at}")));
            }
            long_string(item, &format!("{at}.{k}"))
        }),
        _ => Ok(()),
    }
}

/// The length of `v` written as compact JSON, without writing it out.
pub fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // Writing a `Value` into a counter cannot fail.
    let _ = serde_json::to_writer(&mut n, v);
    n.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_within_the_caps_passes_and_each_cap_is_named_when_it_is_not() {
        assert_eq!(
            check("activate_sensor", &json!({"sensor": "camera"})),
            Ok(())
        );
        let long = "s".repeat(STRING_ARGUMENT_BYTES + 1);
        assert!(matches!(
            check(&"t".repeat(65), &json!({})),
            Err(OverCap::ToolName { len: 65, cap: 64 })
        ));
        let e = check("activate_sensor", &json!({"sensor": long})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a string in the arguments (at arguments.sensor) is 257 bytes, over the 256-byte cap for a string argument"
        );
        let e = check("x", &json!({"a": [1, {"b": long}]})).unwrap_err();
        assert!(e.to_string().contains("arguments.a[1].b"), "{e}");
        let e = check("x", &json!({ long.clone(): 1 })).unwrap_err();
        assert!(e.to_string().contains("a key of arguments"), "{e}");
        let many: serde_json::Map<String, Value> =
            (0..400).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert!(matches!(
            check("x", &Value::Object(many)),
            Err(OverCap::Arguments { cap: 4096, .. })
        ));
    }

    #[test]
    fn the_json_length_is_the_compact_serialisation() {
        let v = json!({"a": [1, "b"], "c": null});
        assert_eq!(json_len(&v), v.to_string().len());
    }
}
