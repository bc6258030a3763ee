//! Where the ground-station bridge connects, and how a Unix socket's path is claimed: only a
//! missing path or a stale socket (one nobody listens on, left by a crash) is ours to take. A
//! regular file, a directory, a link or a live socket at the path is someone else's, and `fly`
//! refuses to start rather than delete it.

use std::net::SocketAddr;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Where the ground-station bridge connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorSocket {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

/// Why the operator socket cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error(
        "{0}: exists and is not a socket; refusing to replace it (remove it or choose another path)"
    )]
    NotASocket(PathBuf),
    #[error("{0}: another process is listening there; refusing to replace it")]
    InUse(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl SocketError {
    fn io(what: impl std::fmt::Display, source: std::io::Error) -> Self {
        Self::Io {
            what: what.to_string(),
            source,
        }
    }

    /// The path or address was refused as someone else's (the user must choose), rather than
    /// failing for a system reason.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::NotASocket(_) | Self::InUse(_))
    }
}

impl OperatorSocket {
    /// `unix:/run/alpha3/operator.sock` or `tcp:127.0.0.1:5761` (loopback addresses only).
    pub fn parse(text: &str) -> Result<Self, String> {
        if let Some(path) = text.strip_prefix("unix:") {
            if path.is_empty() {
                return Err("unix: needs a path".into());
            }
            return Ok(Self::Unix(PathBuf::from(path)));
        }
        if let Some(addr) = text.strip_prefix("tcp:") {
            let addr: SocketAddr = addr
                .parse()
                .map_err(|e| format!("{addr}: not an IP address and port ({e})"))?;
            if !addr.ip().is_loopback() {
                return Err(format!(
                    "{addr}: the operator channel listens on loopback addresses only"
                ));
            }
            return Ok(Self::Tcp(addr));
        }
        Err(format!("{text}: expected unix:PATH or tcp:127.0.0.1:PORT"))
    }

    /// Checks, before anything else is opened, that the socket can be claimed (nothing is
    /// changed: a stale socket is removed only when the channel opens).
    pub fn preflight(&self) -> Result<(), SocketError> {
        match self {
            Self::Unix(path) => inspect(path).map(|_| ()),
            Self::Tcp(_) => Ok(()),
        }
    }
}

/// What is at a Unix socket's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtPath {
    Nothing,
    StaleSocket,
}

fn inspect(path: &Path) -> Result<AtPath, SocketError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(AtPath::Nothing),
        Err(e) => return Err(SocketError::io(path.display(), e)),
    };
    if !meta.file_type().is_socket() {
        return Err(SocketError::NotASocket(path.to_path_buf()));
    }
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => Err(SocketError::InUse(path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(AtPath::StaleSocket),
        Err(e) => Err(SocketError::io(path.display(), e)),
    }
}

/// Binds a listener at `path`, replacing only a stale socket. Returns the listener and the
/// identity (device, inode) of the socket file it made, so that only that file is removed
/// when the channel closes.
pub(super) fn claim_unix_path(
    path: &Path,
) -> Result<(tokio::net::UnixListener, (u64, u64)), SocketError> {
    if inspect(path)? == AtPath::StaleSocket {
        tracing::info!(path = %path.display(), "removing a stale operator socket");
        std::fs::remove_file(path).map_err(|e| SocketError::io(path.display(), e))?;
    }
    let listener =
        tokio::net::UnixListener::bind(path).map_err(|e| SocketError::io(path.display(), e))?;
    let meta = std::fs::symlink_metadata(path).map_err(|e| SocketError::io(path.display(), e))?;
    Ok((listener, (meta.dev(), meta.ino())))
}

/// Removes the socket file made by [`claim_unix_path`], if it is still that file.
pub(super) fn release_unix_path(path: &Path, identity: (u64, u64)) {
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && (meta.dev(), meta.ino()) == identity
    {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_parse_and_stay_local() {
        assert_eq!(
            OperatorSocket::parse("unix:/tmp/op.sock").unwrap(),
            OperatorSocket::Unix("/tmp/op.sock".into())
        );
        assert!(OperatorSocket::parse("tcp:127.0.0.1:5761").is_ok());
        assert!(OperatorSocket::parse("tcp:[::1]:5761").is_ok());
        assert!(OperatorSocket::parse("tcp:0.0.0.0:5761").is_err());
        assert!(OperatorSocket::parse("tcp:192.168.1.2:5761").is_err());
        assert!(OperatorSocket::parse("serial:/dev/tty").is_err());
        assert!(OperatorSocket::parse("unix:").is_err());
    }

    #[tokio::test]
    async fn only_a_missing_path_or_a_stale_socket_is_claimed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "keep me").unwrap();
        let sock = OperatorSocket::Unix(file.clone());
        assert!(matches!(sock.preflight(), Err(SocketError::NotASocket(_))));
        assert!(matches!(
            claim_unix_path(&file),
            Err(SocketError::NotASocket(_))
        ));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
        assert!(matches!(
            claim_unix_path(dir.path()),
            Err(SocketError::NotASocket(_))
        ));

        let path = dir.path().join("op.sock");
        let (live, _) = claim_unix_path(&path).unwrap();
        let err = claim_unix_path(&path).unwrap_err();
        assert!(matches!(err, SocketError::InUse(_)) && err.is_refusal());
        drop(live); // the file stays: a stale socket, as a crash leaves it
        assert!(path.exists());
        OperatorSocket::Unix(path.clone()).preflight().unwrap();
        let (_again, id) = claim_unix_path(&path).unwrap();
        release_unix_path(&path, (id.0, id.1.wrapping_add(1)));
        assert!(path.exists(), "only the file this run made is removed");
        release_unix_path(&path, id);
        assert!(!path.exists());
    }
}
