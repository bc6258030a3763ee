//! A JSON-RPC message the server cannot read is answered, not dropped: the SDK ignores a line
//! that is not JSON, so a client that sent one waits forever. JSON-RPC 2.0 answers a parse
//! error (−32700) and an invalid request (−32600) with `id: null` when the id cannot be read;
//! a message over the size cap is not parsed, but its id is read from its first bytes when it
//! comes first (as clients write it), so the client hears which request was refused.

use super::caps::MESSAGE_BYTES;
use rmcp::model::ClientJsonRpcMessage;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

/// JSON-RPC's parse error.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
pub const INVALID_REQUEST: i64 = -32600;

/// Bytes of an oversized message kept to find its id in.
pub const ID_PREFIX_BYTES: usize = 4096;

/// UTF-8 byte order mark; RFC 8259 §8.1 lets a parser ignore it.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a message was not read, as the JSON-RPC error that answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    pub code: i64,
    pub message: String,
    /// The request's id, or `null` when it could not be read.
    pub id: Value,
}

impl Unreadable {
    /// A message of `len` bytes (`None`: not read to its end) over the cap; `head` is its first
    /// bytes.
    pub fn too_large(head: &[u8], len: Option<usize>) -> Self {
        let size = len.map_or_else(String::new, |n| format!("{n} bytes, "));
        Self {
            code: PARSE_ERROR,
            message: format!(
                "Parse error: the message is {size}over the {MESSAGE_BYTES}-byte cap on one JSON-RPC message; it was not read"
            ),
            id: id_from_head(head),
        }
    }

    /// The JSON-RPC error response (`id` always present, `null` when unknown).
    pub fn response(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
    }

    /// The response as one line of newline-delimited JSON.
    pub fn line(&self) -> Vec<u8> {
        let mut line = self.response().to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// Reads one whole message: `Ok(None)` for a notification that is not one of the protocol's
/// (it gets no answer, as any notification), an [`Unreadable`] for anything else that is not a
/// client message.
pub fn read(bytes: &[u8]) -> Result<Option<ClientJsonRpcMessage>, Unreadable> {
    let bytes = without_bom(bytes);
    let e = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(m) => return Ok(Some(m)),
        Err(e) => e,
    };
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Err(Unreadable {
            code: PARSE_ERROR,
            message: format!("Parse error: the message is not JSON: {e}"),
            id: Value::Null,
        });
    };
    let id = value.get("id").filter(|i| i.is_string() || i.is_number());
    if id.is_none() && value.get("method").is_some_and(Value::is_string) {
        return Ok(None);
    }
    Err(Unreadable {
        code: INVALID_REQUEST,
        message: format!("Invalid Request: not a JSON-RPC 2.0 message of an MCP client: {e}"),
        id: id.cloned().unwrap_or(Value::Null),
    })
}

/// `bytes` without a leading byte order mark.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// The `id` of a message cut short, if it is a string or number that comes before the cut.
pub fn id_from_head(head: &[u8]) -> Value {
    struct FindId<'a>(&'a mut Option<Value>);
    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    let id: Value = map.next_value()?;
                    if id.is_string() || id.is_number() {
                        *self.0 = Some(id);
                    }
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut found = None;
    let head = without_bom(&head[..head.len().min(ID_PREFIX_BYTES)]);
    let mut de = serde_json::Deserializer::from_slice(head);
    // The rest of the message is missing, so the parse as a whole fails after the id is seen.
    let _ = serde::Deserializer::deserialize_map(&mut de, FindId(&mut found));
    found.unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_utf8_nan_and_garbage_are_parse_errors_with_a_null_id() {
        for bad in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}"
                [..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":NaN}}",
            b"not json",
            b"",
        ] {
            let e = read(bad).unwrap_err();
            assert_eq!(e.code, PARSE_ERROR, "{}", String::from_utf8_lossy(bad));
            assert_eq!(e.response()["id"], Value::Null);
        }
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request_with_its_id_if_it_has_one() {
        let e = read(br#"{"jsonrpc":"2.0","id":7,"params":{}}"#).unwrap_err();
        assert_eq!((e.code, e.id.clone()), (INVALID_REQUEST, Value::from(7)));
        let e = read(b"[1,2]").unwrap_err();
        assert_eq!((e.code, e.id), (INVALID_REQUEST, Value::Null));
        // A notification that cannot be read gets no answer, as any notification.
        assert!(
            read(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":"bad"}"#)
                .unwrap()
                .is_none()
        );
        let ok = read(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").unwrap();
        assert!(ok.is_some(), "a leading byte order mark is allowed");
    }

    #[test]
    fn an_oversized_message_is_answered_with_the_id_read_from_its_head() {
        let head = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x","arguments":{"s":"AAAA"#;
        let e = Unreadable::too_large(head, Some(10 << 20));
        assert_eq!(e.id, Value::from(42));
        assert!(
            e.message
                .contains("10485760 bytes, over the 1048576-byte cap"),
            "{}",
            e.message
        );
        assert_eq!(id_from_head(br#"{"id":"a-1","#), Value::from("a-1"));
        assert_eq!(id_from_head(br#"{"params":{"x":"AAAA"#), Value::Null);
        assert_eq!(id_from_head(b"xxxx"), Value::Null);
        let e = Unreadable::too_large(b"", None);
        assert!(e.message.contains("message is over the"), "{}", e.message);
    }
}
