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

#[cfg(test)]
mod tests {
    use super::*;

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
