//! Who made a call: the MCP session (its `Mcp-Session-Id` over HTTP, `stdio` for the one stdio
//! session) and the client as it introduced itself in `initialize`. The record names both for
//! every call, so several clients flying one vehicle can be told apart afterwards.

use super::excerpt;

/// Bytes of a client's name (and of its version) the record keeps.
const NAME_BYTES: usize = 64;

/// A session's identity, bounded: a client's name is its own to choose, and it is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub session: String,
    /// `name version`, as the client gave them in `initialize`.
    pub client: String,
}

impl Caller {
    pub fn new(session: &str, name: &str, version: &str) -> Self {
        Self {
            session: excerpt::text(session, NAME_BYTES),
            client: format!(
                "{} {}",
                excerpt::text(name, NAME_BYTES),
                excerpt::text(version, NAME_BYTES)
            ),
        }
    }
}

impl std::fmt::Display for Caller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "session {} (client {})", self.session, self.client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_is_named_by_session_and_client_and_a_long_name_is_cut() {
        let c = Caller::new("3f2a", "probe", "1.0");
        assert_eq!(c.to_string(), "session 3f2a (client probe 1.0)");
        let long = Caller::new("s", &"n".repeat(100_000), "1");
        assert!(long.client.len() < 200, "{}", long.client);
        assert!(long.client.contains("[truncated, 100000 bytes]"));
    }
}
