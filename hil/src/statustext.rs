//! STATUSTEXT: the autopilot's own words (often the only sign it refused something), with
//! multi-chunk texts (`id` ≠ 0) joined back together.

use crate::dialect::mav;
use mav::MavSeverity;
use std::collections::VecDeque;

/// How many recent texts are kept.
const KEEP: usize = 32;

/// One complete text.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusText {
    pub at_ms: u64,
    pub severity: MavSeverity,
    pub text: String,
}

impl StatusText {
    /// WARNING or worse (EMERGENCY is 0, DEBUG 7).
    pub fn is_warning(&self) -> bool {
        (self.severity as u8) <= (MavSeverity::MAV_SEVERITY_WARNING as u8)
    }
}

/// Recent texts and the one being assembled.
#[derive(Debug, Clone, Default)]
pub struct StatusTexts {
    recent: VecDeque<StatusText>,
    partial: Option<(u16, String)>,
}

impl StatusTexts {
    /// Takes a STATUSTEXT; returns the text once it is complete.
    pub fn on_statustext(&mut self, now_ms: u64, m: &mav::STATUSTEXT_DATA) -> Option<StatusText> {
        let raw = &m.text[..];
        let end = raw.iter().position(|b| *b == 0);
        let piece = String::from_utf8_lossy(&raw[..end.unwrap_or(raw.len())]);
        let complete = if m.id == 0 {
            piece.into_owned()
        } else {
            let (id, mut text) = match self.partial.take() {
                Some((id, text)) if id == m.id && m.chunk_seq > 0 => (id, text),
                _ => (m.id, String::new()),
            };
            text.push_str(&piece);
            // The last chunk is the one not filling all 50 bytes.
            if end.is_none() {
                self.partial = Some((id, text));
                return None;
            }
            text
        };
        let t = StatusText {
            at_ms: now_ms,
            severity: m.severity,
            text: complete.trim_end().to_string(),
        };
        if self.recent.len() == KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back(t.clone());
        Some(t)
    }

    /// Texts received at or after `since_ms`, oldest first.
    pub fn since(&self, since_ms: u64) -> impl Iterator<Item = &StatusText> {
        self.recent.iter().filter(move |t| t.at_ms >= since_ms)
    }
}

/// Longest text we send: four chunks (a ground station joins them by `id`).
pub const MAX_SENT_TEXT: usize = 200;

/// Our own text as the STATUSTEXT chunks that carry it: one chunk with `id` 0 when it fits
/// 50 bytes, else chunks of `id` (never 0) cut on character boundaries, at most
/// [`MAX_SENT_TEXT`] bytes in all (the rest is cut with "…").
pub fn outgoing(severity: MavSeverity, text: &str, id: u16) -> Vec<mav::STATUSTEXT_DATA> {
    const CHUNK: usize = 50;
    let mut text = text.to_string();
    if text.len() > MAX_SENT_TEXT {
        let mut cut = MAX_SENT_TEXT - '…'.len_utf8();
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    let id = if text.len() <= CHUNK { 0 } else { id.max(1) };
    let mut chunks = Vec::new();
    let mut rest = text.as_str();
    let mut seq = 0u8;
    while !rest.is_empty() || chunks.is_empty() {
        let mut end = rest.len().min(CHUNK);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (head, tail) = rest.split_at(end);
        chunks.push(mav::STATUSTEXT_DATA {
            severity,
            text: head.into(),
            id,
            chunk_seq: seq,
        });
        seq = seq.saturating_add(1);
        rest = tail;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_texts_go_out_in_chunks_a_ground_station_joins() {
        let short = outgoing(
            MavSeverity::MAV_SEVERITY_WARNING,
            "alpha3: denied item 3",
            9,
        );
        assert_eq!(short.len(), 1);
        assert_eq!(short[0].id, 0);
        let long = format!("alpha3: {}", "é".repeat(60));
        let chunks = outgoing(MavSeverity::MAV_SEVERITY_WARNING, &long, 9);
        assert_eq!(chunks.len(), 3);
        let all: String = chunks
            .iter()
            .map(|c| c.text.to_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(all, long);
        assert!(chunks.iter().all(|c| c.id == 9));
        let huge = outgoing(MavSeverity::MAV_SEVERITY_WARNING, &"x".repeat(5000), 9);
        assert_eq!(huge.len(), 4);
    }

    fn chunk(id: u16, seq: u8, text: &str) -> mav::STATUSTEXT_DATA {
        mav::STATUSTEXT_DATA {
            severity: MavSeverity::MAV_SEVERITY_WARNING,
            text: text.into(),
            id,
            chunk_seq: seq,
        }
    }

    #[test]
    fn single_and_chunked_texts() {
        let mut s = StatusTexts::default();
        let t = s
            .on_statustext(5, &chunk(0, 0, "Reposition is outside geofence"))
            .unwrap();
        assert_eq!(t.text, "Reposition is outside geofence");
        assert!(t.is_warning());
        let first = "A".repeat(50);
        assert!(s.on_statustext(6, &chunk(7, 0, &first)).is_none());
        let t = s.on_statustext(7, &chunk(7, 1, "tail")).unwrap();
        assert_eq!(t.text, format!("{first}tail"));
        assert_eq!(s.since(6).count(), 1);
        assert_eq!(s.since(0).count(), 2);
    }
}
