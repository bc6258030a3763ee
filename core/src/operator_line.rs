//! Operator lines from untrusted bytes: the sans-IO framing of `alpha3 fly`'s operator channel
//! (stdin and a local socket). Bytes arrive in any chunking; whole lines come out.
//!
//! Memory stays bounded whatever the sender does: at most [`MAX_LINE_BYTES`] of the current
//! line are kept, and a line that grows past that is refused whole (its remaining bytes are
//! counted, not stored) — a cut-off instruction could mean something its sender never said.
//! Bytes that are not UTF-8 are replaced (U+FFFD) rather than ending the input, and the line
//! says so. Blank lines are no turn and are skipped.

/// The longest operator line accepted, in bytes, not counting its line ending.
pub const MAX_LINE_BYTES: usize = 2_000;

/// One framed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Framed {
    /// A line to hand to the agent: trimmed, never empty, at most [`MAX_LINE_BYTES`] bytes of
    /// input.
    Line {
        text: String,
        /// Some bytes were not UTF-8 and were replaced with U+FFFD.
        replaced: bool,
    },
    /// A line longer than [`MAX_LINE_BYTES`], refused: only its length is kept.
    TooLong { bytes: u64 },
}

impl Framed {
    /// What the sender is told about this line, if anything.
    pub fn notice(&self) -> Option<String> {
        match self {
            Self::Line { replaced: true, .. } => Some(
                "alpha3: that line was not valid UTF-8; the invalid bytes were replaced with U+FFFD"
                    .into(),
            ),
            Self::Line { .. } => None,
            Self::TooLong { bytes } => Some(format!(
                "alpha3: refused a line of {bytes} bytes (the limit is {MAX_LINE_BYTES}); send it in shorter lines"
            )),
        }
    }
}

/// Splits a byte stream into operator lines.
#[derive(Debug, Clone)]
pub struct LineFramer {
    /// The current line so far (never more than `max + 1` bytes).
    line: Vec<u8>,
    /// Bytes of the current line seen past the kept ones, once it is known to be too long.
    overflow: Option<u64>,
    max: usize,
}

impl Default for LineFramer {
    fn default() -> Self {
        Self::new(MAX_LINE_BYTES)
    }
}

impl LineFramer {
    /// A framer accepting lines of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            line: Vec::new(),
            overflow: None,
            max,
        }
    }

    /// Feeds `bytes` and hands every line they complete to `emit`, in order.
    pub fn push(&mut self, bytes: &[u8], mut emit: impl FnMut(Framed)) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let (part, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            self.take(part);
            match ended {
                Some(next) => {
                    if let Some(framed) = self.end_line() {
                        emit(framed);
                    }
                    rest = &rest[next..];
                }
                None => rest = &[],
            }
        }
    }

    /// The end of the input: the last line, if it had no newline.
    pub fn finish(&mut self) -> Option<Framed> {
        self.end_line()
    }

    /// Bytes of the current line held in memory (bounded by the limit plus one).
    pub fn buffered(&self) -> usize {
        self.line.len()
    }

    fn take(&mut self, part: &[u8]) {
        if let Some(seen) = &mut self.overflow {
            *seen = seen.saturating_add(part.len() as u64);
            return;
        }
        // One byte over the limit is kept: it may be the `\r` of a `\r\n` ending.
        let room = (self.max + 1).saturating_sub(self.line.len());
        if part.len() <= room {
            self.line.extend_from_slice(part);
        } else {
            self.overflow = Some((self.line.len() + part.len()) as u64);
            self.line.clear();
        }
    }

    fn end_line(&mut self) -> Option<Framed> {
        if let Some(bytes) = self.overflow.take() {
            return Some(Framed::TooLong { bytes });
        }
        let raw = std::mem::take(&mut self.line);
        let raw = raw.strip_suffix(b"\r").unwrap_or(&raw);
        if raw.len() > self.max {
            return Some(Framed::TooLong {
                bytes: raw.len() as u64,
            });
        }
        let decoded = String::from_utf8_lossy(raw);
        let replaced = matches!(decoded, std::borrow::Cow::Owned(_));
        let text = decoded.trim();
        if text.is_empty() {
            return None;
        }
        Some(Framed::Line {
            text: text.to_owned(),
            replaced,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(chunks: &[&[u8]], max: usize) -> Vec<Framed> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.push(c, |l| out.push(l));
        }
        out.extend(f.finish());
        out
    }

    fn line(text: &str) -> Framed {
        Framed::Line {
            text: text.into(),
            replaced: false,
        }
    }

    #[test]
    fn lines_come_out_whole_in_any_chunking() {
        let input = b"hold here\r\n\n  land now  \nlast";
        let whole = frame(&[input], 100);
        assert_eq!(
            whole,
            vec![line("hold here"), line("land now"), line("last")]
        );
        for cut in 0..input.len() {
            let (a, b) = input.split_at(cut);
            assert_eq!(frame(&[a, b], 100), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(frame(&bytes, 100), whole);
    }

    #[test]
    fn an_over_long_line_is_refused_whole_and_memory_stays_bounded() {
        let mut f = LineFramer::new(10);
        let mut out = Vec::new();
        f.push(b"ok\n0123456789", |l| out.push(l));
        assert_eq!(f.buffered(), 10, "exactly the limit is still a line");
        for _ in 0..1000 {
            f.push(&[b'x'; 1000], |l| out.push(l));
            assert!(f.buffered() <= 11);
            assert!(f.line.capacity() < 100);
        }
        f.push(b"yz\nafter\n", |l| out.push(l));
        assert_eq!(
            out,
            vec![
                line("ok"),
                Framed::TooLong {
                    bytes: 10 + 1_000_000 + 2
                },
                line("after")
            ]
        );
        assert_eq!(frame(&[b"0123456789\r\n"], 10), vec![line("0123456789")]);
        assert_eq!(
            frame(&[b"0123456789A"], 10),
            vec![Framed::TooLong { bytes: 11 }]
        );
        assert!(
            Framed::TooLong { bytes: 11 }
                .notice()
                .unwrap()
                .contains("11 bytes")
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_reading_goes_on() {
        let out = frame(&[b"caf\xc3\xa9 \xff\xfe ok\nnext\n"], 100);
        assert_eq!(
            out,
            vec![
                Framed::Line {
                    text: "café \u{fffd}\u{fffd} ok".into(),
                    replaced: true
                },
                line("next")
            ]
        );
        assert!(out[0].notice().is_some());
        assert_eq!(out[1].notice(), None);
    }
}
