//! One source of operator lines (stdin, or a client of the socket): bytes are read in fixed
//! chunks and framed by [`LineFramer`], so memory stays bounded whatever the sender sends, and
//! every framed line is queued for the agent. The queue is bounded; a full queue stops the
//! reading (back-pressure on the sender), never drops a line. A socket client's reading and
//! writing are separate tasks: a client that stops reading cannot stop its lines from being
//! read, and one that went away is still read to its end.

use alpha3_core::operator_line::{Framed, LineFramer, MAX_LINE_BYTES};
use std::io::Read;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc};

/// Bytes read at a time.
const READ_CHUNK: usize = 8 * 1024;
/// Notices waiting for a client that does not read; more are logged instead.
pub(super) const NOTICES: usize = 16;

/// What a framed line becomes: the text queued for the agent, and the notice for its sender.
/// Refusals and repairs are logged here, and the agent (hence the record) hears of a refused
/// line too.
pub(super) fn admit(framed: Framed, source: &str) -> (String, Option<String>) {
    let notice = framed.notice();
    match framed {
        Framed::Line { text, replaced } => {
            if replaced {
                tracing::warn!(
                    source,
                    "operator line with invalid UTF-8: the bytes were replaced"
                );
            }
            (text, notice)
        }
        Framed::TooLong { bytes } => {
            tracing::warn!(
                source,
                bytes,
                limit = MAX_LINE_BYTES,
                "operator line refused: too long"
            );
            let text = format!(
                "(alpha3: an operator line of {bytes} bytes was refused, over the {MAX_LINE_BYTES}-byte limit; its sender was told)"
            );
            (text, notice)
        }
    }
}

/// A line that was read but can no longer be queued (the episode is over): logged, so that
/// nothing read is lost without a trace.
fn undelivered(source: &str, text: &str) {
    tracing::warn!(
        source,
        line = text,
        "operator line arrived after the episode ended; not delivered"
    );
}

/// Reads a socket client's lines until it closes (or the channel does).
pub(super) async fn read_client<R>(
    mut reader: R,
    queue: mpsc::Sender<String>,
    notices: mpsc::Sender<String>,
    source: String,
) where
    R: AsyncRead + Unpin,
{
    let mut framer = LineFramer::default();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut framed = Vec::new();
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                tracing::info!(source = %source, "operator client: read failed: {e}");
                break;
            }
        };
        framer.push(&buf[..n], |f| framed.push(f));
        for f in framed.drain(..) {
            if !deliver(f, &queue, &notices, &source).await {
                return;
            }
        }
    }
    if let Some(f) = framer.finish() {
        deliver(f, &queue, &notices, &source).await;
    }
}

/// Queues one framed line and tells its sender what became of it; false once the channel has
/// closed.
async fn deliver(
    f: Framed,
    queue: &mpsc::Sender<String>,
    notices: &mpsc::Sender<String>,
    source: &str,
) -> bool {
    let (text, notice) = admit(f, source);
    if let Some(notice) = notice
        && notices.try_send(notice).is_err()
    {
        tracing::info!(source, "operator client not reading: a notice was not sent");
    }
    match queue.send(text).await {
        Ok(()) => true,
        Err(mpsc::error::SendError(text)) => {
            undelivered(source, &text);
            false
        }
    }
}

/// Writes the agent's turns and this client's notices to it, until it goes away.
pub(super) async fn write_client<W>(
    mut writer: W,
    mut said: broadcast::Receiver<String>,
    mut notices: mpsc::Receiver<String>,
) where
    W: AsyncWrite + Unpin,
{
    let mut notices_open = true;
    loop {
        let line = tokio::select! {
            s = said.recv() => match s {
                Ok(s) => s,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    format!("alpha3: {n} agent lines were skipped (this client read too slowly)")
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            n = notices.recv(), if notices_open => match n {
                Some(n) => n,
                None => {
                    notices_open = false;
                    continue;
                }
            },
        };
        if writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
}

/// Reads stdin's lines on a plain thread (a blocking read must never hold up the runtime's
/// shutdown) until it ends or the channel closes. Notices go to stderr, the terminal the
/// operator types in.
pub(super) fn read_stdin(queue: mpsc::Sender<String>) {
    let mut stdin = std::io::stdin().lock();
    let mut framer = LineFramer::default();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut framed = Vec::new();
    let deliver = |f: Framed| -> bool {
        let (text, notice) = admit(f, "stdin");
        if let Some(notice) = notice {
            eprintln!("{notice}");
        }
        match queue.blocking_send(text) {
            Ok(()) => true,
            Err(mpsc::error::SendError(text)) => {
                undelivered("stdin", &text);
                false
            }
        }
    };
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!("operator stdin: read failed, no more input from it: {e}");
                break;
            }
        };
        framer.push(&buf[..n], |f| framed.push(f));
        for f in framed.drain(..) {
            if !deliver(f) {
                return;
            }
        }
    }
    if let Some(f) = framer.finish() {
        deliver(f);
    }
}
