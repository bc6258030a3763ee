//! The operator channel of `alpha3 fly`: a person (or a ground-station bridge) talks to the
//! agent in lines of text — on stdin, and on a local socket (a Unix socket, or TCP on a
//! loopback address only: the channel is not authenticated, so it never listens on a network).
//! Every agent turn is written to stdout and to every connected client; the next line from any
//! source is the operator's turn.

use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

/// Lines longer than this are cut (a misbehaving client cannot grow the prompt unboundedly).
pub const MAX_LINE: usize = 2_000;

/// Where the ground-station bridge connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorSocket {
    Unix(PathBuf),
    Tcp(SocketAddr),
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
}

/// A running operator channel.
#[derive(Debug)]
pub struct OperatorChannel {
    incoming: mpsc::Receiver<String>,
    outgoing: broadcast::Sender<String>,
    echo_stdout: bool,
    local_tcp: Option<SocketAddr>,
    tasks: Vec<JoinHandle<()>>,
}

impl OperatorChannel {
    /// Opens the channel: stdin when `stdin`, and `socket` when given. Must run inside a tokio
    /// runtime.
    pub async fn open(stdin: bool, socket: Option<&OperatorSocket>) -> std::io::Result<Self> {
        let (tx, incoming) = mpsc::channel(64);
        let (outgoing, _) = broadcast::channel(64);
        let mut tasks = Vec::new();
        let mut local_tcp = None;
        if stdin {
            let tx = tx.clone();
            // A plain thread: a blocking stdin read must never hold up the runtime's shutdown.
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    if tx.blocking_send(clean(&line)).is_err() {
                        break;
                    }
                }
            });
        }
        match socket {
            Some(OperatorSocket::Tcp(addr)) => {
                let listener = tokio::net::TcpListener::bind(addr).await?;
                local_tcp = listener.local_addr().ok();
                let (tx, out) = (tx.clone(), outgoing.clone());
                tasks.push(tokio::spawn(async move {
                    while let Ok((stream, _)) = listener.accept().await {
                        let (r, w) = stream.into_split();
                        tokio::spawn(serve(r, w, tx.clone(), out.subscribe()));
                    }
                }));
            }
            Some(OperatorSocket::Unix(path)) => {
                // A stale socket file from an earlier run would make bind fail.
                if path.exists() {
                    std::fs::remove_file(path)?;
                }
                let listener = tokio::net::UnixListener::bind(path)?;
                let (tx, out) = (tx.clone(), outgoing.clone());
                tasks.push(tokio::spawn(async move {
                    while let Ok((stream, _)) = listener.accept().await {
                        let (r, w) = stream.into_split();
                        tokio::spawn(serve(r, w, tx.clone(), out.subscribe()));
                    }
                }));
            }
            None => {}
        }
        Ok(Self {
            incoming,
            outgoing,
            echo_stdout: true,
            local_tcp,
            tasks,
        })
    }

    /// The TCP address actually bound (for an ephemeral port).
    pub fn local_tcp(&self) -> Option<SocketAddr> {
        self.local_tcp
    }

    /// Don't print agent turns on stdout (stdout carries something else).
    pub fn quiet_stdout(mut self) -> Self {
        self.echo_stdout = false;
        self
    }

    /// Shows `line` to the operator: stdout and every connected client.
    pub fn say(&self, line: &str) {
        if self.echo_stdout {
            println!("{line}");
        }
        // No client connected is not an error.
        let _ = self.outgoing.send(line.to_string());
    }

    /// The operator's next turn: the first line within `wait`, with any lines right behind it.
    pub async fn next_message(&mut self, wait: Duration) -> Option<String> {
        let first = tokio::time::timeout(wait, self.incoming.recv())
            .await
            .ok()
            .flatten()?;
        let mut lines = vec![first];
        while let Ok(more) = self.incoming.try_recv() {
            lines.push(more);
        }
        Some(lines.join("\n"))
    }
}

impl Drop for OperatorChannel {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn clean(line: &str) -> String {
    let line = line.trim();
    let mut end = line.len().min(MAX_LINE);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_string()
}

/// One client: its lines in, agent turns out.
async fn serve<R, W>(
    reader: R,
    mut writer: W,
    tx: mpsc::Sender<String>,
    mut out: broadcast::Receiver<String>,
) where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = BufReader::new(reader).lines();
    loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(l)) => {
                    let l = clean(&l);
                    if !l.is_empty() && tx.send(l).await.is_err() {
                        return;
                    }
                }
                _ => return,
            },
            said = out.recv() => match said {
                Ok(s) => {
                    if writer.write_all(format!("{s}\n").as_bytes()).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

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
    async fn a_client_hears_the_agent_and_its_lines_are_the_operator_turn() {
        let socket = OperatorSocket::Tcp("127.0.0.1:0".parse().unwrap());
        let mut ch = OperatorChannel::open(false, Some(&socket))
            .await
            .unwrap()
            .quiet_stdout();
        let addr = ch.local_tcp().unwrap();
        let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        ch.say("agent: take_off [takeoff]");
        let mut buf = vec![0u8; 64];
        let n = client.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"agent: take_off [takeoff]\n");
        client
            .write_all(b"hold at the next waypoint\n")
            .await
            .unwrap();
        let got = ch.next_message(Duration::from_secs(5)).await;
        assert_eq!(got.as_deref(), Some("hold at the next waypoint"));
        assert_eq!(ch.next_message(Duration::from_millis(50)).await, None);
    }

    #[tokio::test]
    async fn a_unix_socket_works_too_and_long_lines_are_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("op.sock");
        let mut ch = OperatorChannel::open(false, Some(&OperatorSocket::Unix(path.clone())))
            .await
            .unwrap()
            .quiet_stdout();
        let mut client = tokio::net::UnixStream::connect(&path).await.unwrap();
        let long = "x".repeat(MAX_LINE * 2);
        client
            .write_all(format!("{long}\n").as_bytes())
            .await
            .unwrap();
        let got = ch.next_message(Duration::from_secs(5)).await.unwrap();
        assert_eq!(got.len(), MAX_LINE);
    }
}
