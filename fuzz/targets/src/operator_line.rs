//! The operator channel's line reader (`alpha3 fly`, stdin and the operator socket): any bytes,
//! in any chunking, through [`LineFramer`].
//!
//! Input: a first byte choosing the line limit (1–256 bytes, so over-long lines are common), then
//! the bytes; the chunk sizes are drawn from the bytes themselves. Invariants: no panic; the
//! framer never holds more than the limit plus one byte; the lines are the same however the
//! bytes are cut; every line is trimmed, non-empty, free of newlines and (unless bytes were
//! replaced) exactly its input line trimmed; a refused line was longer than the limit; nothing
//! is lost: lines and refusals account for every non-blank input line.

use alpha3_core::operator_line::{Framed, LineFramer};

fn frame(data: &[u8], max: usize, cuts: &[usize]) -> Vec<Framed> {
    let mut f = LineFramer::new(max);
    let mut out = Vec::new();
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let n = cuts
            .get(i % cuts.len().max(1))
            .copied()
            .unwrap_or(rest.len());
        let (chunk, tail) = rest.split_at(n.clamp(1, rest.len()));
        f.push(chunk, |l| out.push(l));
        assert!(f.buffered() <= max + 1, "holds {} bytes", f.buffered());
        rest = tail;
        i += 1;
    }
    out.extend(f.finish());
    out
}

pub fn run(data: &[u8]) {
    let Some((choice, bytes)) = data.split_first() else {
        return;
    };
    let max = usize::from(*choice) + 1;
    let whole = frame(bytes, max, &[]);
    let cuts: Vec<usize> = bytes
        .iter()
        .take(16)
        .map(|b| usize::from(b % 7) + 1)
        .collect();
    assert_eq!(
        frame(bytes, max, &cuts),
        whole,
        "chunking changed the lines"
    );
    assert_eq!(
        frame(bytes, max, &[1]),
        whole,
        "byte-at-a-time changed the lines"
    );

    // The input's own lines, as the framer should see them.
    let mut expected = Vec::new();
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") {
        lines.pop();
    }
    for raw in lines {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.len() > max {
            expected.push(None);
        } else if !String::from_utf8_lossy(raw).trim().is_empty() {
            expected.push(Some(raw));
        }
    }
    assert_eq!(whole.len(), expected.len(), "lines lost or invented");
    for (got, want) in whole.iter().zip(&expected) {
        match (got, want) {
            (Framed::Line { text, replaced }, Some(raw)) => {
                assert!(!text.is_empty() && !text.contains('\n'));
                assert_eq!(text.trim(), text);
                assert_eq!(*replaced, std::str::from_utf8(raw).is_err());
                if !replaced {
                    assert_eq!(
                        text.as_bytes(),
                        String::from_utf8_lossy(raw).trim().as_bytes()
                    );
                }
                assert!(got.notice().is_some() == *replaced);
            }
            (Framed::TooLong { bytes }, None) => {
                assert!(*bytes as usize > max, "refused a line of {bytes} bytes");
                assert!(got.notice().is_some());
            }
            other => panic!("framed {other:?}"),
        }
    }
}
