//! The operator channel of `alpha3 fly`: a person (or a ground-station bridge) talks to the
//! agent in lines of text — on stdin, and on a local socket (a Unix socket, or TCP on a
//! loopback address only: the channel is not authenticated, so it never listens on a network).
//! Every agent turn is written to stdout and to every connected client; the lines that came in
//! since are the operator's turn.
//!
//! Nothing a sender does grows memory without bound or loses a line it sent without a trace:
//! lines are framed from fixed-size reads ([`alpha3_core::operator_line`]: at most
//! [`MAX_LINE_BYTES`] a line, a longer one refused with a notice to its sender and a note to the
//! agent; invalid UTF-8 replaced, never the end of the input); the queue is bounded and pushes
//! back on the sender when full; a turn carries at most [`MAX_TURN_BYTES`], the rest waits for
//! the next turn; and what is still queued when the episode ends is returned by
//! [`OperatorChannel::close`] for the record. A Unix socket's path is taken only when nothing
//! or a stale socket is there ([`socket`]).

mod client;
pub mod socket;

pub use alpha3_core::operator_line::MAX_LINE_BYTES;
pub use socket::{OperatorSocket, SocketError};

use alpha3_core::record::Event;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

/// The most text one operator turn carries; lines past it wait for the next turn.
pub const MAX_TURN_BYTES: usize = 8 * MAX_LINE_BYTES;
/// The most unheard text kept for the record when the episode ends; lines past it are counted.
pub const MAX_UNHEARD_BYTES: usize = 1 << 20;
/// Lines queued between the readers and the agent (a full queue pushes back on the senders).
const QUEUE: usize = 64;
/// At the end, lines still on their way in are taken until none came for this long…
const CLOSE_QUIET: Duration = Duration::from_millis(100);
/// …or for this long at most.
const CLOSE_MAX: Duration = Duration::from_secs(2);

/// A running operator channel.
#[derive(Debug)]
pub struct OperatorChannel {
    incoming: mpsc::Receiver<String>,
    /// A line taken from the queue that did not fit in the last turn.
    held: Option<String>,
    outgoing: broadcast::Sender<String>,
    echo_stdout: bool,
    local_tcp: Option<SocketAddr>,
    /// The Unix socket file this channel made, removed when it closes.
    unix_path: Option<(PathBuf, (u64, u64))>,
    tasks: Vec<JoinHandle<()>>,
}

/// The operator lines the agent never heard, returned when the channel closes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unheard {
    pub lines: Vec<String>,
    /// Lines past [`MAX_UNHEARD_BYTES`], counted but not kept.
    pub dropped: u64,
}

impl Unheard {
    /// The record's event for them, when there are any.
    pub fn event(&self) -> Option<Event> {
        (!self.lines.is_empty() || self.dropped > 0).then(|| Event::OperatorUnheard {
            lines: self.lines.clone(),
            dropped: self.dropped,
        })
    }
}

impl OperatorChannel {
    /// Opens the channel: stdin when `stdin`, and `socket` when given. Must run inside a tokio
    /// runtime.
    pub async fn open(stdin: bool, socket: Option<&OperatorSocket>) -> Result<Self, SocketError> {
        let (tx, incoming) = mpsc::channel(QUEUE);
        let (outgoing, _) = broadcast::channel(64);
        let mut tasks = Vec::new();
        let mut local_tcp = None;
        let mut unix_path = None;
        if stdin {
            let tx = tx.clone();
            std::thread::spawn(move || client::read_stdin(tx));
        }
        match socket {
            Some(OperatorSocket::Tcp(addr)) => {
                let listener =
                    tokio::net::TcpListener::bind(addr)
                        .await
                        .map_err(|e| match e.kind() {
                            std::io::ErrorKind::AddrInUse => SocketError::InUse(addr.to_string()),
                            _ => SocketError::Io {
                                what: addr.to_string(),
                                source: e,
                            },
                        })?;
                local_tcp = listener.local_addr().ok();
                let (tx, out) = (tx.clone(), outgoing.clone());
                tasks.push(tokio::spawn(async move {
                    let mut n = 0u64;
                    while let Ok((stream, peer)) = listener.accept().await {
                        n += 1;
                        serve(stream, &tx, &out, format!("client {n} ({peer})"));
                    }
                }));
            }
            Some(OperatorSocket::Unix(path)) => {
                let (listener, identity) = socket::claim_unix_path(path)?;
                unix_path = Some((path.clone(), identity));
                let (tx, out) = (tx.clone(), outgoing.clone());
                let name = path.display().to_string();
                tasks.push(tokio::spawn(async move {
                    let mut n = 0u64;
                    while let Ok((stream, _)) = listener.accept().await {
                        n += 1;
                        serve(stream, &tx, &out, format!("client {n} ({name})"));
                    }
                }));
            }
            None => {}
        }
        Ok(Self {
            incoming,
            held: None,
            outgoing,
            echo_stdout: true,
            local_tcp,
            unix_path,
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

    /// The operator's next turn: the first line within `wait`, with the lines right behind it
    /// up to [`MAX_TURN_BYTES`] (the rest stay queued for the next turn).
    pub async fn next_message(&mut self, wait: Duration) -> Option<String> {
        let mut text = match self.held.take() {
            Some(line) => line,
            None => tokio::time::timeout(wait, self.incoming.recv())
                .await
                .ok()
                .flatten()?,
        };
        while let Ok(more) = self.incoming.try_recv() {
            if text.len() + 1 + more.len() > MAX_TURN_BYTES {
                self.held = Some(more);
                break;
            }
            text.push('\n');
            text.push_str(&more);
        }
        Some(text)
    }

    /// Stops taking clients and returns every line the agent has not heard: those queued, and
    /// those still on their way in from the readers (taken until the queue is quiet). Lines
    /// read after this are logged, not lost silently.
    pub async fn close(&mut self) -> Unheard {
        for t in &self.tasks {
            t.abort();
        }
        let mut unheard = Unheard::default();
        let mut kept = 0usize;
        let mut keep = |line: String, unheard: &mut Unheard| {
            if kept + line.len() <= MAX_UNHEARD_BYTES {
                kept += line.len();
                unheard.lines.push(line);
            } else {
                unheard.dropped += 1;
            }
        };
        if let Some(line) = self.held.take() {
            keep(line, &mut unheard);
        }
        let until = tokio::time::Instant::now() + CLOSE_MAX;
        while tokio::time::Instant::now() < until {
            match tokio::time::timeout(CLOSE_QUIET, self.incoming.recv()).await {
                Ok(Some(line)) => keep(line, &mut unheard),
                _ => break,
            }
        }
        self.incoming.close();
        while let Ok(line) = self.incoming.try_recv() {
            keep(line, &mut unheard);
        }
        let n = unheard.lines.len() as u64 + unheard.dropped;
        if n > 0 {
            tracing::warn!(
                lines = n,
                dropped = unheard.dropped,
                "operator lines arrived too late for the agent"
            );
            self.say(&format!(
                "alpha3: the episode has ended; {n} operator lines were not heard by the agent (the record keeps them)"
            ));
        }
        unheard
    }
}

impl Drop for OperatorChannel {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        if let Some((path, identity)) = &self.unix_path {
            socket::release_unix_path(path, *identity);
        }
    }
}

/// One client: a task reading its lines in, one writing agent turns and notices out.
fn serve<S>(
    stream: S,
    queue: &mpsc::Sender<String>,
    out: &broadcast::Sender<String>,
    source: String,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    let (r, w) = tokio::io::split(stream);
    let (notice_tx, notice_rx) = mpsc::channel(client::NOTICES);
    tokio::spawn(client::read_client(r, queue.clone(), notice_tx, source));
    tokio::spawn(client::write_client(w, out.subscribe(), notice_rx));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

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
    async fn a_long_line_is_refused_with_a_notice_and_the_agent_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("op.sock");
        let mut ch = OperatorChannel::open(false, Some(&OperatorSocket::Unix(path.clone())))
            .await
            .unwrap()
            .quiet_stdout();
        let client = tokio::net::UnixStream::connect(&path).await.unwrap();
        let (r, mut w) = client.into_split();
        let long = "x".repeat(MAX_LINE_BYTES * 2);
        let mut bytes = format!("{long}\nafter ").into_bytes();
        bytes.extend_from_slice(b"\xff\n");
        w.write_all(&bytes).await.unwrap();
        let mut heard = String::new();
        while !heard.contains("after") {
            heard += &ch.next_message(Duration::from_secs(5)).await.unwrap();
        }
        assert!(
            heard.starts_with("(alpha3: an operator line of 4000 bytes was refused"),
            "{heard}"
        );
        assert!(heard.ends_with("after \u{fffd}"), "{heard}");
        let mut notices = BufReader::new(r).lines();
        let first = notices.next_line().await.unwrap().unwrap();
        assert!(first.contains("refused a line of 4000 bytes"), "{first}");
        let second = notices.next_line().await.unwrap().unwrap();
        assert!(second.contains("not valid UTF-8"), "{second}");
        drop(ch);
        assert!(!path.exists(), "the channel removes the socket it made");
    }

    #[tokio::test]
    async fn a_client_that_left_is_read_to_its_end_and_nothing_it_sent_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("op.sock");
        let mut ch = OperatorChannel::open(false, Some(&OperatorSocket::Unix(path.clone())))
            .await
            .unwrap()
            .quiet_stdout();
        let sent: Vec<String> = (0..1000)
            .map(|i| format!("{i:05} {}", "y".repeat(90)))
            .collect();
        let mut client = tokio::net::UnixStream::connect(&path).await.unwrap();
        client
            .write_all((sent.join("\n") + "\n").as_bytes())
            .await
            .unwrap();
        drop(client);
        // The agent speaks to a client that is gone: writing fails, reading goes on.
        ch.say("agent: going on");
        let mut got: Vec<String> = Vec::new();
        for _ in 0..2 {
            let turn = ch.next_message(Duration::from_secs(5)).await.unwrap();
            assert!(turn.len() <= MAX_TURN_BYTES, "{}", turn.len());
            got.extend(turn.lines().map(str::to_owned));
            ch.say("agent: next");
        }
        let unheard = ch.close().await;
        assert_eq!(unheard.dropped, 0);
        assert!(!unheard.lines.is_empty());
        got.extend(unheard.lines);
        assert_eq!(got, sent);
    }
}
