//! MCP over standard input and output, newline-delimited JSON-RPC, with every line answered:
//! a line over [`MESSAGE_BYTES`] is skipped unread and refused, and a line that is not a
//! client message (bad UTF-8, `NaN`, garbage) gets JSON-RPC's parse error with `id: null`,
//! where the SDK's own stdio transport drops both and leaves the client waiting for an answer.

use super::caps::MESSAGE_BYTES;
use super::unreadable::{self, ID_PREFIX_BYTES, Unreadable};
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Answers written but not yet on the wire; the reader waits when they pile up, so a client
/// that sends garbage without reading its answers does not grow our memory.
const OUTGOING: usize = 16;

/// How long closing waits for the last answers to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// The server's stdio transport.
pub struct GuardedStdio<R> {
    lines: Lines<R>,
    out: mpsc::Sender<Vec<u8>>,
    writer: Option<JoinHandle<()>>,
    /// An answer to an unreadable line, kept until the writer takes it (so a cancelled receive
    /// does not lose it).
    unsent: Option<Vec<u8>>,
}

impl<R> std::fmt::Debug for GuardedStdio<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedStdio")
            .field("line_bytes", &self.lines.len)
            .field("unsent", &self.unsent.is_some())
            .finish_non_exhaustive()
    }
}

impl GuardedStdio<tokio::io::Stdin> {
    /// Standard input and output.
    pub fn stdio() -> Self {
        Self::new(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl<R: AsyncRead + Unpin> GuardedStdio<R> {
    pub fn new(read: R, write: impl AsyncWrite + Unpin + Send + 'static) -> Self {
        let (out, rx) = mpsc::channel(OUTGOING);
        Self {
            lines: Lines::new(read),
            out,
            writer: Some(tokio::spawn(write_lines(rx, write))),
            unsent: None,
        }
    }
}

/// Writes each line and flushes it, until every sender is gone or the output fails.
async fn write_lines(mut rx: mpsc::Receiver<Vec<u8>>, mut write: impl AsyncWrite + Unpin) {
    while let Some(line) = rx.recv().await {
        if let Err(e) = async {
            write.write_all(&line).await?;
            write.flush().await
        }
        .await
        {
            tracing::warn!("MCP over stdio: writing an answer: {e}");
            return;
        }
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::BrokenPipe,
        "the MCP stdio output is closed",
    )
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for GuardedStdio<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            out.send(line).await.map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.unsent.is_some() {
                // Reserving is cancel-safe; the answer leaves `unsent` only once it is queued.
                let permit = self.out.reserve().await.ok()?;
                if let Some(line) = self.unsent.take() {
                    permit.send(line);
                }
            }
            let answer = match self.lines.next().await {
                Line::Whole(bytes) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match unreadable::read(&bytes) {
                        Ok(Some(message)) => return Some(message),
                        Ok(None) => continue,
                        Err(e) => e,
                    }
                }
                Line::TooLong { head, len } => Unreadable::too_large(&head, Some(len)),
                Line::End => return None,
                Line::Failed(e) => {
                    tracing::warn!("MCP over stdio: reading: {e}");
                    return None;
                }
            };
            tracing::debug!("MCP over stdio: {}", answer.message);
            self.unsent = Some(answer.line());
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The writer ends once the last sender is gone, after what was queued is written.
        let (gone, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.out, gone));
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, writer).await;
        }
        Ok(())
    }
}

/// One line read, never holding more than [`MESSAGE_BYTES`] of it.
enum Line {
    /// A whole line within the cap, its newline (and a carriage return) taken off.
    Whole(Vec<u8>),
    /// A line over the cap, read to its end and dropped: its first bytes and its length.
    TooLong {
        head: Vec<u8>,
        len: usize,
    },
    End,
    Failed(std::io::Error),
}

/// Newline-delimited lines under the cap. Cancel-safe: the line so far lives here, not in the
/// future, so a `receive` dropped mid-line resumes it.
struct Lines<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Bytes of the current line so far (past the cap, only the head is kept).
    len: usize,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(read: R) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            len: 0,
        }
    }

    async fn next(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(a) => a,
                Err(e) => return Line::Failed(e),
            };
            if available.is_empty() {
                return Line::End;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.len + take <= MESSAGE_BYTES {
                self.line.extend_from_slice(&available[..take]);
            } else {
                self.line.truncate(ID_PREFIX_BYTES);
                let room = ID_PREFIX_BYTES.saturating_sub(self.line.len()).min(take);
                self.line.extend_from_slice(&available[..room]);
            }
            self.len += take;
            self.read.consume(take);
            if newline.is_none() {
                continue;
            }
            let len = std::mem::take(&mut self.len);
            let mut line = std::mem::take(&mut self.line);
            if len > MESSAGE_BYTES {
                return Line::TooLong { head: line, len };
            }
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Line::Whole(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::AsyncReadExt;

    async fn answers_to(input: Vec<u8>) -> (Vec<Value>, usize) {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let mut t = GuardedStdio::new(server_read, server_write);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let (mut r, mut w) = tokio::io::split(&mut client);
            let feed = async {
                w.write_all(&input).await.unwrap();
                w.shutdown().await.unwrap();
            };
            let mut got = Vec::new();
            let read = r.read_to_end(&mut got);
            let (_, n) = tokio::join!(feed, read);
            n.unwrap();
            got
        });
        let mut messages = 0;
        while Transport::<RoleServer>::receive(&mut t).await.is_some() {
            messages += 1;
        }
        Transport::<RoleServer>::close(&mut t).await.unwrap();
        drop(t);
        let got = writer.await.unwrap();
        let answers = String::from_utf8(got)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (answers, messages)
    }

    #[tokio::test]
    async fn every_unreadable_line_is_answered_and_good_lines_still_pass() {
        let mut input = Vec::new();
        input.extend_from_slice(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}\n",
        );
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":NaN}\n");
        input.extend_from_slice(b"\n\r\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n");
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","arguments":{"s":""#);
        input.extend(std::iter::repeat_n(b'A', MESSAGE_BYTES + 10));
        input.extend_from_slice(b"\"}}}\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n");
        let (answers, messages) = answers_to(input).await;
        assert_eq!(messages, 2, "the two pings got through");
        let codes: Vec<(i64, Value)> = answers
            .iter()
            .map(|a| (a["error"]["code"].as_i64().unwrap(), a["id"].clone()))
            .collect();
        assert_eq!(
            codes,
            [
                (-32700, Value::Null),
                (-32700, Value::Null),
                (-32700, Value::from(4))
            ]
        );
        let big = answers[2]["error"]["message"].as_str().unwrap();
        assert!(big.contains("1048576-byte cap"), "{big}");
    }
}
