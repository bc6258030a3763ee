//! Where streamable HTTP may listen, and the bearer token that guards it: loopback by default;
//! any other address only with `--allow-remote` and a token read from the environment variable
//! `--token-env` names (the token is never printed, logged or recorded).

use std::net::SocketAddr;

/// A bearer token; its `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

impl BearerToken {
    /// Whether an `Authorization` header value carries this token (`Bearer <token>`), compared
    /// in time independent of where the first difference is.
    pub fn admits(&self, header: Option<&[u8]>) -> bool {
        let Some(given) = header.and_then(|h| h.strip_prefix(b"Bearer ")) else {
            return false;
        };
        let want = self.0.as_bytes();
        let mut diff = u8::from(given.len() != want.len());
        for (i, w) in want.iter().enumerate() {
            diff |= w ^ given.get(i).copied().unwrap_or(0);
        }
        diff == 0
    }
}

/// An address the server may listen on, with the token requests must carry (if any).
#[derive(Debug, Clone)]
pub struct Listen {
    pub addr: SocketAddr,
    pub token: Option<BearerToken>,
}

/// Why the server may not listen where it was asked to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListenError {
    #[error(
        "{addr} is not a loopback address: other machines could fly the vehicle; pass --allow-remote and --token-env VAR"
    )]
    NotLoopback { addr: SocketAddr },
    #[error("listening on {addr} needs a bearer token: pass --token-env VAR")]
    NoToken { addr: SocketAddr },
    #[error("the environment variable {var} (--token-env) is unset or empty")]
    TokenMissing { var: String },
}

/// Applies the rule: loopback freely (with a token when `token_env` names one); anything else
/// only when `allow_remote` and with a non-empty token from `token_env`. `env` reads the
/// environment (a parameter, so the rule is tested without touching the process's).
pub fn check(
    addr: SocketAddr,
    allow_remote: bool,
    token_env: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Listen, ListenError> {
    let token = match token_env {
        Some(var) => Some(
            env(var)
                .filter(|t| !t.trim().is_empty())
                .map(BearerToken)
                .ok_or_else(|| ListenError::TokenMissing { var: var.into() })?,
        ),
        None => None,
    };
    if !addr.ip().is_loopback() {
        if !allow_remote {
            return Err(ListenError::NotLoopback { addr });
        }
        if token.is_none() {
            return Err(ListenError::NoToken { addr });
        }
    }
    Ok(Listen { addr, token })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_with(value: Option<&str>) -> impl Fn(&str) -> Option<String> {
        let value = value.map(str::to_string);
        move |_| value.clone()
    }

    #[test]
    fn loopback_is_free_and_anything_else_needs_the_flag_and_a_token() {
        let lo: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        let v6: SocketAddr = "[::1]:8765".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8765".parse().unwrap();
        assert!(
            check(lo, false, None, env_with(None))
                .unwrap()
                .token
                .is_none()
        );
        assert!(check(v6, false, None, env_with(None)).is_ok());
        assert_eq!(
            check(any, false, None, env_with(None)).unwrap_err(),
            ListenError::NotLoopback { addr: any }
        );
        assert_eq!(
            check(any, false, Some("T"), env_with(Some("s3cret"))).unwrap_err(),
            ListenError::NotLoopback { addr: any }
        );
        assert_eq!(
            check(any, true, None, env_with(None)).unwrap_err(),
            ListenError::NoToken { addr: any }
        );
        assert_eq!(
            check(any, true, Some("T"), env_with(Some(" "))).unwrap_err(),
            ListenError::TokenMissing { var: "T".into() }
        );
        let l = check(any, true, Some("T"), env_with(Some("s3cret"))).unwrap();
        assert!(!format!("{l:?}").contains("s3cret"));
    }

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let t = BearerToken("s3cret".into());
        assert!(t.admits(Some(b"Bearer s3cret")));
        for bad in [
            &b"Bearer s3cre"[..],
            b"Bearer s3cret2",
            b"bearer s3cret",
            b"s3cret",
            b"Bearer ",
        ] {
            assert!(!t.admits(Some(bad)), "{}", String::from_utf8_lossy(bad));
        }
        assert!(!t.admits(None));
    }
}
